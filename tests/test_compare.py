# SPDX-License-Identifier: GPL-2.0
"""Unit tests of bin/compare_kernels.py's arithmetic and rows, and of
bin/compare.py's command line, on a synthetic QEMU pair and native folder."""

import contextlib
import io
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


class Arithmetic(unittest.TestCase):
    def test_ratio_of_medians(self):
        r, s = compare_kernels.ratio([100, 100, 100], [250, 250, 250])
        self.assertAlmostEqual(r, 2.5)
        self.assertEqual(s, 0.0)

    def test_lower_is_better_is_base_over_patched(self):
        r, _ = compare_kernels.ratio([0.4, 0.4], [0.2, 0.2], higher=False)
        self.assertAlmostEqual(r, 2.0)

    def test_spread_combines_both_sides(self):
        _, s = compare_kernels.ratio([90, 100, 110], [180, 200, 220])
        self.assertAlmostEqual(s, 2 ** 0.5 * 0.1)


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
        for name, row in s["block"].items():
            self.assertAlmostEqual(row["ratio"], 1.1, places=2, msg=name)
            self.assertTrue(row["goal"], name)

    def test_below_goal_and_pi_stress_failure(self):
        """Patched 10% slower fails the goal on every row; a pi_stress run
        that reports a failure fails its row even where it is faster."""
        fixtures.synthetic_kernel(os.path.join(self.run_dir, "patched"), 0.9)
        d = os.path.join(self.run_dir, "base")
        fixtures.write_results(d, [x for x in fixtures.read_sections(d)
                                   if not (x[0] == "bench" and "name=pi_stress " in x[1])]
                               + [fixtures.bench("block", "pi_stress", 1, 1, "-", "pi_stress --quiet",
                                                 "Total inversion performed: 9\n", rc=2)])
        s = self.summary()
        self.assertTrue(s["block"]["perf-wake"]["base"]["runs"])
        for name in ("perf-wake", "sysbench-mutex", "perf-lock-pi"):
            self.assertLess(s["block"][name]["ratio"], 0.95, name)
            self.assertFalse(s["block"][name]["goal"], name)
        self.assertEqual(s["block"]["pi_stress"]["base"]["failures"], ["rc 2"])
        self.assertFalse(s["block"]["pi_stress"]["goal"])

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
        self.assertFalse(row["goal"])

    def test_skip_reason_names_the_rows_program(self):
        kn = {"skips": [{"step": "block", "reason": "sysbench not installed"},
                        {"step": "block", "reason": "pi_stress not installed"}]}
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
        self.assertFalse(row["goal"])

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

    def test_run_dir(self):
        rc, out, _ = self.main(self.run_dir)
        self.assertEqual(rc, 0)
        for name in ("summary.json", "summary.tsv", "summary.md"):
            self.assertTrue(os.path.exists(os.path.join(self.run_dir, name)))
        with open(os.path.join(self.run_dir, "summary.md")) as f:
            self.assertEqual(f.read(), out)

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
