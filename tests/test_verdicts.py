#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the judge (bin/verdicts.py and bin/judge/), on result
folders that real guests reported (tests/data/verdicts/README): each test
breaks one thing in a copy of a passing make check and names the verdict
that must fail on it.
Run before any kernel is built; tests/judge_mutation.py checks that they
fail when a condition of the judge is replaced."""

import atexit
import contextlib
import functools
import hashlib
import io
import os
import re
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixtures  # noqa: E402  (puts bin/ on the path)
from fixtures import get_section, set_section  # noqa: E402
import compare  # noqa: E402
import verdicts  # noqa: E402
from judge import core, kselftest, mutants, series  # noqa: E402
from parse_results import NUMA_RACE  # noqa: E402

DATA = os.path.join(HERE, "data", "verdicts")
# A stand-in for the kernel tree's rcutorture console-badness.sh.
BADNESS = "grep -E 'WARNING:|BUG:|Oops:|Call Trace:' || true\n"
# The futex kselftest programs of the tree the pass/ folders ran.
PROGRAMS = ("futex_wait_timeout futex_wait_wouldblock futex_requeue_pi futex_requeue_pi_signal_restart "
            "futex_requeue_pi_mismatched_ops futex_wait_uninitialized_heap futex_wait_private_mapped_file "
            "futex_wait futex_requeue futex_priv_hash futex_hash_resize futex_numa_mpol futex_numa_race "
            "futex_waitv futex_numa futex_hash_drain robust_list futex_lock_pi_exiting")
# The release make check's native runs of pass/ ran on.
RELEASE = fixtures.parse_results.read_kernel(os.path.join(DATA, "pass", "native-1")).machine.release
MUTANT = "b-unlock-keeps-waiter-count"
# The mutant of tests/lockcheck/ whose guest pass/lockcheck/ holds.
V6 = "v6-abandon"

# Every verdict make check's judge gives, by key: the test that pins them.
MAIN_KEYS = {
    "base.plan", "patched.plan", "patched-many.plan", "stable.plan", "patched.kselftest",
    "patched.console", "base.precheck.private", "base.precheck.shared", "patched.precheck.private",
    "patched.precheck.shared", "base.waiters.private", "base.waiters.shared", "patched.waiters.private",
    "patched.waiters.shared", "base.resize.fails", "base.drain.fails", "patched.resize",
    "patched-many.resize", "patched-many.priv_hash", "patched-many.console", "patched-many.topology",
    "semantics", "badinput", "stable.refstate", "base.refstate.stuck", "stable.size", "stable.console",
    "stable.numarace.fails",
    "base.numarace", "patched.numarace", "patched.failfutex", "patched.soak", "patched.replace", "native-1.end",
    "native-1.recorded", "native-2.end", "native-2.recorded", "native.compare", "mutants.ran",
    "base.kselftest", "base.console",
    f"mutant.{MUTANT}", "mutant-control", "lockcheck.ran", "lockcheck.control", f"lockcheck.{V6}",
    "judge.plan"}


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


def result(text, prog, new="not ok", suffix=""):
    """TEXT with the first runner result line of PROG made NEW (ok, not
    ok), SUFFIX after it."""
    return re.sub(rf"^(not )?ok (\d+) selftests: futex/functional: {prog}( .*)?$",
                  rf"{new} \2 selftests: futex/functional: {prog}{suffix}", text, count=1, flags=re.M)


def numarace(d, source):
    """Give guest folder D a numarace step of SOURCE's futex_numa_race."""
    set_section(d, "plan numarace", NUMA_RACE + "\n")
    set_section(d, "numarace", "TAP version 13\n1..1\n" + block(get_section(source, "kselftest"), NUMA_RACE))


@functools.lru_cache(maxsize=None)
def check_template():
    """One passing make check, native runs and mutant included, that each
    test of Guests copies: made once a process (tests/judge_mutation.py
    runs the tests many times), removed at its exit."""
    template = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, template, True)
    run = os.path.join(template, "check")
    shutil.copytree(os.path.join(DATA, "pass"), run)
    with contextlib.redirect_stdout(io.StringIO()):
        compare.main(["compare.py", os.path.join(run, "native-1"), os.path.join(run, "native-2"),
                      "-o", os.path.join(run, "native-compare")])
    return template


class Judge(unittest.TestCase):
    """Run the judge, and read its verdicts by key."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.tree = os.path.join(self.tmp, "tree")
        script = os.path.join(self.tree, "tools/testing/selftests/rcutorture/bin")
        os.makedirs(script)
        with open(os.path.join(script, "console-badness.sh"), "w") as f:
            f.write(BADNESS)
        self.makefile(PROGRAMS)
        # The judge's own folders of patches, unless a test gives others.
        self.patches = {}

    def tearDown(self):
        # KEEP_CASES=DIR: each test's edited folders stay, as DIR/TEST,
        # for a reader to open what the judge was fed.
        if os.environ.get("KEEP_CASES"):
            shutil.copytree(self.tmp, os.path.join(os.environ["KEEP_CASES"], self.id()), symlinks=True)
        shutil.rmtree(self.tmp)

    def makefile(self, programs):
        d = os.path.join(self.tree, kselftest.FUNCTIONAL)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "Makefile"), "w") as f:
            f.write(f"TEST_GEN_PROGS := {programs}\nTEST_PROGS := run.sh\n")

    def run_judge(self, *argv):
        """The judge's exit status and output; its verdicts in self.j.results.
        Folders that do not describe themselves are read with the test's
        tree; the native runs are judged as runs of RELEASE."""
        out = io.StringIO()
        self.j = core.Judge(tree=self.tree, release=RELEASE, **self.patches)
        with contextlib.redirect_stdout(out):
            rc = verdicts.main(["verdicts.py", *argv], self.j)
        return rc, out.getvalue()

    def failing(self):
        return sorted(k for k, ok in self.j.results.items() if not ok)


class Guests(Judge):
    """A copy of a passing make check to break, and the verdicts on it."""

    @classmethod
    def setUpClass(cls):
        cls.template = check_template()

    def setUp(self):
        super().setUp()
        self.run_dir = os.path.join(self.tmp, "check")
        # Hard links: the fixtures' writes replace files, never edit them.
        shutil.copytree(os.path.join(self.template, "check"), self.run_dir, copy_function=os.link)

    def path(self, *names):

        return os.path.join(self.run_dir, *names)

    def read(self, kernel, name):
        """Section NAME of KERNEL's results.txt."""
        return get_section(self.path(kernel), name)

    def write(self, text, kernel, name):
        """Replace (or add; None: remove) section NAME of KERNEL's results.txt."""
        set_section(self.path(kernel), name, text)

    def edit(self, kernel, name, fn, *under):
        d = self.path(*under, kernel)
        set_section(d, name, fn(get_section(d, name)))

    def replace_program(self, kernel, prog, new, section="kselftest"):
        text = self.read(kernel, section)
        old = block(text, prog)
        self.assertTrue(old, f"{prog} in {kernel}'s {section} section")
        self.write(text.replace(old, new), kernel, section)

    def check(self):
        rc, out = self.run_judge(self.run_dir, self.tree)
        self.out = out
        return rc

    def assertFails(self, *keys):
        """The judge fails exactly KEYS."""
        rc = self.check()
        self.assertEqual(self.failing(), sorted(keys), self.out)
        self.assertEqual(rc, 1 if keys else 0)

    def assertFailsAmong(self, key):
        """KEY is among the verdicts the judge fails."""
        self.check()
        self.assertIn(key, self.failing(), self.out)

    def test_pass(self):
        self.assertFails()
        self.assertEqual(set(self.j.results), MAIN_KEYS)
        self.assertEqual(len(self.j.given), len(MAIN_KEYS))
        self.assertIn(f"# plan: {len(MAIN_KEYS) - 1} verdicts, then", self.out)

    # -- plans

    def test_program_without_result(self):
        self.replace_program("base", "futex_wait", "")
        self.assertFails("base.plan")
        self.assertIn("futex_wait planned, no result", self.out)

    def test_result_not_planned(self):
        self.edit("patched", "plan kselftest", lambda t: t.replace("futex_waitv\n", ""))
        self.assertFails("patched.plan")
        self.assertIn("futex_waitv ran, not planned", self.out)

    def test_kst_tests_leaks_into_the_plan(self):
        """A KST_TESTS of the user's: fewer programs planned, and run."""
        self.replace_program("patched", "robust_list", "")
        self.edit("patched", "plan kselftest", lambda t: t.replace("robust_list\n", ""))
        self.assertFails("patched.plan")
        self.assertIn("robust_list not planned", self.out)

    def test_program_left_out_by_no_rule(self):
        self.replace_program("base", "futex_numa", "")
        self.edit("base", "plan kselftest", lambda t: t.replace("futex_numa\n", "futex_numa not run: x\n"))
        self.assertFails("base.plan")

    def test_program_planned_on_a_guest_too_small(self):
        self.edit("base", "plan kselftest", lambda t: t.replace("futex_priv_hash not run: needs 17 CPUs, "
                                                                 "8 online\n", "futex_priv_hash\n"))
        self.assertFailsAmong("base.plan")

    def test_plan_missing(self):
        self.write(None, "stable", "plan numarace")
        self.assertFails("stable.plan")

    def test_program_not_in_the_makefile(self):
        self.makefile(PROGRAMS.replace("robust_list ", ""))
        self.assertFails("base.plan", "patched.plan")

    def test_makefile_missing(self):
        os.remove(os.path.join(self.tree, kselftest.FUNCTIONAL, "Makefile"))
        self.assertFails("base.plan", "patched.plan")

    def test_program_reported_twice(self):
        text = self.read("base", "kselftest")
        self.write(text + block(text, "futex_wait"), "base", "kselftest")
        self.assertFails("base.plan")

    def test_drain_vanishes_from_both_patched_guests(self):
        self.replace_program("patched", "futex_hash_drain", "")
        self.edit("patched", "plan kselftest", lambda t: t.replace("futex_hash_drain\n", ""))
        self.replace_program("patched-many", "futex_hash_drain", "", "resize")
        self.edit("patched-many", "plan resize", lambda t: t.replace("futex_hash_drain\n", ""))
        self.assertFails("patched.plan", "patched.resize", "patched-many.resize")

    # -- the whole run of a guest

    def test_guest_did_not_finish(self):
        for g in ("base", "patched", "patched-many", "stable"):
            self.write(None, g, "end")
        self.check()
        for key in ("base.plan", "patched.plan", "patched-many.plan", "stable.plan"):
            self.assertIn(key, self.failing(), self.out)

    def test_section_written_twice(self):
        """A second kselftest section with a failure, after a passing one."""
        text = self.read("patched", "kselftest")
        secs = fixtures.read_sections(self.path("patched"))
        at = next(i for i, (n, _) in enumerate(secs) if n == "end")
        secs.insert(at, ("kselftest", result(text, "futex_wait", suffix=" # TIMEOUT 300 seconds")))
        fixtures.write_results(self.path("patched"), secs)
        self.assertFailsAmong("patched.plan")

    def test_console_empty(self):
        fixtures.replace_file(self.path("stable", "console.log"), "")
        self.assertFailsAmong("stable.plan")

    def test_cpus_line_disagrees(self):
        self.write("8 cpus\n", "patched-many", "cpus")
        self.assertFails("patched-many.plan")

    def test_program_planned_twice(self):
        self.edit("base", "plan kselftest", lambda t: t + "futex_wait\n")
        self.assertFails("base.plan")

    def test_not_run_for_a_wrong_reason(self):
        self.edit("base", "plan kselftest", lambda t: t.replace("needs 17 CPUs, 8 online", "needs 2 NUMA nodes, 1 online"))
        self.assertFails("base.plan")

    def test_cases_missing_from_a_program(self):
        """futex_requeue_pi's cases cut short, its runner line still ok."""
        text = self.read("patched", "kselftest")
        prog = block(text, "futex_requeue_pi")
        cut = "".join(x for x in prog.splitlines(keepends=True) if not re.match(r"^# ok 2[0-4] ", x))
        self.write(text.replace(prog, cut), "patched", "kselftest")
        self.assertFails("patched.plan")

    def test_case_reported_twice(self):
        self.edit("patched-many", "resize", lambda t: t.replace(
            "# ok 5 global.resize_loses_no_wakeup\n",
            "# not ok 5 global.resize_loses_no_wakeup\n# ok 5 global.resize_loses_no_wakeup\n"))
        self.check()
        self.assertIn("patched-many.plan", self.failing(), self.out)
        self.assertIn("patched-many.resize", self.failing(), self.out)

    # -- make check's guests

    def test_case_fails_while_its_program_passes(self):
        self.edit("patched", "kselftest", lambda t: t.replace("# ok 1 global.futex_waitv_wouldblock",
                                                              "# not ok 1 global.futex_waitv_wouldblock")
                  .replace("# ok 2 global.futex_waitv_wouldblock", "# not ok 2 global.futex_waitv_wouldblock"))
        self.assertFailsAmong("patched.kselftest")

    def test_case_times_out_while_its_program_passes(self):
        self.edit("patched", "kselftest", lambda t: t.replace(
            "# selftests: futex/functional: futex_requeue\n",
            "# selftests: futex/functional: futex_requeue\n# # x.c:1:y: Test terminated by timeout\n", 1))
        self.assertFails("patched.kselftest")

    def test_base_fails_another_program(self):
        self.edit("base", "kselftest", lambda t: result(t, "futex_requeue_pi", suffix=" # exit=1"))
        self.assertFails("base.kselftest")

    def test_base_console_oops(self):
        fixtures.append_file(self.path("base", "console.log"), "[   9.0] Oops: 0000 [#1] SMP\n")
        self.assertFails("base.console")

    def test_replacement_program_times_out(self):
        self.edit("patched-many", "resize", lambda t: result(t, "futex_hash_resize", suffix=" # TIMEOUT 300 seconds"))
        self.assertFails("patched-many.resize")

    def test_priv_hash_program_fails(self):
        self.edit("patched-many", "resize", lambda t: result(t, "futex_priv_hash", suffix=" # exit=139"))
        self.assertFails("patched-many.priv_hash", "patched-many.resize")

    def test_stable_references_stay_atomic(self):
        """The stable patch does not take effect: the base's histogram."""
        self.write(self.read("base", "resizebench refstate"), "stable", "resizebench refstate")
        self.assertFails("stable.refstate")

    def test_waiters_error_beside_a_clean_line(self):
        self.edit("patched", "waiters", lambda t: "futex_aborted: wake: Invalid argument\n" + t)
        self.assertFails("patched.waiters.private", "patched.waiters.shared")

    def test_waiters_line_twice(self):
        self.edit("base", "waiters", lambda t: re.sub(r" busy=0 ", " busy=2500 ", t, count=1) + t)
        self.assertFails("base.waiters.private", "base.waiters.shared")

    def test_precheck_line_twice(self):
        self.edit("patched", "precheck", lambda t: "private waits=10000 bucket=777 requested=10000\n" + t)
        self.assertFails("patched.precheck.private", "patched.precheck.shared")

    def test_failfutex_rc_twice(self):
        self.failfutex("stress-ng rc=0", "stress-ng rc=2\nstress-ng rc=0")
        self.assertFails("patched.failfutex")

    def test_failfutex_program_ran_twice(self):
        self.edit("patched", "failfutex tap", lambda t: re.sub(r"functional: futex_wait(?= |$)",
                                                               "functional: futex_wait_timeout", t, flags=re.M))
        self.assertFails("patched.failfutex")

    def test_soak_line_twice(self):
        self.edit("patched", "soak", lambda t: re.sub(r"(perf wake runs=\d+ rc=0)", r"perf wake runs=3 rc=139\n\1", t))
        self.assertFails("patched.soak")

    def test_hung_kselftest_names_its_evidence(self):
        with open(os.path.join(DATA, "captures", "numa_mpol_timeout")) as f:
            self.replace_program("patched", "futex_numa_mpol", f.read())
        self.write("evidence at 99.1 s of uptime: process group 7 with signal 9\n",
                   "patched", "evidence kselftest futex_numa_mpol")
        self.assertFails("patched.kselftest")
        self.assertIn("failed: futex_numa_mpol # exit=1 "
                      '(evidence: patched/results.txt, section "evidence kselftest futex_numa_mpol")', self.out)

    def test_skipped_case(self):
        self.edit("patched", "kselftest", lambda t: t.replace("# ok 2 global.futex_waitv_wouldblock",
                                                              "# ok 2 global.futex_waitv_wouldblock # SKIP x"))
        self.assertFails("patched.kselftest", "semantics")

    def test_skipped_program(self):
        self.edit("patched", "kselftest", lambda t: result(t, "futex_lock_pi_exiting", "ok", " # SKIP"))
        self.assertFails("patched.kselftest")

    def test_console_warning(self):
        fixtures.append_file(self.path("patched", "console.log"), "[   9.0] WARNING: CPU: 1 PID: 7 at kernel/futex/core.c:1 x\n")
        self.assertFails("patched.console", "patched.soak")

    def precheck(self, kernel, old, new):
        self.edit(kernel, "precheck", lambda t: t.replace(old, new))

    def test_base_mismatched_wait_skips_the_bucket(self):
        self.precheck("base", "private waits=10000 bucket=10000", "private waits=10000 bucket=9999")
        self.assertFails("base.precheck.private")

    def test_patched_mismatched_wait_reaches_the_bucket(self):
        self.precheck("patched", "shared waits=10000 bucket=0", "shared waits=10000 bucket=1")
        self.assertFails("patched.precheck.shared")

    def test_probe_counts_nothing(self):
        """The control: a patched path that no longer calls the probed
        function reads as "none reaches the bucket" unless matched waits
        must reach it."""
        self.precheck("patched", "matched private waits=10000 bucket=10000",
                      "matched private waits=10000 bucket=0")
        self.assertFails("patched.precheck.private")
        self.assertIn("0 of 10000 matched private waits reached the bucket", self.out)

    def test_fewer_waits_than_requested(self):
        self.precheck("patched", "private waits=10000 bucket=0", "private waits=0 bucket=0")
        self.assertFails("patched.precheck.private")
        self.precheck("base", "shared waits=10000 bucket=10000 requested=10000",
                      "shared waits=10000 bucket=10000 requested=20000")
        self.assertFails("patched.precheck.private", "base.precheck.shared")

    def test_control_waits_that_did_not_time_out(self):
        self.precheck("base", "matched shared waits=10000", "matched shared waits=9000")
        self.assertFails("base.precheck.shared")

    def test_precheck_error_and_missing(self):
        self.edit("base", "precheck", lambda t: t + "error futex_mismatch private failed: x\n")
        self.write(None, "patched", "precheck")
        self.assertFails("base.precheck.private", "base.precheck.shared", "patched.precheck.private",
                         "patched.precheck.shared")

    def waiters(self, kernel, old, new):
        self.edit(kernel, "waiters", lambda t: t.replace(old, new, 1))

    # One line of the waiters section edited (KERNEL, old, new), and the
    # verdict that must fail on it.
    WAITER_BREAKS = (
        ("base", "aborted=6000", "aborted=0", "base.waiters.private"),                   # nothing aborted
        ("patched", "wakes=3000", "wakes=0", "patched.waiters.private"),                 # no wake returned
        ("base", "shared rounds=1000 aborted=7000 wakes=3000",
         "shared rounds=1000 aborted=7000 wakes=2999", "base.waiters.shared"),          # a wake missing
        ("base", "shared rounds=1000 ", "shared rounds=0 ", "base.waiters.shared"),      # no round
        ("patched", "busy=0", "busy=1", "patched.waiters.private"),                      # a wake saw a count
        ("patched", "shared rounds=1000 aborted=7000 wakes=3000 busy=0 woken=1",
         "shared rounds=1000 aborted=7000 wakes=3000 busy=0 woken=0",
         "patched.waiters.shared"),                                                      # waiter not woken
        ("base", "waiter_busy=1", "waiter_busy=0", "base.waiters.private"),              # waiter unseen
    )

    def test_waiters_broken(self):
        for kernel, old, new, key in self.WAITER_BREAKS:
            with self.subTest(new=new):
                self.waiters(kernel, old, new)
                self.assertFails(key)
                self.waiters(kernel, new, old)

    def test_waiters_error_and_missing(self):
        self.write("error futex_aborted private failed\n", "base", "waiters")
        self.assertFails("base.waiters.private", "base.waiters.shared")
        self.assertIn("error futex_aborted private failed", self.out)

    def test_base_replacement_passes(self):
        self.edit("base", "kselftest", lambda t: t.replace("# not ok 4 global.set_slots_completes_under_load_64",
                                                           "# ok 4 global.set_slots_completes_under_load_64"))
        self.assertFails("base.resize.fails")

    def test_drain_test_passing_on_base(self):
        self.replace_program("base", "futex_hash_drain", block(self.read("patched", "kselftest"), "futex_hash_drain"))
        self.assertFails("base.drain.fails")

    def test_patched_replacement_case_fails(self):
        self.edit("patched-many", "resize", lambda t: t.replace("# ok 5 global.resize_loses_no_wakeup",
                                                                "# not ok 5 global.resize_loses_no_wakeup"))
        self.assertFails("patched-many.resize")

    def test_priv_hash_skips(self):
        self.edit("patched-many", "resize", lambda t: t.replace("# ok 1 ", "# ok 1 # SKIP ", 1))
        self.check()
        self.assertIn("patched-many.priv_hash", self.failing(), self.out)

    def test_priv_hash_missing(self):
        self.replace_program("patched-many", "futex_priv_hash", "", "resize")
        self.edit("patched-many", "plan resize", lambda t: t.replace("futex_priv_hash\n", ""))
        self.assertFails("patched-many.priv_hash")

    def test_patched_many_console(self):
        fixtures.append_file(self.path("patched-many", "console.log"), "[   9.0] BUG: kernel NULL pointer dereference\n")
        self.assertFails("patched-many.console")

    def test_missing_sections(self):
        self.write(None, "patched", "precheck")
        shutil.rmtree(self.path("patched-many"))
        self.check()
        for key in ("patched.precheck.private", "patched-many.resize", "patched-many.priv_hash",
                    "patched-many.plan", "patched-many.topology", "patched-many.console"):
            self.assertIn(key, self.failing(), self.out)
        self.assertTrue(self.j.results["judge.plan"], self.out)

    def test_topology_without_snc(self):
        self.edit("patched-many", "machine",
                  lambda t: t.replace("distances 10 12 12 21 21 21", "distances 10 21 21 21 21 21"))
        self.assertFails("patched-many.topology")
        self.write(None, "patched-many", "machine")
        self.assertFails("patched-many.plan", "patched-many.topology")
        self.assertIn("no machine section", self.out)

    def test_semantics_differ(self):
        self.edit("base", "kselftest", lambda t: t.replace("# ok 3 global.futex_wait_shared_anon_wouldblock",
                                                           "# not ok 3 global.futex_wait_shared_anon_wouldblock"))
        self.assertFails("base.kselftest", "semantics")

    def test_semantics_missing(self):
        for k in ("base", "patched"):
            self.replace_program(k, kselftest.SEMANTICS, "")
            self.edit(k, "plan kselftest", lambda t: t.replace(kselftest.SEMANTICS + "\n", ""))
        self.assertFails("base.plan", "patched.plan", "semantics")

    def test_badinput_differs(self):
        call = "0 futex(WAIT, valid, mismatch(instead of match), timeout=none) -> -1 EAGAIN"
        self.edit("patched", "badinput", lambda t: t.replace(call, call.replace("-1 EAGAIN", "0 OK")))
        self.assertFails("badinput")

    def test_badinput_call_missing(self):
        self.edit("base", "badinput", lambda t: "".join(t.splitlines(keepends=True)[1:]))
        self.assertFails("badinput")

    def test_badinput_incomplete(self):
        self.edit("patched", "badinput", lambda t: t.replace("total 300", "total 301"))
        self.edit("base", "badinput", lambda t: t.replace("total 300", "total 301"))
        self.assertFails("badinput")

    def test_badinput_error(self):
        self.edit("base", "badinput", lambda t: t + "error futex_badinput crashed\n")
        self.assertFails("badinput")

    def test_stable_references_partly_atomic(self):
        """11% of the references on the atomic: more than a replacement's
        own FR_ATOMIC phase."""
        self.write("{ state:          0 } hitcount:        89\n"
                   "{ state:          1 } hitcount:        11\n", "stable", "resizebench refstate")
        self.assertFails("stable.refstate")

    def test_stable_refstate_missing(self):
        """No histogram (the step skipped, or did not run): no verdict."""
        self.write(None, "stable", "resizebench refstate")
        self.assertFails("stable.refstate")

    def test_stable_size_not_reached(self):
        """The automatic size is not reached even once the load pauses."""
        self.edit("stable", "resizebench retry", lambda t: t.replace(" done=1 ", " done=0 "))
        self.assertFails("stable.size")

    def test_stable_size_left_pending(self):
        """A replacement left pending under the load, to complete only once
        it pauses (7.3.4, or a kernel that gives the replacement up)."""
        self.edit("stable", "resizebench retry", lambda t: re.sub(r" before=\d+ ", " before=16 ", t))
        self.assertFails("stable.size")

    def test_stable_size_missing(self):
        self.write(None, "stable", "resizebench retry")
        self.assertFails("stable.size")

    def test_base_references_not_stuck(self):
        """The test cannot fail on the base: the stable kernel's histogram."""
        self.write(self.read("stable", "resizebench refstate"), "base", "resizebench refstate")
        self.assertFails("base.refstate.stuck")

    def test_stable_console(self):
        fixtures.append_file(self.path("stable", "console.log"), "[   9.0] WARNING: at kernel/futex/core.c\n")
        self.assertFails("stable.console")

    def test_race_test_passing_without_the_fix(self):
        self.write(block(self.read("base", "kselftest"), NUMA_RACE), "stable", "numarace")
        self.assertFails("stable.numarace.fails")

    def test_race_test_failing_with_the_fix(self):
        self.replace_program("patched", NUMA_RACE, self.read("stable", "numarace"))
        self.check()
        self.assertIn("patched.numarace", self.failing(), self.out)

    def test_race_test_without_rounds(self):
        self.edit("base", "kselftest", lambda t: re.sub(r"(first_waiters_agree_on_node:\d+) rounds",
                                                        r"\1 roundz", t))
        self.assertFails("base.numarace")

    def test_numa_race_without_fixes(self):
        """fixes/ empty: the race verdicts are given, as skips."""
        out = io.StringIO()
        j = core.Judge(tree=self.tree)
        with contextlib.redirect_stdout(out):
            series.check_numa_race(j, j.read(self.path("stable")), {}, False)
        self.assertEqual(j.given, core.planned(series.check_numa_race))
        self.assertEqual(out.getvalue().count("# SKIP fixes/ is empty"), 3)

    def failfutex(self, old, new):
        self.edit("patched", "failfutex", lambda t: t.replace(old, new))

    def test_replace_lost_a_waiter(self):
        self.edit("patched", "replace", lambda t: t.replace(" lost=0 ", " lost=1 "))
        self.assertFails("patched.replace")

    def test_replace_missing(self):
        self.write(None, "patched", "replace")
        self.assertFails("patched.replace")

    def test_failfutex_stress_ng_failed(self):
        self.failfutex("stress-ng rc=0", "stress-ng rc=1")
        self.assertFails("patched.failfutex")

    def test_failfutex_stress_ng_did_nothing(self):
        self.edit("patched", "failfutex", lambda t: re.sub(r"(\] futex +)\d+ ", r"\g<1>0 ", t))
        self.assertFails("patched.failfutex")

    def test_failfutex_no_faults(self):
        self.edit("patched", "failfutex sites", lambda t: t.replace("{ ret:          1 }", "{ ret:          2 }"))
        self.assertFails("patched.failfutex")

    def test_failfutex_program_outlived_its_time(self):
        self.edit("patched", "failfutex tap", lambda t: result(t, "futex_wait_timeout", suffix=" # TIMEOUT 60 seconds"))
        self.assertFails("patched.failfutex")

    def test_failfutex_program_missing(self):
        self.failfutex("listed 6", "listed 7")
        self.assertFails("patched.failfutex")

    def test_failfutex_badinput_failed(self):
        self.failfutex("badinput rc=0", "badinput rc=124")
        self.assertFails("patched.failfutex")

    def test_failfutex_missing_or_error(self):
        self.failfutex("listed 6", "error no x\nlisted 6")
        self.assertFails("patched.failfutex")
        self.write(None, "patched", "failfutex")
        self.assertFails("patched.failfutex")

    def soak(self, old, new):
        self.edit("patched", "soak", lambda t: t.replace(old, new))

    def test_soak_without_perf(self):
        self.write("".join(x for x in self.read("patched", "soak").splitlines(keepends=True)
                           if not x.startswith("perf ")), "patched", "soak")
        self.assertFails("patched.soak")

    def test_soak_perf_missing_in_the_image(self):
        self.edit("patched", "soak", lambda t: re.sub(r"perf wake runs=\d+ rc=0", "error no perf in the image", t))
        self.assertFails("patched.soak")

    def test_soak_run_killed(self):
        self.edit("patched", "soak", lambda t: re.sub(r"(perf requeue runs=\d+) rc=0", r"\1 rc=124", t))
        self.assertFails("patched.soak")

    def test_soak_stress_ng_failed(self):
        self.soak("stress-ng rc=0", "stress-ng rc=2")
        self.assertFails("patched.soak")

    def test_soak_stress_ng_did_nothing(self):
        self.edit("patched", "soak", lambda t: re.sub(r"(\] futex +)\d+ ", r"\g<1>0 ", t))
        self.assertFails("patched.soak")

    def test_soak_missing(self):
        self.soak("stress-ng rc=0", "")
        self.assertFails("patched.soak")

    def test_native_missing(self):
        shutil.rmtree(self.path("native-2"))
        self.assertFails("native-2.end", "native-2.recorded")

    def test_kselftest_section_missing_or_empty(self):
        self.write("", "patched", "kselftest")
        self.assertFailsAmong("patched.kselftest")
        self.write(None, "patched", "kselftest")
        self.assertFailsAmong("patched.kselftest")

    def test_waiters_nothing_at_all(self):
        self.write("private rounds=0 aborted=0 wakes=0 busy=0 woken=1 waiter_busy=1\n"
                   + self.read("base", "waiters").splitlines(keepends=True)[1], "base", "waiters")
        self.assertFails("base.waiters.private")

    def test_topology_node_count(self):
        self.edit("patched-many", "machine", lambda t: t.replace("nodes: 6", "nodes: 7"))
        self.assertFails("patched-many.topology")

    def test_race_test_fails_for_no_reason_given(self):
        """Without fixes/ it must fail because a wake missed a waiter."""
        self.edit("stable", "numarace", lambda t: "".join(
            x for x in t.splitlines(keepends=True) if "missed" not in x))
        self.assertFails("stable.numarace.fails")

    def test_race_test_passes_but_reports_a_miss(self):
        lost = next(x for x in self.read("stable", "numarace").splitlines(keepends=True) if "missed" in x)
        self.edit("stable", "numarace", lambda t: t.replace("# not ok 1 global.first_waiters_agree_on_node",
                                                            "# ok 1 global.first_waiters_agree_on_node"))
        self.edit("stable", "numarace", lambda t: t + lost)
        self.assertFails("stable.numarace.fails")

    def test_race_test_on_one_node(self):
        self.edit("patched", "kselftest", lambda t: t.replace("waiters on 2 nodes", "waiters on 1 nodes"))
        self.assertFails("patched.numarace")

    def test_unplanned_verdict(self):
        saved = kselftest.check_console

        def extra(j, k):
            saved(j, k)
            j.verdict("x.unplanned", True, "an unplanned verdict")
        kselftest.check_console = extra
        try:
            self.assertFails("judge.plan")
        finally:
            kselftest.check_console = saved
        self.assertIn("unplanned: x.unplanned", self.out)

    # -- the mutant of make check and its control

    def test_mutant_caught_by_another_check(self):
        """Caught only by the check its patch names."""
        self.edit(MUTANT, "waiters", lambda t: re.sub(r" busy=\d+ ", " busy=0 ", t), "mutants")
        d = self.path("mutants", MUTANT)
        set_section(d, "precheck", get_section(d, "precheck").replace("private waits=10000 bucket=0",
                                                                      "private waits=10000 bucket=5"))
        self.assertFails(f"mutant.{MUTANT}")
        self.assertIn("failed instead: precheck", self.out)

    def test_mutant_escapes_with_probe_misses(self):
        """Not caught: the detail says what the waiters step counted, and
        how many calls its probe missed."""
        self.edit(MUTANT, "waiters", lambda t: re.sub(r" busy=\d+ ", " busy=0 ", t).replace(
            "waiter_busy=1", "waiter_busy=1 busy_missed=2000 waiter_missed=0"), "mutants")
        self.assertFails(f"mutant.{MUTANT}")
        self.assertIn("private: 0 of 3000 wakes saw a count, waiter seen 1 times, the probe missed "
                      "2000 and 0 calls", self.out)

    def test_mutant_guest_reported_only_its_end(self):
        d = self.path("mutants", MUTANT)
        fixtures.write_results(d, [("end", "done\n")])
        self.assertFails(f"mutant.{MUTANT}")

    def test_mutant_guest_without_end(self):
        set_section(self.path("mutants", MUTANT), "end", None)
        self.assertFails(f"mutant.{MUTANT}")

    def test_mutant_step_missing(self):
        set_section(self.path("mutants", MUTANT), "numarace", None)
        self.assertFails(f"mutant.{MUTANT}")

    def test_control_fails_a_named_check(self):
        self.edit("mutant-control", "waiters", lambda t: t.replace(" busy=0 ", " busy=2 "))
        self.assertFails("mutant-control")

    def test_control_fails_any_check(self):
        self.edit("mutant-control", "kselftest", lambda t: result(t, "futex_waitv"))
        self.assertFails("mutant-control")

    def test_control_missing(self):
        shutil.rmtree(self.path("mutant-control"))
        self.assertFails("mutant-control")

    def test_control_incomplete(self):
        set_section(self.path("mutant-control"), "waiters", None)
        self.assertFails("mutant-control")

    def test_no_mutant_ran(self):
        shutil.rmtree(self.path("mutants"))
        self.assertFails("mutants.ran")

    # -- make lockcheck (pass/lockcheck: the control and V6, lockdep's report)

    def exitpi_edits(self):
        """The control's step exitpi, each stage's line, its exit status and
        the kernel's probe line broken in turn, and an error added."""
        return [("exitpi", "exitpi: owner ", "exitpi: owner? "),
                ("exitpi", "exitpi: a futex wait holds", "exitpi: no futex wait holds"),
                ("exitpi", "exitpi: PR_FUTEX_HASH_SET_SLOTS waits",
                 "exitpi: PR_FUTEX_HASH_SET_SLOTS returned without waiting"),
                ("exitpi", "exitpi: the owner exited", "exitpi: the owner?"),
                ("exitpi", "exitpi: done", "exitpi: not done"),
                ("exitpi", "rc=0", "rc=1"),
                ("exitpi", "rc=0", "error: membarrier: Invalid argument\nrc=0"),
                ("exitpi", "exitpi: owner ", "skip: no userfaultfd\nexitpi: owner "),
                ("dmesg", "exit_pi_state_list() dropped a reference", "exit_pi_state_list() dropped nothing")]

    def test_lockcheck_control_did_not_make_the_put(self):
        d = self.path("lockcheck", "control")
        for name, old, new in self.exitpi_edits():
            clean = get_section(d, name)
            self.assertIn(old, clean)
            set_section(d, name, clean.replace(old, new, 1))
            self.assertFails("lockcheck.control")
            set_section(d, name, clean)
        set_section(d, "exitpi", None)
        self.assertFails("lockcheck.control")

    def test_lockcheck_control_reports(self):
        fixtures.append_file(self.path("lockcheck", "control", "console.log"),
                             "[    7.1] [ BUG: Invalid wait context ]\n")
        self.assertFails("lockcheck.control")

    def test_lockcheck_control_guest_did_not_finish(self):
        set_section(self.path("lockcheck", "control"), "end", None)
        self.assertFails("lockcheck.control")

    def test_lockcheck_mutant_not_caught(self):
        """V6's guest with the control's console: no report, no catch; nor
        is a report that the mutant's Caught-by: pattern does not name."""
        with open(self.path("lockcheck", "control", "console.log")) as f:
            clean = f.read()
        console = self.path("lockcheck", V6, "console.log")
        fixtures.replace_file(console, clean)
        self.assertFails(f"lockcheck.{V6}")
        fixtures.replace_file(console, clean + "[    7.1] WARNING: CPU: 0 PID: 140 at kernel/futex/core.c:1\n")
        self.assertFails(f"lockcheck.{V6}")
        self.assertIn("the step: made the put; console: [    7.1] WARNING", self.out)

    def test_lockcheck_missing(self):
        shutil.rmtree(self.path("lockcheck", "control"))
        self.assertFails("lockcheck.control")
        shutil.rmtree(self.path("lockcheck"))
        self.assertFails("lockcheck.control", "lockcheck.ran")

    def test_lockcheck_mutant_names_no_check(self):
        """A patch of tests/lockcheck/ without its Caught-by: line: nothing
        counts as its catch, and no mutant that a check must catch ran."""
        d = os.path.join(self.tmp, "lockcheck")
        os.makedirs(d)
        with open(os.path.join(core.Judge().lockcheck, V6 + ".patch")) as f:
            text = f.read()
        with open(os.path.join(d, V6 + ".patch"), "w") as f:
            f.write(re.sub(r"^Caught-by:.*\n", "", text, flags=re.M))
        self.patches = {"lockcheck": d}
        self.assertFails("lockcheck.ran", f"lockcheck.{V6}")

    def test_lockcheck_mutant_without_its_patch(self):
        os.rename(self.path("lockcheck", V6), self.path("lockcheck", "x-gone"))
        self.assertFails("lockcheck.ran", "lockcheck.x-gone")

    # -- the judge's own plan

    def test_a_verdict_vanishes(self):
        saved = kselftest.check_console
        kselftest.check_console = lambda j, k: None
        try:
            self.assertFails("judge.plan")
        finally:
            kselftest.check_console = saved
        self.assertIn("missing: patched.console", self.out)

    def test_a_verdict_given_twice(self):
        saved = kselftest.check_semantics
        kselftest.check_semantics = lambda j, k: (saved(j, k), saved(j, k))
        try:
            self.assertFails("judge.plan")
        finally:
            kselftest.check_semantics = saved

    # -- folders that describe themselves (bin/describe.sh)

    def describe(self, *dirs, **about):
        """Give each guest folder of DIRS an about file (ABOUT's keys, the
        steps its scenario gives it unless ABOUT says) and its console's
        scan, as bin/describe.sh writes them."""
        scenarios = {"base": "check-base", "patched": "check-patched", "patched-many": "check-many",
                     "stable": "check-stable", "mutant-control": "check-mutant",
                     os.path.join("mutants", MUTANT): "check-mutant", os.path.join("lockcheck", "control"): "lockcheck",
                     os.path.join("lockcheck", V6): "lockcheck"}
        for d in dirs:
            lines = dict({"kernel": d, "steps": ",".join(mutants.scenario_steps(scenarios[d])),
                          "fixes": "4", "programs": PROGRAMS}, **about)
            with open(self.path(d, "about"), "w") as f:
                f.write("".join(f"{k} {v}\n" for k, v in lines.items()))
            with open(self.path(d, "console.log"), "rb") as f:
                console = f.read()
            flagged = fixtures.parse_results.badness(console.decode(errors="replace"), self.tree)
            with open(self.path(d, "badness"), "w") as f:
                f.write(f"sha256 {hashlib.sha256(console).hexdigest()}\n" + "".join(b + "\n" for b in flagged))

    @staticmethod
    def append(path, text):
        """PATH with TEXT after it, as a new file: the copy's files are the
        template's, hard linked."""
        with open(path) as f:
            old = f.read()
        os.unlink(path)
        with open(path, "w") as f:
            f.write(old + text)

    GUESTS = ("base", "patched", "patched-many", "stable", "mutant-control", os.path.join("mutants", MUTANT),
              os.path.join("lockcheck", "control"), os.path.join("lockcheck", V6))

    def test_described_folders_judged_without_the_tree(self):
        self.describe(*self.GUESTS)
        self.tree = os.path.join(self.tmp, "no-tree")
        rc, self.out = self.run_judge(self.run_dir)
        self.assertEqual((rc, self.failing()), (0, []), self.out)
        self.assertEqual(set(self.j.results), MAIN_KEYS)

    def test_described_program_list_is_the_plan(self):
        """The folder's list, not the tree's Makefile, says what must run."""
        self.describe("base", programs=PROGRAMS + " futex_new")
        self.assertFails("base.plan")
        self.assertIn("futex_new", self.out)

    def test_described_without_a_program_list(self):
        self.describe("base", programs="")
        self.assertFails("base.plan")

    def test_recorded_scan_is_read(self):
        """A flagged line in the run's own scan fails the console verdict."""
        self.describe("patched")
        self.append(self.path("patched", "badness"), "WARNING: CPU: 1 PID: 2 at kernel/futex/core.c:1 recorded\n")
        self.assertFails("patched.console", "patched.soak")
        self.assertIn("recorded", self.out)

    def test_stale_scan_is_not_read(self):
        """A console changed since its scan is scanned again."""
        self.describe("patched")
        self.append(self.path("patched", "console.log"), "WARNING: CPU: 1 PID: 2 at kernel/futex/core.c:1 later\n")
        self.assertFails("patched.console", "patched.soak")
        self.assertIn("later", self.out)

    def test_described_without_fixes(self):
        """The stable guest's folder says fixes/ was empty: the race verdicts
        are skips, whatever its race test reported."""
        self.describe("stable", fixes="0")
        self.check()
        self.assertEqual(self.out.count("# SKIP fixes/ is empty"), 3, self.out)

    def test_control_lost_a_waiter_in_replace(self):
        self.edit("mutant-control", "replace", lambda t: t.replace(" lost=0 ", " lost=1 "))
        self.assertFails("mutant-control")

    def test_mutant_pair_in_the_steps_of_its_check(self):
        """make check's pair, scenario check-mutant: no kselftest, starve,
        numarace or replace section, and none missed."""
        pair = ("mutant-control", os.path.join("mutants", MUTANT))
        self.describe(*pair, steps="precheck,waiters")
        for d in pair:
            for name in ("plan kselftest", "kselftest", "starve", "plan numarace", "numarace", "replace"):
                self.write(None, d, name)
        self.assertFails()

    def test_described_steps_of_the_control(self):
        """The control's folder names a step it did not report."""
        self.describe("mutant-control", steps="precheck,waiters,hold")
        self.assertFails("mutant-control")
        self.assertIn("step hold reported no hold section", self.out)


class Mutants(Judge):
    """make mutants: each mutant caught by the check its patch names."""

    NAMES = ("b-unlock-keeps-waiter-count", "c-waiters-pending-no-mb", "e-pivot-skips-last-bucket")

    def setUp(self):
        super().setUp()
        self.dir = os.path.join(self.tmp, "mutants")
        self.control = os.path.join(self.tmp, "control")
        patched = os.path.join(DATA, "pass", "patched")
        control = os.path.join(DATA, "pass", "mutant-control")
        starve, replace = get_section(control, "starve"), get_section(control, "replace")
        for d in [os.path.join(self.dir, n) for n in self.NAMES] + [self.control]:
            shutil.copytree(patched, d)
            numarace(d, patched)
            set_section(d, "starve", starve)
            set_section(d, "replace", replace)
        self.set(self.NAMES[0], "waiters", lambda t: t.replace(" busy=0 ", " busy=3000 "))

    def set(self, name, section, fn):
        d = os.path.join(self.dir, name)
        set_section(d, section, fn(get_section(d, section)))

    def judge(self):
        rc, self.out = self.run_judge("--mutants", self.dir, self.control)
        return rc

    def patch(self, name, header):
        """A mutant patch of NAME with HEADER, in a folder of its own."""
        d = os.path.join(self.tmp, "patches")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name + ".patch"), "w") as f:
            f.write(header + "\ndiff --git a/x b/x\n")
        self.patches = {"mutants": d}

    def only(self, name):
        for n in self.NAMES:
            if n != name:
                shutil.rmtree(os.path.join(self.dir, n))

    def test_patch_names_no_check(self):
        self.only(self.NAMES[0])
        self.patch(self.NAMES[0], "Mutant: no header line.\n")
        self.judge()
        self.assertEqual(self.failing(), [f"mutant.{self.NAMES[0]}", "mutants.ran"], self.out)

    def test_named_check_passes_though_not_caught_is_given(self):
        """Not-caught-here with a Caught-by: the named check decides."""
        self.only(self.NAMES[2])
        self.patch(self.NAMES[2], "Caught-by: waiters\nNot-caught-here: x\n")
        self.judge()
        self.assertEqual(self.failing(), [f"mutant.{self.NAMES[2]}"], self.out)

    def test_control_incomplete_with_no_names(self):
        self.only(self.NAMES[1])
        set_section(self.control, "end", None)
        self.judge()
        self.assertEqual(self.failing(), ["mutant-control", "mutants.ran"], self.out)

    def test_named_case_skipped_is_no_catch(self):
        self.set(self.NAMES[2], "kselftest", lambda t: t.replace(
            "# ok 6 global.resize_moves_every_waiter", "# ok 6 global.resize_moves_every_waiter # SKIP x"))
        self.judge()
        self.assertEqual(self.failing(), [f"mutant.{self.NAMES[2]}"], self.out)

    def test_waiters_that_did_not_run_are_no_catch(self):
        self.set(self.NAMES[0], "waiters", lambda t: "error futex_aborted private failed\n"
                 "error futex_aborted shared failed\n")
        self.judge()
        self.assertIn(f"mutant.{self.NAMES[0]}", self.failing(), self.out)
        self.assertIn("its guest completed", self.out)

    def test_precheck_that_did_not_run_is_no_catch(self):
        self.only(self.NAMES[0])
        self.patch(self.NAMES[0], "Caught-by: precheck\n")
        self.set(self.NAMES[0], "precheck", lambda t: t.replace("matched private waits=10000 bucket=10000",
                                                                "matched private waits=10000 bucket=0"))
        self.judge()
        self.assertEqual(self.failing(), [f"mutant.{self.NAMES[0]}"], self.out)

    def test_section_twice_is_no_catch(self):
        d = os.path.join(self.dir, self.NAMES[0])
        secs = fixtures.read_sections(d)
        secs.insert(0, ("waiters", get_section(d, "waiters")))
        fixtures.write_results(d, secs)
        self.judge()
        self.assertIn(f"mutant.{self.NAMES[0]}", self.failing(), self.out)

    def test_a_pass_later_does_not_hide_a_failure(self):
        """A program failing in one section and passing in another fails."""
        set_section(self.control, "kselftest", result(get_section(self.control, "kselftest"), NUMA_RACE))
        self.judge()
        self.assertIn("mutant-control", self.failing(), self.out)

    def hung(self, name, header, console):
        """NAME's guest ended before its end, after CONSOLE; its patch HEADER."""
        self.only(name)
        self.patch(name, header)
        d = os.path.join(self.dir, name)
        set_section(d, "end", None)
        set_section(d, "kselftest", None)
        fixtures.append_file(os.path.join(d, "console.log"), console)
        self.judge()

    STALL = "[ 85.0] rcu: INFO: rcu_sched self-detected stall on CPU\n[ 85.0] Call Trace:\n"

    def test_hung_guest_caught_by_console(self):
        self.hung(self.NAMES[0], "Caught-by: console\n", self.STALL)
        self.assertEqual(self.failing(), [], self.out)
        self.assertIn("is caught by console: [ 85.0] Call Trace: (its guest ended early: no end section", self.out)

    def test_complete_guest_caught_by_console(self):
        self.only(self.NAMES[0])
        self.patch(self.NAMES[0], "Caught-by: console\n")
        fixtures.append_file(os.path.join(self.dir, self.NAMES[0], "console.log"), self.STALL)
        self.judge()
        self.assertEqual(self.failing(), [], self.out)
        self.assertIn("is caught by console: [ 85.0] Call Trace:\n", self.out)

    def test_hung_guest_caught_only_by_console(self):
        self.hung(self.NAMES[0], "Caught-by: waiters\n", self.STALL)
        self.assertEqual(self.failing(), [f"mutant.{self.NAMES[0]}"], self.out)
        self.assertIn("its guest completed", self.out)

    def test_hung_guest_with_a_clean_console(self):
        self.hung(self.NAMES[0], "Caught-by: console\n", "[ 85.0] random: crng init done\n")
        self.assertEqual(self.failing(), [f"mutant.{self.NAMES[0]}"], self.out)

    KASAN_AT_BOOT = "[    0.0036] BUG: KASAN: wild-memory-access in rcu_is_watching+0x21/0x40\n"
    KASAN_IN_FUTEX = "[   31.2] BUG: KASAN: slab-use-after-free in futex_private_hash_put+0x3c/0x80\n"

    def freed_while_held(self):
        """The header of mutant (i), whose report must name a futex function."""
        path = os.path.join(core.Judge().mutants, "i-old-hash-freed-while-held.patch")
        with open(path) as f:
            return "".join(line for line in f if line.startswith(("Caught-by:", "Flavour:")))

    def reported(self, console, hung=False, kasan_control=True):
        """Mutant (i)'s header on NAMES[1], whose console gets CONSOLE; the
        control of its flavour a copy of the plain one's."""
        name = self.NAMES[1]
        if kasan_control:
            shutil.copytree(self.control, self.control + "-kasan")
        if hung:
            self.hung(name, self.freed_while_held(), console)
        else:
            self.only(name)
            self.patch(name, self.freed_while_held())
            fixtures.append_file(os.path.join(self.dir, name, "console.log"), console)
            self.judge()

    def test_report_elsewhere_is_no_catch(self):
        self.reported(self.KASAN_AT_BOOT)
        self.assertEqual(self.failing(), [f"mutant.{self.NAMES[1]}"], self.out)
        self.assertIn("failed instead: console", self.out)

    def test_report_in_futex_code_is_the_catch(self):
        self.reported(self.KASAN_AT_BOOT + self.KASAN_IN_FUTEX)
        self.assertEqual(self.failing(), [], self.out)
        self.assertIn("use-after-free in futex_private_hash_put", self.out)

    def test_lost_waiter_in_step_replace_is_the_catch(self):
        """Mutant (j)'s own report (captures/replace-lost) is a catch by
        check replace; the same mutant with a clean section is not, and a
        control that reports it fails."""
        self.only(self.NAMES[1])
        self.patch(self.NAMES[1], "Mutant: a wake misses a moved bucket.\nCaught-by: replace\n")
        lost = get_section(os.path.join(DATA, "captures", "replace-lost"), "replace")
        self.judge()
        self.assertEqual(self.failing(), [f"mutant.{self.NAMES[1]}"], self.out)
        set_section(os.path.join(self.dir, self.NAMES[1]), "replace", lost)
        self.judge()
        self.assertEqual(self.failing(), [], self.out)
        self.assertIn("is caught by replace: futex_replace exited 1; lost=2; children_failed=7", self.out)
        set_section(self.control, "replace", lost)
        self.judge()
        self.assertEqual(self.failing(), ["mutant-control"], self.out)

    def test_skipped_step_replace_is_no_catch(self):
        self.only(self.NAMES[1])
        self.patch(self.NAMES[1], "Mutant: a wake misses a moved bucket.\nCaught-by: replace\n")
        self.set(self.NAMES[1], "replace", lambda t: "skip: no private futex hash to replace\nrc=0\n")
        self.judge()
        self.assertEqual(self.failing(), [f"mutant.{self.NAMES[1]}"], self.out)

    def test_hung_guest_with_a_report_elsewhere(self):
        self.reported(self.KASAN_AT_BOOT, hung=True)
        self.assertEqual(self.failing(), [f"mutant.{self.NAMES[1]}"], self.out)
        self.assertIn("its guest completed", self.out)

    def test_hung_guest_with_a_report_in_futex_code(self):
        self.reported(self.KASAN_IN_FUTEX, hung=True)
        self.assertEqual(self.failing(), [], self.out)
        self.assertIn("is caught by console:KASAN: ", self.out)

    def test_flavour_control_with_the_named_report(self):
        """The kasan control knows a console:PATTERN check, and fails it;
        the plain control does not judge the kasan mutant's check."""
        self.reported(self.KASAN_IN_FUTEX)
        self.assertEqual(self.failing(), [], self.out)
        fixtures.append_file(os.path.join(self.control + "-kasan", "console.log"), self.KASAN_IN_FUTEX)
        self.judge()
        self.assertEqual(self.failing(), ["mutant-control.kasan"], self.out)
        self.assertIn("console:KASAN: .*use-after-free in _*futex: [   31.2] BUG", self.out)
        self.assertIn("ok mutant control: the unmutated kernel completes", self.out)

    def test_flavour_control_missing(self):
        self.reported(self.KASAN_IN_FUTEX, kasan_control=False)
        self.assertEqual(self.failing(), ["mutant-control.kasan"], self.out)
        self.assertIn("no control run", self.out)

    def test_flavour_control_incomplete(self):
        self.reported(self.KASAN_IN_FUTEX)
        set_section(self.control + "-kasan", "end", None)
        self.judge()
        self.assertEqual(self.failing(), ["mutant-control.kasan"], self.out)

    def test_plain_control_names_every_check(self):
        """A typo in a flavour mutant's check fails the plain control too."""
        self.only(self.NAMES[1])
        self.patch(self.NAMES[1], "Flavour: kasan\nCaught-by: waiterz\n")
        shutil.copytree(self.control, self.control + "-kasan")
        self.judge()
        self.assertEqual(self.failing(), ["mutant-control", "mutant-control.kasan",
                                          f"mutant.{self.NAMES[1]}"], self.out)

    def test_mutant_without_a_patch(self):
        shutil.copytree(self.control, os.path.join(self.dir, "0-no-such-mutant"))
        self.judge()
        self.assertEqual(self.failing(), ["mutant.0-no-such-mutant", f"mutant.{self.NAMES[2]}"], self.out)

    def test_only_mutants_that_cannot_be_caught(self):
        self.only(self.NAMES[1])
        self.judge()
        self.assertEqual(self.failing(), ["mutants.ran"], self.out)

    def test_caught_survives_and_missed(self):
        self.assertEqual(self.judge(), 1)
        self.assertEqual(self.failing(), [f"mutant.{self.NAMES[2]}"], self.out)
        self.assertIn(f"ok mutant {self.NAMES[0]} is caught by waiters: 3000 of 3000 wakes saw", self.out)
        self.assertIn(f"ok mutant {self.NAMES[1]} survives # SKIP not caught here", self.out)
        self.assertEqual(set(self.j.results), {"mutants.ran", "mutant-control", "judge.plan"}
                         | {f"mutant.{n}" for n in self.NAMES})

    def test_caught_by_the_named_case(self):
        self.set(self.NAMES[2], "kselftest", lambda t: t.replace(
            "# ok 6 global.resize_moves_every_waiter", "# not ok 6 global.resize_moves_every_waiter"))
        self.assertEqual(self.judge(), 0, self.out)

    def test_control_names_an_unknown_check(self):
        set_section(self.control, "kselftest", get_section(self.control, "kselftest").replace(
            "global.resize_moves_every_waiter", "global.resize_moves_every_waiterx"))
        self.judge()
        self.assertIn("mutant-control", self.failing(), self.out)
        self.assertIn("not reported", self.out)

    def test_header(self):
        patches = core.Judge().mutants
        h = mutants.mutant_header(os.path.join(patches, "h-pivot-skips-odd-buckets.patch"))
        self.assertEqual(h["caught_by"], ["kselftest:futex_hash_resize:global.resize_loses_no_wakeup",
                                          "kselftest:futex_hash_resize:global.resize_moves_every_waiter"])
        self.assertIsNone(h["not_caught"])
        self.assertIsNone(h["flavour"])
        h = mutants.mutant_header(os.path.join(patches, "i-old-hash-freed-while-held.patch"))
        self.assertEqual(h["flavour"], "kasan")
        for name in os.listdir(patches):
            h = mutants.mutant_header(os.path.join(patches, name))
            self.assertTrue(h["caught_by"] or h["not_caught"], name)
            for c in h["caught_by"]:
                if c.startswith("console:"):
                    re.compile(c[len("console:"):])


class PerGuest(Judge):
    """make soak, make sanitize and make boots."""

    def copy(self, name, source="patched"):
        d = os.path.join(self.tmp, name)
        shutil.copytree(os.path.join(DATA, "pass", source), d)
        return d

    def soak_guest(self):
        """make check's patched guest, which runs the soak, with the replace
        section of captures/replace, as make soak's guests have."""
        d = self.copy("soak")
        set_section(d, "replace", get_section(os.path.join(DATA, "captures", "replace"), "replace"))
        return d

    def test_soak(self):
        d = self.soak_guest()
        rc, out = self.run_judge("--soak", d)
        self.assertEqual((rc, self.failing()), (0, []), out)
        self.assertEqual(set(self.j.results), {"soak.failfutex", "soak.soak", "soak.replace", "judge.plan"})
        set_section(d, "soak", get_section(d, "soak").replace("perf lock-pi runs=1 rc=0", ""))
        rc, out = self.run_judge("--soak", d)
        self.assertEqual((rc, self.failing()), (1, ["soak.soak"]), out)

    def test_replace_lost_waiters(self):
        d = self.soak_guest()
        set_section(d, "replace", get_section(os.path.join(DATA, "captures", "replace-lost"), "replace"))
        rc, out = self.run_judge("--soak", d)
        self.assertEqual((rc, self.failing()), (1, ["soak.replace"]), out)
        self.assertIn("lost: wake lane 0: thread 158 asleep", out)

    def test_replace_each_count(self):
        """Each count that must be 0 fails the check alone, whatever the exit
        status says; so do an exit status alone, no replacement, no summary
        line, a skip and no section."""
        d = self.soak_guest()
        clean = get_section(d, "replace")
        edits = [("lost=0 ", "lost=1 "), ("exclusion=0 ", "exclusion=3 "),
                 ("children_failed=0 ", "children_failed=1 "), ("errors=0", "errors=2"),
                 ("rc=0", "rc=1"), ("replacements=200 ", "replacements=0 "),
                 ("replacements=200 ", "replacement=200 ")]
        for old, new in edits:
            set_section(d, "replace", clean.replace(old, new))
            self.run_judge("--soak", d)
            self.assertEqual(self.failing(), ["soak.replace"], new)
        for text in ("skip: no private futex hash to replace\nrc=0\n", None):
            set_section(d, "replace", text)
            self.run_judge("--soak", d)
            self.assertEqual(self.failing(), ["soak.replace"], text)

    def test_sanitize(self):
        d = self.copy("kasan")
        rc, out = self.run_judge("--sanitize", d)
        self.assertEqual((rc, self.failing()), (0, []), out)
        self.assertEqual(set(self.j.results), {"kasan.kselftest", "kasan.badinput", "kasan.console",
                                                 "judge.plan"})
        set_section(d, "kselftest", get_section(d, "kselftest").replace(
            "\nok 1 selftests: futex/functional: futex_wait\n", "\nnot ok 1 selftests: futex/functional: futex_wait\n", 1))
        set_section(d, "badinput", get_section(d, "badinput").replace("total 300", "total 301"))
        fixtures.append_file(os.path.join(d, "console.log"), "[ 1.0] BUG: KASAN: use-after-free in futex_wake\n")
        rc, out = self.run_judge("--sanitize", d)
        self.assertEqual((rc, self.failing()), (1, ["kasan.badinput", "kasan.console", "kasan.kselftest"]), out)

    def test_sanitize_missing_sections(self):
        d = self.copy("kasan")
        for name in ("kselftest", "badinput"):
            set_section(d, name, None)
        self.run_judge("--sanitize", d)
        self.assertEqual(self.failing(), ["kasan.badinput", "kasan.kselftest"])

    def test_sanitize_nothing_passed_and_errors(self):
        d = self.copy("kasan")
        set_section(d, "plan kselftest", "")
        set_section(d, "kselftest", "TAP version 13\n1..0\n")
        set_section(d, "badinput", get_section(d, "badinput") + "error futex_badinput crashed\n")
        self.run_judge("--sanitize", d)
        self.assertEqual(self.failing(), ["kasan.badinput", "kasan.kselftest"])
        for text in ("", "total 0\n"):
            set_section(d, "badinput", text)
            self.run_judge("--sanitize", d)
            self.assertEqual(self.failing(), ["kasan.badinput", "kasan.kselftest"])

    def test_needs_and_scenarios(self):
        """The rule's file and configs/scenarios, short lines left out."""
        path = os.path.join(self.tmp, "needs")
        with open(path, "w") as f:
            f.write("# PROGRAM CPUS NODES\nfutex_x 4\nfutex_y 4 2\n")
        self.assertEqual(kselftest.read_needs(path), {"futex_y": (4, 2)})
        self.assertEqual(kselftest.too_small("futex_y", 4, 1, {"futex_y": (4, 2)}), "needs 2 NUMA nodes, 1 online")
        self.assertEqual(kselftest.too_small("futex_y", 3, 2, {"futex_y": (4, 2)}), "needs 4 CPUs, 3 online")
        self.assertIsNone(kselftest.too_small("futex_y", 4, 2, {"futex_y": (4, 2)}))
        with open(path, "w") as f:
            f.write("mutant x\nmutant * VCPUS TOPOLOGY quick,waiters -\n")
        self.assertEqual(mutants.scenario_steps("mutant", path), ["quick", "waiters"])
        self.assertEqual(mutants.scenario_steps("mutant"), ["quick", "starve", "numarace", "precheck", "waiters",
                                                              "replace"])

    def test_sanitize_or_soak_guest_did_not_finish(self):
        for mode, key in (("--sanitize", "kasan.kselftest"), ("--soak", "kasan.soak")):
            d = self.copy("kasan")
            set_section(d, "end", None)
            self.run_judge(mode, d)
            self.assertIn(key, self.failing())
            shutil.rmtree(d)

    def test_sanitize_case_fails(self):
        d = self.copy("kasan")
        set_section(d, "kselftest", get_section(d, "kselftest").replace("# ok 1 global.futex_wait_wouldblock",
                                                                        "# not ok 1 global.futex_wait_wouldblock"))
        self.run_judge("--sanitize", d)
        self.assertEqual(self.failing(), ["kasan.kselftest"])

    def test_boots_program_missing(self):
        d = self.boots(None)
        k = os.path.join(d, "patched-1")
        set_section(k, "kselftest", get_section(k, "kselftest").replace(block(get_section(k, "kselftest"), "futex_wait"), ""))
        self.run_judge("--boots", d)
        self.assertEqual(self.failing(), ["patched.boots.first", "patched.boots.hung", "patched.boots.reported"])

    def test_boots_first_run_case_fails(self):
        d = self.boots(None)
        k = os.path.join(d, "patched-1")
        set_section(k, "firstrun", re.sub(r"^# ok 1 ", "# not ok 1 ", get_section(k, "firstrun"), count=1, flags=re.M))
        self.run_judge("--boots", d)
        self.assertEqual(self.failing(), ["patched.boots.first"])

    def test_sanitize_plan(self):
        d = self.copy("kcsan")
        set_section(d, "plan kselftest", get_section(d, "plan kselftest").replace("futex_wait\n", ""))
        self.run_judge("--sanitize", d)
        self.assertEqual(self.failing(), ["kcsan.kselftest"])

    def boots(self, first):
        boots = os.path.join(self.tmp, "boots")
        for name, fr in (("base-1", None), ("patched-1", first)):
            d = os.path.join(boots, name)
            shutil.copytree(os.path.join(DATA, "pass", name.split("-")[0]), d)
            set_section(d, "plan firstrun", "futex_numa_mpol\n")
            set_section(d, "firstrun", fr or "TAP version 13\n1..1\n" +
                        block(get_section(d, "kselftest"), "futex_numa_mpol"))
        return boots

    def test_boots_count_a_first_run_that_hangs(self):
        with open(os.path.join(DATA, "captures", "numa_mpol_timeout")) as f:
            hang = "TAP version 13\n1..1\n" + f.read()
        rc, out = self.run_judge("--boots", self.boots(hang))
        self.assertEqual(rc, 1)
        self.assertEqual(self.failing(), ["patched.boots.first"], out)
        self.assertEqual(len(self.j.results), 7)

    def test_boots_hung_and_incomplete(self):
        d = self.boots(None)
        k = os.path.join(d, "patched-1")
        set_section(k, "kselftest", get_section(k, "kselftest").replace(
            "\nok 1 selftests: futex/functional: futex_wait\n",
            "\nnot ok 1 selftests: futex/functional: futex_wait # TIMEOUT 300 seconds\n", 1))
        set_section(os.path.join(d, "base-1"), "end", None)
        self.run_judge("--boots", d)
        self.assertEqual(self.failing(), ["base.boots.first", "base.boots.hung", "base.boots.reported",
                                          "patched.boots.hung"])

    def test_boots_base_may_hang_in_the_replacement_tests(self):
        """A replacement test stopped for its time is the bug the series
        fixes on base, and a hang on patched; any other program is a hang
        on both."""
        for kernel, prog, failing in (("base", "futex_hash_resize", []),
                                      ("patched", "futex_hash_resize", ["patched.boots.hung"]),
                                      ("base", "futex_wait", ["base.boots.hung"])):
            with self.subTest(kernel=kernel, prog=prog):
                shutil.rmtree(os.path.join(self.tmp, "boots"), ignore_errors=True)
                d = self.boots(None)
                k = os.path.join(d, f"{kernel}-1")
                tap = get_section(k, "kselftest")
                # kselftest_harness's own timeout of a test case.
                case = block(tap, prog)
                set_section(k, "kselftest", tap.replace(case, case.replace(
                    f"# selftests: futex/functional: {prog}\n",
                    f"# selftests: futex/functional: {prog}\n# # x: Test terminated by timeout\n", 1)))
                self.run_judge("--boots", d)
                self.assertEqual(self.failing(), failing)


class Native(unittest.TestCase):
    """make check's two native runs and their comparison, synthetic."""

    TAP = ("TAP version 13\n1..1\n# selftests: futex/functional: futex_wait_wouldblock\n"
           "ok 1 selftests: futex/functional: futex_wait_wouldblock\n")

    @classmethod
    def setUpClass(cls):
        cls.template = os.path.join(check_template(), "check")

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        for name in series.NATIVE_RUNS + ("native-compare",):
            shutil.copytree(os.path.join(self.template, name), os.path.join(self.tmp, name),
                            copy_function=os.link)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def native(self, i):
        return os.path.join(self.tmp, f"native-{i}")

    def compare(self):
        with contextlib.redirect_stdout(io.StringIO()):
            compare.main(["compare.py", self.native(1), self.native(2),
                          "-o", os.path.join(self.tmp, "native-compare")])

    def failing(self, release=RELEASE):
        j = core.Judge(release=release)
        with contextlib.redirect_stdout(io.StringIO()):
            series.check_native(j, self.tmp)
        self.assertEqual(j.given, core.planned(series.check_native))
        return sorted(k for k, ok in j.results.items() if not ok)

    def drop(self, i, name):
        """Remove native-I's bench runs of NAME."""
        d = self.native(i)
        fixtures.write_results(d, [x for x in fixtures.read_sections(d)
                                   if not (x[0] == "bench" and f"name={name} " in x[1])])

    def test_pass(self):
        self.assertEqual(self.failing(), [])

    def test_missing_program_needs_a_reason(self):
        self.drop(2, "pi_stress")
        self.assertEqual(self.failing(), ["native-2.recorded"])
        set_section(self.native(2), "skip", "block: sysbench not installed\n")
        self.assertEqual(self.failing(), ["native-2.recorded"])
        set_section(self.native(2), "skip", "block: pi_stress not installed\n")
        self.assertEqual(self.failing(), [])

    def test_missing_group_and_kselftest(self):
        d = self.native(1)
        fixtures.write_results(d, [x for x in fixtures.read_sections(d)
                                   if not (x[0] == "bench" and "group=hash " in x[1])])
        self.assertEqual(self.failing(), ["native-1.recorded"])
        set_section(self.native(1), "skip", "hash: /bin/perf not installed\n")
        self.assertEqual(self.failing(), [])
        set_section(self.native(2), "kselftest", "")
        self.assertEqual(self.failing(), ["native-2.recorded"])
        set_section(self.native(2), "skip", "kselftest: no runner\n")
        self.assertEqual(self.failing(), [])

    def test_machine_of_another_runner_or_no_cpus(self):
        d = self.native(1)
        set_section(d, "machine", get_section(d, "machine").replace("runner: native", "runner: qemu"))
        d = self.native(2)
        set_section(d, "machine", re.sub(r"^cpus: \d+\n", "", get_section(d, "machine"), flags=re.M))
        self.assertEqual(self.failing(), ["native-1.end", "native-2.end"])

    def test_other_release(self):
        self.assertEqual(self.failing("6.1.0"), ["native-1.end", "native-2.end"])

    def test_not_native_or_no_end(self):
        set_section(self.native(1), "end", None)
        fixtures.replace_file(os.path.join(self.native(2), "accel"), "tcg\n")
        self.assertEqual(self.failing(), ["native-1.end", "native-2.end"])

    def test_native_run_needs_no_console(self):
        kn = core.Judge().read(self.native(1))
        self.assertEqual(core.guest_problems(kn), [])
        self.assertFalse(kn.console_booted)

    def test_missing_run_and_summary(self):
        shutil.rmtree(self.native(2))
        os.remove(os.path.join(self.tmp, "native-compare", "summary.tsv"))
        self.assertEqual(self.failing(), ["native-2.end", "native-2.recorded", "native.compare"])


class CommandLine(unittest.TestCase):
    """bin/verdicts.py's arguments: a mode with the wrong number of folders
    is one error line and exit status 2, before anything is judged."""

    def usage(self, *argv):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as e:
            verdicts.main(["verdicts.py", *argv])
        return e.exception.code, err.getvalue()

    def test_folders_per_mode(self):
        for argv, what in ((("--boots", "a", "b"), "--boots takes DIR, not 2 folders"),
                           (("--mutants", "a"), "--mutants takes DIR CONTROL, not 1 folders"),
                           (("a", "b", "c"), "make check takes CHECK_DIR [TREE], not 3 folders"),
                           ((), "required: DIR"), (("--soak", "--boots", "a"), "not allowed with")):
            code, err = self.usage(*argv)
            self.assertEqual(code, 2, argv)
            self.assertEqual(err.count("\n"), 1, err)
            self.assertIn(what, err)
            self.assertTrue(err.startswith("error: verdicts: "), err)


if __name__ == "__main__":
    unittest.main()
