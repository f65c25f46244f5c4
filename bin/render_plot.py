#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Render compare_kernels.summarize()'s dict as PNG plots with gnuplot:
one per scale op (scale-OP.png: ops/s against threads, base and patched,
min..max of the runs as error bars), replacement.png (SET_SLOTS latency
under load per vCPU count) and icount.png (the instructions per call that
each kernel adds to the one before it). The data are summary.tsv's rows
(render_data.rows), so every point of a plot is a line there."""

import os
import shutil
import subprocess

import render_data
from compare_kernels import KERNELS

NO_GNUPLOT = "plots: not drawn, no gnuplot (Debian package gnuplot-nox)"


def terminal(gnuplot):
    """pngcairo where this gnuplot has it, else libgd's png (gnuplot-nox)."""
    r = subprocess.run([gnuplot, "-e", "set terminal"], capture_output=True, text=True)
    return "pngcairo" if "pngcairo" in r.stdout + r.stderr else "png"


def datablock(name, lines):
    """A gnuplot inline data block $NAME; "0 0" where LINES is empty, so
    that a plot naming it still draws."""
    return [f"${name} << EOD"] + (lines or ["0 0 0 0"]) + ["EOD"]


def _series(rows, metric, key, kernel):
    return [r for r in rows if r["metric"] == metric and r["key"] == key and r["kernel"] == kernel
            and r["value"] != "" and r.get("threads", "") != ""]


def scale_script(rows, op):
    """The gnuplot lines of one scale op's plot."""
    lines = []
    for kernel in KERNELS:
        lines += datablock(kernel.replace("-", "_"),
                           [f"{r['threads']} {r['value']} {r['min']} {r['max']}"
                            for r in _series(rows, "scale", op, kernel)])
    return lines + [
        f"set title 'perf bench futex hash, {op}: ops/s against threads (min..max of the runs)'",
        "set logscale x 2", "set offsets graph 0.05, graph 0.05, graph 0.1, 0", "set xlabel 'threads'",
        "set ylabel 'ops/s'", "set yrange [0:*]", "set key bottom right",
        "plot " + ", ".join(f"${k} using 1:2:3:4 with yerrorlines title '{k}'" for k in KERNELS)]


def replacement_script(rows):
    """The gnuplot lines of the replacement plot: one line per kernel and
    vCPU count, a run that never completed at its limit and labelled."""
    keys = sorted({r["key"] for r in rows if r["metric"] == "replacement"},
                  key=lambda k: int(k.split()[0]) if k.split()[0].isdigit() else 0)
    lines, plots = [], []
    for i, key in enumerate(keys):
        for kernel in KERNELS:
            name = f"{kernel}{i}"
            series = _series(rows, "replacement", key, kernel)
            lines += datablock(name, [f"{r['threads']} {r['value']} \"{r['note']}\"" for r in series])
            plots += [f"${name} using 1:2 with linespoints title '{kernel}, {key}'",
                      f"${name} using 1:2:3 with labels offset 0,1 notitle"]
    threads = sorted({int(r["threads"]) for r in rows if r["metric"] == "replacement"}) or [1]
    return lines + [
        "set title 'PR_FUTEX_HASH_SET_SLOTS under load, seconds (not done: drawn at its limit)'",
        "set logscale x 2", f"set xtics ({', '.join(map(str, threads))})",
        f"set xrange [{threads[0] * 0.75:g}:{threads[-1] * 1.33:g}]",
        "set xlabel 'threads running'", "set ylabel 'seconds'", "set key top left",
        "plot " + ", ".join(plots or ["0 notitle"])]


def icount_script(rows, labels):
    """The gnuplot lines of the icount plot: per path, the instructions
    each kernel of LABELS adds to the one before it, one bar each."""
    deltas = {}
    for r in rows:
        if r["metric"] == "icount" and r["kernel"] in labels[1:]:
            deltas.setdefault(r["key"], {})[r["kernel"]] = r["delta"]
    data = [f"\"{path}\" " + " ".join(str(d.get(label, "")) if d.get(label, "") != "" else "NaN"
                                     for label in labels[1:])
            for path, d in deltas.items()]
    return datablock("icount", data) + [
        "set title 'instructions per call: what each kernel adds to the one before it (icount)'",
        "set style data histograms", "set style histogram clustered gap 1", "set style fill solid 0.8",
        "set xtics rotate by -60 scale 0", "set ylabel 'instructions per call'", "set grid ytics",
        "set bmargin 9", "set key top left",
        "plot " + ", ".join(f"$icount using {i + 2}{':xtic(1)' if i == 0 else ''} title '{label}'"
                            for i, label in enumerate(labels[1:]))]


def draw(gnuplot, term, script, path):
    """Run one plot's script; whether gnuplot wrote PATH."""
    text = "\n".join([f"set terminal {term} size 800,500 noenhanced", f"set output '{path}'"]
                     + script) + "\n"
    r = subprocess.run([gnuplot], input=text, capture_output=True, text=True)
    return r.returncode == 0 and os.path.exists(path)


def plots(s, out_dir, gnuplot=None):
    """Draw the plots of summary S into OUT_DIR: the file names drawn, or
    the line saying why none were (no gnuplot)."""
    gnuplot = gnuplot or shutil.which("gnuplot")
    if not gnuplot:
        return NO_GNUPLOT
    term = terminal(gnuplot)
    rows = list(render_data.rows(s))
    scripts = {f"scale-{op}.png": scale_script(rows, op) for op in s.get("scale", ())}
    if s.get("replacement"):
        scripts["replacement.png"] = replacement_script(rows)
    if s.get("icount"):
        scripts["icount.png"] = icount_script(rows, s["icount"]["kernels"])
    return [name for name, script in scripts.items()
            if draw(gnuplot, term, script, os.path.join(out_dir, name))]
