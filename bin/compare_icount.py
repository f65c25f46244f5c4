#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions per futex call (step icount), kernel after kernel.

Each kernel's figure for a path is the least of futex_icount's
repetitions, in instructions per call (parse_results.parse_icount gives
the per-call values): an interrupt that falls into a loop only adds to
it. Under -icount the guest clock counts instructions, so a figure is the
same in every boot of a kernel, to within tolerance(): repeat() finds
where two boots disagree by more. chain() sets kernels side by
side in the order given (base, each patch added, patched), each with its
delta from the one before, and judges the last against the first by the
line configs/icount-paths gives the path (judge()).
"""

import os

from parse_results import TOP

PATHS = os.path.join(TOP, "configs", "icount-paths")
# What configs/icount-paths' SERIES column says of a path.
SAME, BLOCKS, REFUSES = "same", "blocks", "refuses"
# How far two boots of one kernel may differ, in instructions per call:
# the timer ticks that fall into a loop count with it, and a loop of the
# same instructions catches one tick more or less depending on where it
# starts against the tick. A tick took 2,210 instructions in these guests;
# TICK is that with a margin, spread over the calls of a loop, and never
# less than TOLERANCE (loops of 100,000 calls: five boots of the plain
# base kernel agreed to 0.02). A difference within it is no difference to
# judge() either.
TICK = 2500
TOLERANCE = 0.05
# A row's verdicts.
OK, MORE, ABOVE, MISSING = "ok", "pays more", "above its wake", "missing"


def read_paths(path=PATHS):
    """configs/icount-paths: {PATH: {"series", "allow", "ref", "patch"}}, in order."""
    out = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if len(w) != 5 or w[1] not in (SAME, BLOCKS, REFUSES) or not w[2].isdigit() or w[0] in out:
                raise ValueError(f"{path}: bad line: {line.strip()}")
            out[w[0]] = {"series": w[1], "allow": int(w[2]), "ref": None if w[3] == "-" else w[3],
                         "patch": None if w[4] == "-" else w[4]}
    return out


def figures(icount):
    """{PATH: instructions per call}: the least of each path's
    repetitions, to 0.01; {} where the kernel reported none."""
    if not icount:
        return {}
    return {name: round(min(v), 2) for name, v in icount.runs.items() if v}


def tolerance(icount, path):
    """How much PATH's figure may differ between two boots: a tick over
    the fewest calls a loop of it made, at least TOLERANCE."""
    calls = icount.calls.get(path) if icount else None
    return max(TOLERANCE, TICK / calls) if calls else TOLERANCE


def repeat(a, b):
    """The paths whose figures differ by more than their tolerance()
    between two boots A and B of one kernel (parse_results.Icount),
    or that only one reported."""
    fa, fb = figures(a), figures(b)
    return sorted(p for p in set(fa) | set(fb)
                  if p not in fa or p not in fb or abs(fa[p] - fb[p]) > tolerance(a, p))


def judge(first, last, line, figs, tol):
    """The verdict on a path, FIRST (base) against LAST (patched), by its
    LINE of configs/icount-paths, TOL its tolerance(); FIGS: the last
    kernel's figures, for a refused wait's reference."""
    if first is None or last is None:
        return MISSING
    if last - first > line["allow"] + tol:
        return MORE
    if line["series"] == REFUSES and line["ref"]:
        ref = figs.get(line["ref"])
        if ref is None:
            return MISSING
        if last > ref + tol:
            return ABOVE
    return OK


def chain(kernels, paths=None):
    """KERNELS: [(label, parse_results.Icount or None)], base first, patched
    last. The summary's "icount" part: each path's figure per kernel,
    the delta from the kernel before, the whole series' delta, in
    instructions and per cent of base, and its verdict."""
    paths = read_paths() if paths is None else paths
    labels = [label for label, _ in kernels]
    figs = {label: figures(ic) for label, ic in kernels}
    rows = []
    for name, line in paths.items():
        values = [figs[label].get(name) for label in labels]
        steps = [None] + [round(b - a, 2) if a is not None and b is not None else None
                          for a, b in zip(values, values[1:])]
        first, last = values[0], values[-1]
        delta = round(last - first, 2) if first is not None and last is not None else None
        rows.append({"path": name, **line, "values": dict(zip(labels, values)),
                     "steps": dict(zip(labels, steps)), "delta": delta,
                     "pct": round(100 * delta / first, 2) if delta is not None and first else None,
                     "verdict": judge(first, last, line, figs[labels[-1]],
                                      tolerance(kernels[-1][1], name))})
    unknown = sorted({p for f in figs.values() for p in f} - set(paths))
    errors = {label: list(ic.errors) if ic else ["no icount section"]
              for label, ic in kernels}
    return {"kernels": labels, "rows": rows, "unknown": unknown,
            "errors": {label: e for label, e in errors.items() if e}}


def failures(ic):
    """The rows of chain() IC that fail their line, as phrases."""
    return [f"{r['path']} {r['verdict']}" + (f" ({r['delta']:+.1f}, allowed {r['allow']})"
                                             if r["verdict"] == MORE else "")
            for r in ic["rows"] if r["verdict"] != OK]
