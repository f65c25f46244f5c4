#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tests/verdicts.py, on result folders that real guests
reported (tests/data/verdicts/README): passing, failing, hung and missing.
Run before any kernel is built."""

import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import verdicts  # noqa: E402  (puts bin/ on the path)
import compare  # noqa: E402
import fixtures  # noqa: E402
from fixtures import get_section, set_section  # noqa: E402
from verdicts import NUMA_RACE  # noqa: E402

DATA = os.path.join(HERE, "data", "verdicts")
# A stand-in for the kernel tree's rcutorture console-badness.sh.
BADNESS = "grep -E 'WARNING:|BUG:|Oops:|Call Trace:' || true\n"


def block(text, prog):
    """The lines of one kselftest program in a kselftest section."""
    lines, out, on = text.splitlines(keepends=True), [], False
    for line in lines:
        on = on or line.startswith(f"# selftests: futex/functional: {prog}\n")
        if on:
            out.append(line)
            if line.startswith(f"# took {prog} "):
                break
    return "".join(out)


class Guests(unittest.TestCase):
    """A copy of the passing results to break, and the verdicts on it."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.run_dir = os.path.join(self.tmp, "check")
        shutil.copytree(os.path.join(DATA, "pass"), self.run_dir)
        script = os.path.join(self.tmp, "tree/tools/testing/selftests/rcutorture/bin")
        os.makedirs(script)
        with open(os.path.join(script, "console-badness.sh"), "w") as f:
            f.write(BADNESS)
        self.tree, verdicts.parse_results.TREE = verdicts.parse_results.TREE, os.path.join(self.tmp, "tree")
        verdicts.FAILED.clear()

    def tearDown(self):
        verdicts.parse_results.TREE = self.tree
        shutil.rmtree(self.tmp)

    def path(self, *names):
        return os.path.join(self.run_dir, *names)

    def read(self, kernel, name):
        """Section NAME of KERNEL's results.txt."""
        return get_section(self.path(kernel), name)

    def write(self, text, kernel, name):
        """Replace (or add) section NAME of KERNEL's results.txt."""
        set_section(self.path(kernel), name, text)

    def replace_program(self, kernel, prog, new):
        text = self.read(kernel, "kselftest")
        old = block(text, prog)
        self.assertTrue(old, f"{prog} in {kernel}'s kselftest section")
        self.write(text.replace(old, new), kernel, "kselftest")

    def verdicts(self, *argv):
        """The TAP lines of a verdicts.py run: {name: ok}, and the output."""
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = verdicts.main(["verdicts.py", *argv])
        lines = {}
        for line in out.getvalue().splitlines():
            if line.startswith("ok "):
                lines[line[3:]] = True
            elif line.startswith("not ok "):
                lines[line[7:]] = False
        return rc, lines, out.getvalue()

    def check(self):
        return self.verdicts(self.run_dir, os.path.join(self.tmp, "tree"))

    def failing(self, lines):
        return [name for name, ok in lines.items() if not ok]

    def test_pass(self):
        _, lines, out = self.check()
        self.assertGreater(len(lines), 20)
        self.assertEqual(self.failing(lines), [], out)

    def test_hung_kselftest_names_its_evidence(self):
        with open(os.path.join(DATA, "captures", "numa_mpol_timeout")) as f:
            self.replace_program("patched", "futex_numa_mpol", f.read())
        self.write("evidence at 99.1 s of uptime: process group 7 with signal 9\n",
                   "patched", "evidence kselftest futex_numa_mpol")
        _, lines, out = self.check()
        bad = self.failing(lines)
        self.assertEqual(len(bad), 1, out)
        self.assertTrue(bad[0].startswith("patched debug kernel passes the futex kselftests"))
        self.assertIn("failed: futex_numa_mpol # exit=1 "
                      '(evidence: patched/results.txt, section "evidence kselftest futex_numa_mpol")', out)

    def test_race_test_passing_without_the_fix(self):
        self.write(block(self.read("base", "kselftest"), NUMA_RACE),
                   "stable", "numarace")
        _, lines, out = self.check()
        self.assertEqual([b.split(":")[0] for b in self.failing(lines)], ["without fixes/"], out)

    def test_race_test_failing_with_the_fix(self):
        self.replace_program("patched", NUMA_RACE, self.read("stable", "numarace"))
        _, lines, out = self.check()
        bad = self.failing(lines)
        self.assertTrue(any(b.startswith(f"patched: {NUMA_RACE} passes") for b in bad), out)

    def test_stable_patch_failing_alone(self):
        resize = self.read("stable", "resize")
        self.write(resize.replace("# ok 6 stall.cmp_requeue.set_slots_returns",
                                  "# not ok 6 stall.cmp_requeue.set_slots_returns"),
                   "stable", "resize")
        _, lines, out = self.check()
        self.assertEqual([b.split(" (")[0] for b in self.failing(lines)],
                         ["stable: the private hash tests pass on the base source with the "
                          "stable patches alone"], out)

    def test_drain_test_passing_on_base(self):
        self.replace_program("base", "futex_hash_drain",
                             block(self.read("patched", "kselftest"), "futex_hash_drain"))
        _, lines, out = self.check()
        self.assertEqual([b.split(" (")[0] for b in self.failing(lines)],
                         ["base: SET_SLOTS waits for a futex operation stalled in a fault"], out)

    def test_missing_sections(self):
        self.write(None, "patched", "precheck")
        shutil.rmtree(self.path("patched-many"))
        _, lines, out = self.check()
        bad = self.failing(lines)
        self.assertIn("precheck counted for private waits", bad, out)
        self.assertTrue(any(b.startswith("patched-many: the replacement tests pass") for b in bad), out)
        self.assertTrue(any(b.startswith("patched-many: futex_priv_hash passes") for b in bad), out)

    def test_topology_without_snc(self):
        machine = self.read("patched-many", "machine")
        self.write(machine.replace("distances 10 12 12 21 21 21", "distances 10 21 21 21 21 21"),
                   "patched-many", "machine")
        _, lines, out = self.check()
        self.assertEqual(self.failing(lines),
                         ["patched-many guest sees 6 NUMA nodes with SNC-like distances"], out)
        self.write(None, "patched-many", "machine")
        _, lines, out = self.check()
        self.assertIn("no machine section", out)

    def test_boots_count_a_first_run_that_hangs(self):
        boots = os.path.join(self.tmp, "boots")
        with open(os.path.join(DATA, "captures", "numa_mpol_timeout")) as f:
            hang = "TAP version 13\n1..1\n" + f.read()
        for name, first in (("base-1", None), ("patched-1", hang)):
            d = os.path.join(boots, name)
            shutil.copytree(self.path(name.split("-")[0]), d)
            set_section(d, "firstrun", first or "TAP version 13\n1..1\n" +
                        block(self.read("base", "kselftest"), "futex_numa_mpol"))
        rc, lines, out = self.verdicts("--boots", boots)
        self.assertEqual(rc, 1)
        self.assertEqual(self.failing(lines),
                         ["patched: futex_numa_mpol, first after boot, passed in 0 of 1 boots"], out)

    def test_mutants(self):
        mutants = os.path.join(self.tmp, "mutants")
        for name in ("b-unlock-keeps-waiter-count", "c-waiters-pending-no-mb",
                     "e-rehash-skips-last-bucket"):
            d = os.path.join(mutants, name)
            shutil.copytree(self.path("patched"), d)
            set_section(d, "numarace", "TAP version 13\n1..1\n" +
                        block(self.read("patched", "kselftest"), NUMA_RACE))
        set_section(os.path.join(mutants, "b-unlock-keeps-waiter-count"), "waiters",
                    "private aborted=6000 wakes=3000 busy=3000 woken=1 waiter_busy=3001\n"
                    "shared aborted=7000 wakes=3000 busy=3000 woken=1 waiter_busy=3001\n")
        rc, lines, out = self.verdicts("--mutants", mutants)
        self.assertEqual(rc, 1)
        self.assertTrue(lines["mutant b-unlock-keeps-waiter-count is caught: after aborted "
                              "private waits 3000 wakes saw a waiter count (woken 1); after "
                              "aborted shared waits 3000 wakes saw a waiter count (woken 1)"], out)
        self.assertTrue(any(n.startswith("mutant c-waiters-pending-no-mb survives # SKIP")
                            for n in lines), out)
        self.assertEqual(self.failing(lines), ["mutant e-rehash-skips-last-bucket is caught"], out)



class Native(unittest.TestCase):
    """make check's two native runs and their comparison, synthetic."""

    TAP = ("TAP version 13\n1..1\n# selftests: futex/functional: futex_wait_wouldblock\n"
           "ok 1 selftests: futex/functional: futex_wait_wouldblock\n")

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        for i in (1, 2):
            d = self.native(i)
            fixtures.synthetic_kernel(d, 1.0, runner="native")
            set_section(d, "kselftest", self.TAP)
        self.compare()
        verdicts.FAILED.clear()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def native(self, i):
        return os.path.join(self.tmp, f"native-{i}")

    def compare(self):
        with contextlib.redirect_stdout(io.StringIO()):
            compare.main(["compare.py", self.native(1), self.native(2),
                          "-o", os.path.join(self.tmp, "native-compare")])

    def failing(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            verdicts.check_native(self.tmp, "7.3.4+")
        return [line for line in out.getvalue().splitlines() if line.startswith("not ok")]

    def drop(self, i, name):
        """Remove native-I's bench runs of NAME."""
        d = self.native(i)
        fixtures.write_results(d, [x for x in fixtures.read_sections(d)
                                   if not (x[0] == "bench" and f"name={name} " in x[1])])

    def test_pass(self):
        self.assertEqual(self.failing(), [])

    def test_missing_program_needs_a_reason(self):
        self.drop(2, "pi_stress")
        self.assertEqual(self.failing(), [
            "not ok native-2: records the kselftest and every benchmark, or why not "
            "(20 runs, 0 steps not run)"])
        set_section(self.native(2), "skip", "block: sysbench not installed\n")
        self.assertEqual(len(self.failing()), 1)
        set_section(self.native(2), "skip", "block: pi_stress not installed\n")
        self.assertEqual(self.failing(), [])

    def test_empty_kselftest_and_other_release(self):
        set_section(self.native(1), "kselftest", "")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            verdicts.check_native(self.tmp, "6.1.0")
        self.assertEqual(sum(line.startswith("not ok native-") for line in out.getvalue().splitlines()), 3)

    def test_missing_run_and_summary(self):
        shutil.rmtree(self.native(2))
        os.remove(os.path.join(self.tmp, "native-compare", "summary.tsv"))
        self.assertEqual(len(self.failing()), 3)


if __name__ == "__main__":
    unittest.main()
