# SPDX-License-Identifier: GPL-2.0
"""Unit tests of bin/compare_kernels.py's arithmetic and rows, and of
bin/compare.py's command line, on a synthetic QEMU pair and native folder."""

import contextlib
import io
import math
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixtures  # noqa: E402
import compare  # noqa: E402
import compare_kernels  # noqa: E402
import parse_results  # noqa: E402

SKIP = "precheck: no kprobe on futex_q_lock (tracefs not mounted)"


def runs(values, failure=None):
    """One kernel's bench runs of one row, ops/s (higher is better)."""
    return [parse_results.Bench("block", "perf-wake", 0, 0, None, "perf bench futex wake", "perf wake", 0, v,
                                "ops/s", True, failure=failure) for v in values]


def row(base, patched, failure=None):
    """A block row of BASE's and PATCHED's values, with its verdict."""
    r = compare_kernels.metric_row({"base": runs(base), "patched": runs(patched, failure)},
                                   {"base": None, "patched": None})
    r["verdict"] = compare_kernels.verdict(r)
    return r


# The case, QEMU TCG: spreads of 67 % and 74 %, patched 40 % slower
# (its median 0.6 of base's), 5 runs each.
TCG_BASE = [100, 45, 260, 70, 180]
TCG_PATCHED = [30, 114, 48, 192, 60]
# A kselftest run, one program failed.
KSELFTEST = ("ok 1 selftests: futex/functional: futex_wait\n"
             "not ok 2 selftests: futex/functional: futex_requeue_pi # exit=1\n")


class Arithmetic(unittest.TestCase):
    def test_ratio_of_medians(self):
        self.assertEqual(compare_kernels.ratio([100, 100, 100], [250, 250, 250]), (2.5, 2.5, 2.5))

    def test_lower_is_better_is_base_over_patched(self):
        r, lo, hi = compare_kernels.ratio([0.4, 0.4], [0.2, 0.2], higher=False)
        self.assertAlmostEqual(r, 2.0)
        self.assertAlmostEqual(lo, 2.0)

    def test_interval_holds_the_ratio_and_widens_with_the_spread(self):
        r, lo, hi = compare_kernels.ratio([90, 100, 110, 95, 105], [180, 200, 220, 190, 210])
        self.assertEqual(r, 2.0)
        self.assertTrue(1.6 < lo < 2.0 < hi < 2.5, (lo, hi))
        _, wlo, whi = compare_kernels.ratio([50, 100, 150, 75, 125], [100, 200, 300, 150, 250])
        self.assertLess(wlo, lo)
        self.assertGreater(whi, hi)

    def test_interval_is_reproducible(self):
        """The same runs give the same interval, call after call (SEED)."""
        first = compare_kernels.interval(TCG_BASE, TCG_PATCHED)
        self.assertEqual(compare_kernels.interval(TCG_BASE, TCG_PATCHED), first)
        self.assertEqual(row(TCG_BASE, TCG_PATCHED)["ratio_lo"], first[0])
        self.assertLess(first[0], first[1])


class Verdict(unittest.TestCase):
    """verdict() of block rows built from runs."""

    def test_slower_with_a_tight_spread(self):
        r = row([100, 101, 99, 100, 102], [70.7, 70, 69.3, 71.4, 70])
        self.assertLess(r["ratio_hi"], compare_kernels.GOAL)
        self.assertEqual(r["verdict"], compare_kernels.SLOWER)

    def test_wide_spread_across_the_goal_is_not_resolved(self):
        r = row([100, 60, 150, 80, 130], [95, 140, 55, 120, 75])
        self.assertLess(r["ratio_lo"], compare_kernels.GOAL)
        self.assertGreaterEqual(r["ratio_hi"], compare_kernels.GOAL)
        self.assertEqual(r["verdict"], compare_kernels.NOT_RESOLVED)

    def test_equal_kernels_are_ok(self):
        values = [100, 101, 99, 100, 102]
        r = row(values, values)
        self.assertEqual((r["ratio"], r["verdict"]), (1.0, compare_kernels.OK))

    def test_goal_itself_is_ok(self):
        self.assertEqual(row([100, 100], [98, 98])["verdict"], compare_kernels.OK)

    def test_tcg_slowdown_is_not_ok(self):
        """The issue's case: the old rule (ratio times one plus the RSDs
        combined) passed it; the interval does not."""
        r = row(TCG_BASE, TCG_PATCHED)
        old = r["ratio"] * (1 + math.hypot(r["base"]["rsd"], r["patched"]["rsd"]))
        self.assertGreaterEqual(old, compare_kernels.GOAL)
        self.assertAlmostEqual(r["ratio"], 0.6)
        self.assertIn(r["verdict"], (compare_kernels.SLOWER, compare_kernels.NOT_RESOLVED))

    def test_failed_run_fails_a_faster_row(self):
        r = row([100, 100, 100], [150, 150, None])
        self.assertEqual(r["verdict"], compare_kernels.FAILED)
        self.assertEqual(row([100, 100], [150, 150], failure="rc 2")["verdict"], compare_kernels.FAILED)

    def test_single_run_cannot_be_resolved(self):
        """One run a kernel: the interval is the point, however far below."""
        r = row([100], [50])
        self.assertEqual((r["ratio_lo"], r["ratio_hi"]), (0.5, 0.5))
        self.assertEqual(r["verdict"], compare_kernels.NOT_RESOLVED)
        self.assertEqual(row([100, 100], [50])["verdict"], compare_kernels.NOT_RESOLVED)

    def test_skipped_kernel_is_not_run(self):
        r = compare_kernels.metric_row({"base": runs([100, 100]), "patched": []},
                                       {"base": None, "patched": "sysbench not installed"})
        self.assertEqual(compare_kernels.verdict(r), compare_kernels.NOT_RUN)


class Pair(unittest.TestCase):
    """A synthetic QEMU pair, patched 10% faster; base skipped a step."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.run_dir = os.path.join(self.tmp, "run")
        fixtures.synthetic_kernel(os.path.join(self.run_dir, "base"), 1.0, skip=SKIP)
        fixtures.synthetic_kernel(os.path.join(self.run_dir, "patched"), 1.1)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def summary(self):
        return compare_kernels.summarize({n: parse_results.read_kernel(os.path.join(self.run_dir, n))
                                          for n in compare_kernels.KERNELS})

    def main(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = compare.main(["compare.py", *argv])
        return rc, out.getvalue(), err.getvalue()

    def test_every_block_row_has_patched_not_slower(self):
        s = self.summary()
        self.assertEqual(set(s["block"]), set(fixtures.BLOCK))
        for name, r in s["block"].items():
            self.assertAlmostEqual(r["ratio"], 1.1, places=2, msg=name)
            self.assertTrue(r["ratio_lo"] <= r["ratio"] <= r["ratio_hi"], name)
            self.assertEqual(r["verdict"], compare_kernels.OK, name)

    def test_below_goal_and_pi_stress_failure(self):
        """Patched 10% slower, runs 1% apart: every row is slower; a
        pi_stress run that reports a failure fails its row even where it
        is faster."""
        fixtures.synthetic_kernel(os.path.join(self.run_dir, "patched"), 0.9)
        d = os.path.join(self.run_dir, "base")
        fixtures.write_results(d, [x for x in fixtures.read_sections(d)
                                   if not (x[0] == "bench" and "name=pi_stress " in x[1])]
                               + [fixtures.bench("block", "pi_stress", 1, 1, "-", "pi_stress --quiet",
                                                 "Total inversion performed: 9\n", rc=2)])
        s = self.summary()
        self.assertTrue(s["block"]["perf-wake"]["base"]["runs"])
        for name in ("perf-wake", "sysbench-mutex", "perf-lock-pi"):
            self.assertLess(s["block"][name]["ratio_hi"], 0.95, name)
            self.assertEqual(s["block"][name]["verdict"], compare_kernels.SLOWER, name)
        self.assertEqual(s["block"]["pi_stress"]["base"]["failures"], ["rc 2"])
        self.assertEqual(s["block"]["pi_stress"]["verdict"], compare_kernels.FAILED)

    def test_thirty_percent_slower_is_slower(self):
        fixtures.synthetic_kernel(os.path.join(self.run_dir, "patched"), 0.7)
        for name, r in self.summary()["block"].items():
            self.assertAlmostEqual(r["ratio"], 0.7, places=2, msg=name)
            self.assertEqual(r["verdict"], compare_kernels.SLOWER, name)

    def test_killed_run_fails_the_goal(self):
        """A blocking-path run killed for its time (a lost wakeup) fails its
        row, however fast the other runs were, and names its evidence."""
        d = os.path.join(self.run_dir, "patched")
        fixtures.write_results(d, fixtures.read_sections(d)[:-2] + [
            fixtures.bench("block", "perf-wake", 3, 3, "-", "perf bench futex wake", "", rc=124),
            ("evidence block perf-wake", "pid 42 futex_wait\n")] + fixtures.read_sections(d)[-2:])
        row = self.summary()["block"]["perf-wake"]
        self.assertEqual((row["patched"]["failed"], row["patched"]["bad"]), (1, 1))
        self.assertEqual(row["patched"]["evidence"], ["evidence block perf-wake"])
        self.assertEqual(row["verdict"], compare_kernels.FAILED)

    def test_skip_reason_names_the_rows_program(self):
        kn = parse_results.Guest(skips=[parse_results.Skip("block", "sysbench not installed"),
                                        parse_results.Skip("block", "pi_stress not installed")])
        self.assertEqual(compare_kernels.skip_reason(kn, ("block",), "pi_stress"), "pi_stress not installed")
        self.assertIsNone(compare_kernels.skip_reason(kn, ("block",), "perf"))

    def test_missing_benchmark_without_a_reason_fails(self):
        """A program whose runs are missing on one kernel with no skip that
        names it is no "not run": the row fails its goal."""
        d = os.path.join(self.run_dir, "patched")
        fixtures.write_results(d, [x for x in fixtures.read_sections(d)
                                   if not (x[0] == "bench" and "name=perf-wake " in x[1])]
                               + [("skip", "block: pi_stress not installed\n")])
        row = self.summary()["block"]["perf-wake"]
        self.assertEqual(row["not_run"], {})
        self.assertEqual(row["verdict"], compare_kernels.FAILED)

    def test_scale_and_replacement_rows(self):
        s = self.summary()
        self.assertEqual(list(s["scale"]["wake"]), [1, 2, 4])
        row = s["scale"]["wake"][4]
        self.assertEqual((row["base"]["min"], row["base"]["max"]), (4000, 4040))
        rows = s["replacement"][0]["rows"]
        self.assertEqual([r["threads"] for r in rows], [16, 64, 256])
        self.assertEqual(rows[1]["base"], {"seconds": 15.0, "done": False})

    def test_skips_and_machine(self):
        s = self.summary()
        self.assertEqual(s["skipped"], [{"kernel": "base", "step": "precheck",
                                         "reason": "no kprobe on futex_q_lock (tracefs not mounted)"}])
        self.assertEqual(s["kernels"]["patched"]["machine"]["nodes"], 6)

    def test_waiters_counts_only(self):
        """The summary's waiters part holds each kernel's counts per kind,
        plain; a kernel whose step counted nothing is not in it."""
        counts = parse_results.parse_waiters("private rounds=1 aborted=6 wakes=3 busy=0 woken=1 waiter_busy=1\n")
        k = {"base": parse_results.Guest(waiters=parse_results.parse_waiters("error futex_aborted failed\n")),
             "patched": parse_results.Guest(waiters=counts)}
        self.assertEqual(compare_kernels.summarize(k)["waiters"], {"patched": {"private": {
            "rounds": 1, "aborted": 6, "wakes": 3, "busy": 0, "woken": 1, "waiter_busy": 1,
            "busy_missed": None, "waiter_missed": None}}})

    def test_run_dir(self):
        rc, out, _ = self.main(self.run_dir)
        self.assertEqual(rc, 0)
        for name in ("summary.json", "summary.tsv", "summary.md"):
            self.assertTrue(os.path.exists(os.path.join(self.run_dir, name)))
        with open(os.path.join(self.run_dir, "summary.md")) as f:
            self.assertEqual(f.read(), out)

    def check_table(self, rc, out, err, want):
        """compare.py exited WANT, after printing the whole table, with one
        error line where it failed."""
        self.assertEqual(rc, want, err)
        with open(os.path.join(self.run_dir, "summary.md")) as f:
            self.assertEqual(f.read(), out)
        self.assertIn("| blocking paths |", out)
        self.assertEqual(len(err.splitlines()), want, err)
        self.assertTrue(err.startswith("error: compare: ") or not want, err)

    def test_fail_on_regression_equal_kernels(self):
        fixtures.synthetic_kernel(os.path.join(self.run_dir, "patched"), 1.0)
        self.check_table(*self.main("--fail-on-regression", self.run_dir), 0)

    def test_fail_on_regression_slower_row(self):
        fixtures.synthetic_kernel(os.path.join(self.run_dir, "patched"), 0.7)
        rc, out, err = self.main("--fail-on-regression", self.run_dir)
        self.check_table(rc, out, err, 1)
        self.assertIn("block rows slower: perf-wake", err)
        self.check_table(*self.main(self.run_dir), 0)

    def host_cpus(self, n):
        """Both guests (18 vCPUs) ran on a host of N CPUs."""
        for name in compare_kernels.KERNELS:
            with open(os.path.join(self.run_dir, name, "host_cpus"), "w") as f:
                f.write(f"{n}\n")

    def test_fail_on_regression_slower_row_overcommitted(self):
        """18 vCPUs on 2 host CPUs: the slower row is a measurement, said
        so under the table, and fails nothing."""
        fixtures.synthetic_kernel(os.path.join(self.run_dir, "patched"), 0.7)
        self.host_cpus(2)
        rc, out, err = self.main("--fail-on-regression", self.run_dir)
        self.check_table(rc, out, err, 0)
        self.assertIn("timings measured only, a slower row fails nothing: base: 18 vCPUs on 2 host CPUs; "
                      "patched: 18 vCPUs on 2 host CPUs", out)
        self.assertIn("slower: perf-wake", out)

    def test_fail_on_regression_slower_row_fits_the_host(self):
        """18 vCPUs on 18 host CPUs: the slower row decides."""
        fixtures.synthetic_kernel(os.path.join(self.run_dir, "patched"), 0.7)
        self.host_cpus(18)
        rc, out, err = self.main("--fail-on-regression", self.run_dir)
        self.check_table(rc, out, err, 1)
        self.assertIn("block rows slower: perf-wake", err)
        self.assertNotIn("timings measured only", out)

    def test_fail_on_regression_failed_row_overcommitted(self):
        """A run that failed is no timing: it fails on any host."""
        d = os.path.join(self.run_dir, "patched")
        fixtures.write_results(d, [x for x in fixtures.read_sections(d)
                                   if not (x[0] == "bench" and "name=pi_stress " in x[1])]
                               + [fixtures.bench("block", "pi_stress", 1, 1, "-", "pi_stress --quiet",
                                                 "Total inversion performed: 9\n", rc=2)])
        self.host_cpus(2)
        rc, out, err = self.main("--fail-on-regression", self.run_dir)
        self.check_table(rc, out, err, 1)
        self.assertEqual(err, "error: compare: block rows failed: pi_stress\n")

    def test_fail_on_regression_failed_row(self):
        """A pi_stress failure on an otherwise faster patched kernel."""
        d = os.path.join(self.run_dir, "patched")
        fixtures.write_results(d, [x for x in fixtures.read_sections(d)
                                   if not (x[0] == "bench" and "name=pi_stress " in x[1])]
                               + [fixtures.bench("block", "pi_stress", 1, 1, "-", "pi_stress --quiet",
                                                 "Total inversion performed: 9\n", rc=2)])
        rc, out, err = self.main("--fail-on-regression", self.run_dir)
        self.check_table(rc, out, err, 1)
        self.assertEqual(err, "error: compare: block rows failed: pi_stress\n")

    def test_fail_on_regression_not_resolved_passes(self):
        """One run a kernel: no row is resolved, and none fails."""
        for name, speed in (("base", 1.0), ("patched", 0.7)):
            d = os.path.join(self.run_dir, name)
            fixtures.write_results(d, [x for x in fixtures.read_sections(d) if x[0] != "bench"]
                                   + fixtures.bench_sections(speed, runs=1))
        s = self.summary()
        self.assertEqual({r["verdict"] for r in s["block"].values()}, {compare_kernels.NOT_RESOLVED})
        self.check_table(*self.main("--fail-on-regression", self.run_dir), 0)

    def test_fail_on_regression_patched_kselftest(self):
        """A kselftest the patched kernel failed fails, one base failed
        does not (the patched kernel's own are judged)."""
        fixtures.set_section(os.path.join(self.run_dir, "base"), "kselftest", KSELFTEST)
        self.check_table(*self.main("--fail-on-regression", self.run_dir), 0)
        fixtures.set_section(os.path.join(self.run_dir, "patched"), "kselftest", KSELFTEST)
        rc, out, err = self.main("--fail-on-regression", self.run_dir)
        self.check_table(rc, out, err, 1)
        self.assertIn("patched: kselftest failed: futex_requeue_pi # exit=1", err)
        self.assertNotIn("block rows", err)

    def test_fail_on_regression_patched_many_kselftest(self):
        for name in ("base-many", "patched-many"):
            fixtures.synthetic_kernel(os.path.join(self.run_dir, name), 1.0)
        fixtures.set_section(os.path.join(self.run_dir, "patched-many"), "kselftest", KSELFTEST)
        rc, out, err = self.main("--fail-on-regression", self.run_dir)
        self.check_table(rc, out, err, 1)
        self.assertEqual(err, "error: compare: patched-many: kselftest failed: futex_requeue_pi # exit=1\n")

    def test_two_folders_qemu_against_native(self):
        native = os.path.join(self.tmp, "native")
        fixtures.synthetic_kernel(native, 1.1, runner="native")
        out_dir = os.path.join(self.tmp, "out")
        rc, out, _ = self.main(os.path.join(self.run_dir, "base"), native, "-o", out_dir)
        self.assertEqual(rc, 0)
        self.assertIn("| patched | 7.3.4+ | 18 | 6 nodes, distances 10/12/21 | native | 0123abcd |", out)
        self.assertTrue(os.path.exists(os.path.join(out_dir, "summary.tsv")))

    def test_default_out_dir(self):
        self.assertEqual(compare.default_out("/x/base/", "/y/patched"),
                         os.path.join(parse_results.TOP, "results", "compare-base-vs-patched"))

    def test_bad_input_is_one_line(self):
        for argv in ((), (self.tmp,), (self.run_dir, "-o", "x"), ("a", "b", "c"),
                     (self.run_dir, os.path.join(self.tmp, "nowhere"))):
            rc, out, err = self.main(*argv)
            self.assertEqual(rc, 2, argv)
            self.assertEqual(len(err.splitlines()), 1, err)
            self.assertTrue(err.startswith("error: compare: "), err)


if __name__ == "__main__":
    unittest.main()
