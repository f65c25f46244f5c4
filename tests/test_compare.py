# SPDX-License-Identifier: GPL-2.0
"""Unit tests of bin/compare.py's parsers and arithmetic."""

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bin"))
import compare  # noqa: E402

KSELFTEST = """\
TAP version 13
1..3
# timeout set to 300
# selftests: futex/functional: futex_wait_wouldblock
# TAP version 13
# 1..2
# #  RUN           global.futex_wait_wouldblock ...
# #            OK  global.futex_wait_wouldblock
# ok 1 global.futex_wait_wouldblock
# not ok 2 global.futex_wait_null_efault
# # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0
not ok 1 selftests: futex/functional: futex_wait_wouldblock # exit=1
# timeout set to 300
# selftests: futex/functional: futex_priv_hash
# ok 1 global.priv_hash # SKIP Needs more than 16 CPUs
ok 2 selftests: futex/functional: futex_priv_hash # SKIP
# timeout set to 300
# selftests: futex/functional: futex_requeue_pi
#
not ok 3 selftests: futex/functional: futex_requeue_pi # TIMEOUT 300 seconds
"""

PERF = """\
# Running 'futex/hash' benchmark:
Run summary [PID 93]: 8 threads, each operating on 1024 [private] futexes for 5 secs.

Averaged 311204 operations/sec (+- 0.61%), total secs = 5
"""


class ParseKselftest(unittest.TestCase):
    def setUp(self):
        self.ks = compare.parse_kselftest(KSELFTEST)

    def test_programs(self):
        self.assertEqual(self.ks.programs, {"pass": 0, "fail": 2, "skip": 1})

    def test_subtests(self):
        self.assertEqual(self.ks.subtests, {"pass": 1, "fail": 1, "skip": 1})

    def test_results_are_named_by_program(self):
        self.assertEqual(self.ks.results["futex_wait_wouldblock:global.futex_wait_null_efault"],
                         "fail")
        self.assertEqual(self.ks.results["futex_priv_hash:global.priv_hash"], "skip")

    def test_timeout_counts_as_failure(self):
        self.assertIn("futex_requeue_pi # TIMEOUT 300 seconds", self.ks.failed)
        self.assertIn("futex_requeue_pi", self.ks.timeouts)

    def test_test_case_timeout_is_a_timeout(self):
        with open(os.path.join(os.path.dirname(__file__), "data", "verdicts", "captures",
                               "numa_mpol_timeout")) as f:
            ks = compare.parse_kselftest(f.read())
        self.assertEqual(ks.timeouts, ["futex_numa_mpol"])
        self.assertEqual(self.ks.timeouts, ["futex_requeue_pi"])


class ParseOther(unittest.TestCase):
    def test_badinput(self):
        base = compare.parse_badinput("0 futex(WAIT, NULL, match, timeout=none) -> -1 EFAULT\n"
                                      "1 futex(WAKE, valid, match, timeout=none) -> 0 -\n"
                                      "total 2\n")
        self.assertEqual(base["total"], 2)
        self.assertEqual(base["calls"]["futex(WAKE, valid, match, timeout=none)"], "0 -")
        patched = compare.parse_badinput("0 futex(WAIT, NULL, match, timeout=none) -> -1 EINVAL\n"
                                         "total 1\nerror futex_badinput failed or timed out\n")
        self.assertEqual(patched["errors"], ["futex_badinput failed or timed out"])
        self.assertEqual(compare.badinput_diff(base, patched), [
            ("futex(WAIT, NULL, match, timeout=none)", "-1 EFAULT", "-1 EINVAL"),
            ("futex(WAKE, valid, match, timeout=none)", "0 -", "missing")])

    def test_failfutex(self):
        f = compare.parse_failfutex(
            "badinput rc=0\nstress-ng rc=2 ops=41234\ntimeout futex_requeue\nprograms 6 of 6\n"
            "# took futex_wait 2 s\nsites ret=0 4608\nsites ret=1 512\n")
        self.assertEqual(f, {"faults": 512, "calls": 5120, "programs": 6, "listed": 6,
                             "timeouts": ["futex_requeue"], "badinput_rc": 0, "stress_rc": 2,
                             "stress_ops": 41234, "errors": []})

    def test_perf_buckets(self):
        self.assertEqual(compare.parse_perf_buckets("Futex hashing: auto resized to 32 buckets\n"), 32)
        self.assertEqual(compare.parse_perf_buckets("Futex hashing: global hash\n"), 0)
        ramp = ("  0.000 s: global hash\n  0.003 s: 16 hash buckets\n"
                "Futex hashing: auto resized to 32 buckets\n")
        self.assertEqual(compare.parse_perf_buckets(ramp), 16)

    def test_perf(self):
        self.assertEqual(compare.parse_perf(PERF), 311204)
        self.assertIsNone(compare.parse_perf("perf: command failed\n"))

    def test_precheck(self):
        self.assertEqual(compare.parse_precheck("private waits=10 bucket=10\nshared waits=10 bucket=0\n"),
                         {"private": (10, 10), "shared": (10, 0)})

    def test_waiters(self):
        text = ("private aborted=6 wakes=3 busy=0 woken=1 waiter_busy=1\n"
                "error futex_aborted shared failed\n"
                "futex_aborted: wake: Bad address\n")
        self.assertEqual(compare.parse_waiters(text), {
            "private": {"aborted": 6, "wakes": 3, "busy": 0, "woken": 1, "waiter_busy": 1},
            "error": ["error futex_aborted shared failed"]})

    def test_resize(self):
        text = ("# # auto resize to 32 slots: 64 threads, 8 CPUs, done after 0.012 s, "
                "grace period 0.089 s\n"
                "# # set slots to 256: 64 threads, 8 CPUs, not done after 15.000 s, "
                "grace period 0.031 s\n")
        auto, setslots = compare.parse_resize(text)
        self.assertEqual(auto, {"test": "auto", "slots": 32, "threads": 64, "cpus": 8,
                                "done": True, "seconds": 0.012, "gp": 0.089})
        self.assertFalse(setslots["done"])
        self.assertEqual(setslots["seconds"], 15.0)

    def test_resizebench(self):
        text = ("mode=ramp threads=16 cpus=8 slots=32 done=0 seconds=10.0000 ops_per_s=500\n"
                "refstate state=0 hits=10\nrefstate state=1 hits=990\n")
        r = compare.parse_resizebench(text)
        self.assertEqual(r["runs"][0]["done"], False)
        self.assertEqual(r["refstate"], {0: 10, 1: 990})
        self.assertEqual(compare._share(r["refstate"]), "99.00% of 1,000")


class Arithmetic(unittest.TestCase):
    def test_ratio_of_medians(self):
        r, s = compare.ratio([100, 100, 100], [250, 250, 250])
        self.assertAlmostEqual(r, 2.5)
        self.assertEqual(s, 0.0)

    def test_spread_combines_both_sides(self):
        _, s = compare.ratio([90, 100, 110], [180, 200, 220])
        self.assertAlmostEqual(s, 2 ** 0.5 * 0.1)


class Summary(unittest.TestCase):
    def test_end_to_end(self):
        with tempfile.TemporaryDirectory() as run:
            for name, ops in (("base", 100), ("patched", 260)):
                d = os.path.join(run, name)
                os.makedirs(d)
                for i in (1, 2):
                    with open(os.path.join(d, f"perf_hash_-b_2_#{i}"), "w") as f:
                        f.write(PERF.replace("311204", str(ops + i)))
                with open(os.path.join(d, "kselftest"), "w") as f:
                    f.write(KSELFTEST)
                with open(os.path.join(d, "accel"), "w") as f:
                    f.write("tcg (KVM unusable: base printed nothing within 30s under KVM)\n"
                            if name == "base" else "tcg\n")
                with open(os.path.join(d, "waiters"), "w") as f:
                    f.write("shared aborted=7 wakes=3 busy=0 woken=1 waiter_busy=2\n")
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(compare.main(["compare.py", run]), 0)
            s = compare.summarize(run)
            self.assertAlmostEqual(s["perf"]["-b 2"]["ratio"], 261.5 / 101.5)
            self.assertEqual(s["waiters"]["patched"]["shared"]["busy"], 0)
            for out in ("summary.json", "summary.tsv", "summary.md"):
                self.assertTrue(os.path.exists(os.path.join(run, out)))
            # Which accelerator each guest ran under, also after a rerun.
            self.assertEqual(s["kselftest"]["patched"]["accel"], "tcg")
            with open(os.path.join(run, "summary.md")) as f:
                md = f.read()
            self.assertIn("| accelerator, ? | tcg | tcg |", md)
            self.assertIn("accelerator: base tcg (KVM unusable: base printed nothing "
                          "within 30s under KVM); patched tcg\n", md)
            with open(os.path.join(run, "summary.tsv")) as f:
                self.assertIn("accelerator\tbase/patched\ttcg (KVM unusable", f.read())
            self.assertNotIn("different accelerators", "\n".join(compare.table(s)))
            s["kernels"]["patched"]["accel"] = "kvm"
            self.assertIn("different accelerators", "\n".join(compare.table(s)))


if __name__ == "__main__":
    unittest.main()
