#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Stage "compare": set the base kernel's results against the patched one's.

Usage: bin/compare.py [--fail-on-regression] RUN_DIR
       bin/compare.py [--fail-on-regression] BASE_DIR PATCHED_DIR [-o OUT_DIR]
       bin/compare.py --icount [--fail-on-regression] [--repeat DIR] -o OUT_DIR DIR...

RUN_DIR holds one result folder per kernel (base/, patched/) and optionally
the pair booted with more vCPUs (base-many/, patched-many/); the summary
files go into RUN_DIR. BASE_DIR and PATCHED_DIR are any two result folders,
of QEMU guests or native runs; the summary files go into OUT_DIR
(results/compare-BASE-vs-PATCHED unless given). Prints one table and writes
summary.md, summary.tsv, summary.json and the plots, and exits 0: a report.
With --fail-on-regression it exits 1, after the table, where the patched
kernel regressed (compare_kernels.regressions(): a failed kselftest on a
patched guest, a block row failed, or slower where no guest had more
vCPUs than host CPUs (compare_kernels.overcommitted()), a path that pays more
instructions than configs/icount-paths allows), naming it on one
"error: compare: ..." line; make run compares so.

With --icount, the DIRs are guests of step icount, base first, then each
kernel of the series in order (make icount: every patch added); the
table sets each against the one before it and judges the last against
the first by configs/icount-paths. --repeat DIR: a second boot of the
last kernel, whose figures must be the same.

The work is split as kunit's is: parse_results reads a result folder,
compare_kernels sets two against each other, render_md, render_data and
render_plot write what that gave.
"""

import argparse
import os
import sys

import compare_icount
import compare_kernels
import parse_results
import render_data
import render_md
import render_plot


class InputError(Exception):
    """Input that cannot be compared: its message is the error line."""


def result_dir(path):
    """PATH if it is a result folder (it has results.txt), else InputError."""
    if not os.path.isfile(os.path.join(path, parse_results.RESULTS)):
        raise InputError(f"{path}: no {parse_results.RESULTS}, not a result folder")
    return path


def run_dirs(run):
    """The result folders of a make run's RUN_DIR, by kernel name."""
    if not os.path.isdir(run):
        raise InputError(f"{run}: no such folder")
    dirs = {name: result_dir(os.path.join(run, name)) for name in compare_kernels.KERNELS}
    for name in [n for pair in compare_kernels.PAIRS[1:] for n in pair] + list(compare_kernels.ICOUNT):
        if os.path.isdir(os.path.join(run, name)):
            dirs[name] = os.path.join(run, name)
    return dirs


def default_out(base, patched):
    """results/compare-BASE-vs-PATCHED under the repository."""
    names = [os.path.basename(os.path.normpath(d)) for d in (base, patched)]
    return os.path.join(parse_results.TOP, "results", f"compare-{names[0]}-vs-{names[1]}")


def write(s, out):
    """Draw the plots, write the summary files into OUT; the table's lines."""
    os.makedirs(out, exist_ok=True)
    lines = render_md.table(s, render_plot.plots(s, out))
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    render_data.write(s, os.path.join(out, "summary.json"), os.path.join(out, "summary.tsv"))
    return lines


def icount_chain(dirs, repeat=None):
    """The summary of make icount: DIRS, base first, as a chain."""
    ks = {os.path.basename(os.path.normpath(d)): parse_results.read_kernel(d) for d in dirs}
    if len(ks) != len(dirs):
        raise InputError("--icount: two result folders of the same name")
    ic = compare_icount.chain([(label, kn.icount) for label, kn in ks.items()])
    if repeat:
        last = list(ks)[-1]
        ic["repeat"] = {"kernel": last, "dir": repeat,
                        "differ": compare_icount.repeat(ks[last].icount,
                                                        parse_results.read_kernel(repeat).icount)}
    return {"kernels": {label: compare_kernels.kernel_info(kn) for label, kn in ks.items()}, "icount": ic}


def icount_problems(s):
    """What fails make icount: a path judged not ok, a figure that did
    not repeat, an error of futex_icount."""
    ic = s["icount"]
    return (compare_icount.failures(ic)
            + [f"{label}: {e[0]}" for label, e in ic["errors"].items()]
            + ([f"differ between boots: {', '.join(ic['repeat']['differ'])}"]
               if ic.get("repeat") and ic["repeat"]["differ"] else []))


class Parser(argparse.ArgumentParser):
    """argparse, its errors one "error: compare: ..." line as every other."""

    def error(self, message):
        raise InputError(message)


def parse_args(argv):
    """RUN_DIR, or BASE_DIR PATCHED_DIR with an optional -o OUT_DIR."""
    p = Parser(prog="compare.py", description=__doc__.split("\n")[0])
    p.add_argument("dirs", nargs="+", metavar="DIR",
                   help="RUN_DIR, or BASE_DIR PATCHED_DIR: result folders to compare")
    p.add_argument("-o", "--out", metavar="OUT_DIR",
                   help="where the summary files go (two folders only)")
    p.add_argument("--fail-on-regression", action="store_true",
                   help="exit 1 where a patched guest failed a kselftest or a block row is slower or failed")
    p.add_argument("--icount", action="store_true",
                   help="DIRs: guests of step icount, base first, each kernel after the one before")
    p.add_argument("--repeat", metavar="DIR", help="--icount: a second boot of the last kernel")
    a = p.parse_args(argv)
    if a.icount:
        if not a.out or len(a.dirs) < 2:
            raise InputError("usage: compare.py --icount [--fail-on-regression] [--repeat DIR] "
                             "-o OUT_DIR DIR DIR...")
        return a
    if a.repeat or len(a.dirs) > 2 or (a.out and len(a.dirs) != 2):
        raise InputError("usage: compare.py [--fail-on-regression] RUN_DIR | "
                         "compare.py [--fail-on-regression] BASE_DIR PATCHED_DIR [-o OUT_DIR]")
    return a


def main(argv):
    try:
        a = parse_args(argv[1:])
        if a.icount:
            s = icount_chain([result_dir(d) for d in a.dirs], a.repeat and result_dir(a.repeat))
            print("\n".join(write(s, a.out)))
            bad = icount_problems(s) if a.fail_on_regression else []
            if bad:
                print(f"error: compare: icount: {'; '.join(bad)}", file=sys.stderr)
            return 1 if bad else 0
        if len(a.dirs) == 1:
            dirs, out = run_dirs(a.dirs[0]), a.dirs[0]
        else:
            dirs = dict(zip(compare_kernels.KERNELS, map(result_dir, a.dirs)))
            out = a.out or default_out(*a.dirs)
    except InputError as e:
        print(f"error: compare: {e}", file=sys.stderr)
        return 2
    s = compare_kernels.summarize({name: parse_results.read_kernel(d) for name, d in dirs.items()})
    print("\n".join(write(s, out)))
    bad = compare_kernels.regressions(s) if a.fail_on_regression else []
    if bad:
        print(f"error: compare: {'; '.join(bad)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
