# SPDX-License-Identifier: GPL-2.0
"""The Judge: the verdicts of one run of the judge, as TAP lines, with the
plan they are checked against; and what every family of checks reads.

Every verdict has a key; each mode plans its keys before it judges
(printed as "# plan: N verdicts") and a last verdict fails when a planned
one was not given, or given twice.
"""

import os
import re

import parse_results

TOP = parse_results.TOP


class Judge:
    """One run of the judge: the verdicts given so far, and where it reads
    what a result folder does not record itself.

    TREE, the kernel tree, stands in for a folder written without
    bin/describe.sh: its console-badness.sh scans the console, its futex
    kselftest Makefile lists the programs, its tags count the fixes.
    RELEASE is the kernel the native runs ran on (None: this machine's).
    MUTANTS and LOCKCHECK are the folders of the mutant patches."""

    def __init__(self, tree=None, release=None, mutants=os.path.join(TOP, "tests", "mutants"),
                 lockcheck=os.path.join(TOP, "tests", "lockcheck")):
        self.tree, self.release = tree, release
        self.mutants, self.lockcheck = mutants, lockcheck
        self.results = {}   # key -> ok, of the verdicts given so far
        self.given = []     # keys in the order given, repeats included
        self.failed = []    # names of the verdicts that failed

    def read(self, d):
        """Everything the guest of result folder D reported."""
        return parse_results.read_kernel(d, self.tree)

    def verdict(self, key, ok, name, why=""):
        """One TAP line; WHY follows a failed one."""
        ok = bool(ok)
        print(("ok " if ok else "not ok ") + name)
        self.given.append(key)
        self.results[key] = ok
        if not ok:
            self.failed.append(name)
            if why:
                print(why)

    def skipped(self, key, name, why):
        """A verdict that does not apply to this run: ok, with SKIP and why."""
        self.verdict(key, True, f"{name} # SKIP {why}")

    def check_plan(self, plan):
        """The last verdict: each planned key given exactly once, nothing else."""
        missing = [x for x in plan if x not in self.given]
        extra = sorted({x for x in self.given if x not in plan})
        twice = sorted({x for x in self.given if self.given.count(x) > 1})
        self.verdict("judge.plan", not missing and not extra and not twice,
                     f"the judge gave each of its {len(plan)} planned verdicts once",
                     "; ".join(f"{what}: {', '.join(x)}" for what, x in
                               (("missing", missing), ("unplanned", extra), ("given twice", twice)) if x))

    def run(self, plan, checks):
        """Print the plan, run the checks (CHECKS()), then check the plan;
        the exit status."""
        print(f"# plan: {len(plan)} verdicts, then whether each was given")
        checks()
        self.check_plan(plan)
        return 1 if self.failed else 0


def keys(*templates):
    """Declare the verdict keys a check gives ("{name}" for its guest)."""
    def mark(fn):
        fn.keys = templates
        return fn
    return mark


def planned(check, name=""):
    return [t.format(name=name) for t in check.keys]


def guest_problems(kn):
    """What is wrong with a guest's run as a whole: it reached its end,
    wrote each section once, its console has the kernel's boot, and its
    machine section agrees with its cpus line."""
    out = [] if kn.end is not None else ["no end section: the guest did not finish"]
    out += [f"section {n} written {kn.sections.count(n)} times" for n in kn.repeated]
    if kn.accel != "native" and not kn.console_booted:
        out.append("no console.log with the kernel's boot")
    said = kn.machine.cpus if kn.machine else None
    line = next((int(w) for w in kn.cpus.split()[:1] if w.isdigit()), None)
    if said != line:
        out.append(f"machine section says {said} CPUs, the cpus line {line}")
    return out


def console_hits(kn, check):
    """The console's flagged lines that CHECK counts: all of them for
    "console", those that match the regular expression PATTERN for
    "console:PATTERN" (a report that names the function the mutant breaks,
    where the flavour may report elsewhere too); None for any other check."""
    if check == "console":
        return kn.badness or []
    if check.startswith("console:"):
        return [b for b in kn.badness or [] if re.search(check[len("console:"):], b)]
    return None
