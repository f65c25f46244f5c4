#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge what the guests reported, one TAP line each.

Usage: bin/verdicts.py CHECK_DIR [TREE]
       bin/verdicts.py --soak DIR...	(make soak: each DIR one guest's results)
       bin/verdicts.py --sanitize DIR...	(make sanitize: likewise)
       bin/verdicts.py --boots DIR	(make boots: DIR/KERNEL-N, one per boot)
       bin/verdicts.py --mutants DIR CONTROL
				(make mutants: DIR/MUTANT, one per mutant,
				and CONTROL, the unmutated kernel's run)
       bin/verdicts.py --lockcheck DIR	(make lockcheck: DIR/control and
				DIR/MUTANT, one per bug of tests/lockcheck/)

CHECK_DIR holds the result folders of make check's scenarios
(configs/scenarios): base/, patched/, patched-many/ and stable/ (the base
source with the series' stable patches alone, without fixes/), each
written by bin/boot.sh; native-1/ and native-2/, two runs of the native
mode on the machine's own kernel, with native-compare/, their
comparison; mutants/MUTANT/ and mutant-control/, make check's mutant and
the unmutated patched kernel in the same scenario; lockcheck/. Each
guest's folder says what else judging it needs (bin/describe.sh: the
kselftest programs, the fixes below the series, the steps, the console's
scan); TREE, the kernel tree, stands in for a folder written without
that.

The checks are bin/judge/'s, one module per family; this is their
command line. Exit status 1 when a verdict fails, 2 on bad usage.
"""

import argparse
import os
import sys

import compare_kernels
from judge import boots, kselftest, mutants, series, stress
from judge.core import Judge, planned

# The checks of each guest of make sanitize and make soak.
PER_GUEST = {"sanitize": (stress.check_sanitized,),
             "soak": (stress.check_failfutex, stress.check_soak, stress.check_replace)}


def per_guest(j, checks, dirs):
    """make sanitize and make soak: each DIR one guest's results."""
    names = [os.path.basename(os.path.normpath(d)) for d in dirs]
    plan = [x for name in names for c in checks for x in planned(c, name)]

    def run():
        for d, name in zip(dirs, names):
            kn = j.read(d)
            for c in checks:
                c(j, name, kn)
    return j.run(plan, run)


# make check's checks of its guests, planned from their keys.
MAIN_CHECKS = (kselftest.check_plans, kselftest.check_kselftests, kselftest.check_console,
               series.check_precheck, series.check_waiters, kselftest.check_resize,
               series.check_topology, kselftest.check_semantics, series.check_badinput,
               series.check_stable, series.check_numa_race, stress.check_failfutex,
               stress.check_soak, stress.check_replace, series.check_native)


# The folders of make check's run that the judge reads besides the
# kernels' and the native runs' (configs/plans/check writes them;
# tests/test_plan.py checks that the two agree).
STABLE, MUTANTS, MUTANT_CONTROL, LOCKCHECK = "stable", "mutants", "mutant-control", "lockcheck"
CHECK_KERNELS = compare_kernels.KERNELS + ("patched-many",)


def check_folders():
    """Every folder of make check's run that the judge reads."""
    return (CHECK_KERNELS + (STABLE, MUTANTS, MUTANT_CONTROL, LOCKCHECK) + series.NATIVE_RUNS
            + (series.NATIVE_COMPARE,))


def check_run(j, run):
    """make check: CHECK_DIR's guests, every family's checks, each looked up
    in its module as it runs."""
    k = {name: j.read(os.path.join(run, name)) for name in CHECK_KERNELS}
    st = j.read(os.path.join(run, STABLE))
    muts, control = os.path.join(run, MUTANTS), os.path.join(run, MUTANT_CONTROL)
    lockcheck = os.path.join(run, LOCKCHECK)
    plan = [x for c in MAIN_CHECKS for x in planned(c, "patched")] + mutants.mutant_plan(j, muts)[1] + \
        mutants.lockcheck_plan(lockcheck)[1]

    def run_checks():
        kselftest.check_plans(j, k, st)
        kselftest.check_kselftests(j, k)
        kselftest.check_console(j, k)
        series.check_precheck(j, k)
        series.check_waiters(j, k)
        kselftest.check_resize(j, k)
        series.check_topology(j, k["patched-many"])
        kselftest.check_semantics(j, k)
        series.check_badinput(j, k)
        series.check_stable(j, st, k)
        series.check_numa_race(j, st, k, series.has_fixes(st, j.tree))
        stress.check_failfutex(j, "patched", k["patched"])
        stress.check_soak(j, "patched", k["patched"])
        stress.check_replace(j, "patched", k["patched"])
        series.check_native(j, run)
        mutants.check_mutants(j, muts, control)
        mutants.check_lockcheck(j, lockcheck)
    return j.run(plan, run_checks)


class Parser(argparse.ArgumentParser):
    """argparse, its errors one "error: verdicts: ..." line as every other."""

    def error(self, message):
        print(f"error: verdicts: {message}", file=sys.stderr)
        sys.exit(2)


def parse_args(argv):
    p = Parser(prog="verdicts.py", description="Judge what the guests reported, one TAP line each.")
    mode = p.add_mutually_exclusive_group()
    for name, what in (("soak", "DIRs: make soak's guests"), ("sanitize", "DIRs: make sanitize's guests"),
                       ("boots", "DIR: make boots' DIR/KERNEL-N"),
                       ("mutants", "DIR CONTROL: make mutants' DIR/MUTANT and the unmutated kernel's run"),
                       ("lockcheck", "DIR: make lockcheck's DIR/control and DIR/MUTANT")):
        mode.add_argument(f"--{name}", dest="mode", action="store_const", const=name, help=what)
    p.add_argument("dirs", nargs="+", metavar="DIR",
                   help="CHECK_DIR [TREE] (make check's folder, and the kernel tree for a folder "
                   "that does not describe itself), or those of a mode")
    a = p.parse_args(argv)
    # How many folders each mode takes, at least and at most.
    lo, hi, what = {None: (1, 2, "CHECK_DIR [TREE]"), "boots": (1, 1, "DIR"), "lockcheck": (1, 1, "DIR"),
                    "mutants": (2, 2, "DIR CONTROL")}.get(a.mode, (1, len(a.dirs), "DIR..."))
    if not lo <= len(a.dirs) <= hi:
        p.error(f"{'--' + a.mode if a.mode else 'make check'} takes {what}, not {len(a.dirs)} folders")
    return a


def main(argv, j=None):
    """The exit status of the judge on ARGV; J, a Judge, keeps its verdicts
    (a new one unless given)."""
    a = parse_args(argv[1:])
    j = j or Judge()
    if a.mode in PER_GUEST:
        return per_guest(j, PER_GUEST[a.mode], a.dirs)
    if a.mode == "boots":
        return boots.boots(j, a.dirs[0])
    if a.mode == "lockcheck":
        return j.run(mutants.lockcheck_plan(a.dirs[0])[1], lambda: mutants.check_lockcheck(j, a.dirs[0]))
    if a.mode == "mutants":
        return j.run(mutants.mutant_plan(j, a.dirs[0])[1], lambda: mutants.check_mutants(j, *a.dirs))
    if len(a.dirs) > 1:
        j.tree = a.dirs[1]
    return check_run(j, a.dirs[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
