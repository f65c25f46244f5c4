#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the instruction counts: parse_results.parse_icount(),
bin/compare_icount.py's figures, chain and row verdicts, and
bin/compare.py --icount, which make icount runs, on result folders
written from sections."""

import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures  # noqa: E402  (puts bin/ on the path)
import compare  # noqa: E402
import compare_icount  # noqa: E402
import parse_results  # noqa: E402
import render_data  # noqa: E402
import render_md  # noqa: E402

PATHS = {
    "wake-private": {"series": "same", "allow": 0, "ref": None, "patch": None},
    "wait-private": {"series": "refuses", "allow": 0, "ref": "wake-private", "patch": None},
    "pingpong": {"series": "blocks", "allow": 12, "ref": None, "patch": "2"},
}


def icount_text(figures, calls=100000, reps=3):
    """futex_icount's lines for FIGURES {PATH: instructions per call}."""
    return "".join(f"{p} calls={calls} ns={round(v * calls)}\n" for p, v in figures.items()
                   for _ in range(reps))


def parsed(figures):
    return parse_results.parse_icount(icount_text(figures))


BASE = {"wake-private": 488.6, "wait-private": 649.3, "pingpong": 9710.5}
PATCHED = {"wake-private": 488.6, "wait-private": 480.2, "pingpong": 9722.5}


class Parse(unittest.TestCase):
    def test_lines(self):
        ic = parse_results.parse_icount("getppid calls=4 ns=850\ngetppid calls=4 ns=849\n"
                                        "skip uring-futex: no io_uring\n")
        self.assertEqual(ic.runs, {"getppid": [212.5, 212.25]})
        self.assertEqual(ic.skips, {"uring-futex": "no io_uring"})
        self.assertEqual(ic.errors, [])

    def test_anything_else_is_an_error(self):
        """An error line, a line cut short and zero calls are kept as errors."""
        text = "error wake-private: returned 1\nwake-shared calls=100 ns=\ngetppid calls=0 ns=5\n"
        self.assertEqual(parse_results.parse_icount(text).errors, text.splitlines())

    def test_least_of_the_repetitions(self):
        """An interrupt in a loop only adds: the least repetition counts."""
        ic = parse_results.parse_icount("a calls=100 ns=48900\na calls=100 ns=48861\na calls=100 ns=60000\n")
        self.assertEqual(compare_icount.figures(ic), {"a": 488.61})


class Chain(unittest.TestCase):
    def chain(self, *kernels):
        return compare_icount.chain([(f"k{i}", parsed(f)) for i, f in enumerate(kernels)], PATHS)

    def verdicts(self, ic):
        return {r["path"]: r["verdict"] for r in ic["rows"]}

    def test_pass(self):
        ic = self.chain(BASE, PATCHED)
        self.assertEqual(self.verdicts(ic), dict.fromkeys(PATHS, compare_icount.OK))
        self.assertEqual(compare_icount.failures(ic), [])
        row = ic["rows"][2]
        self.assertEqual((row["delta"], row["pct"]), (12.0, 0.12))

    def test_steps_per_kernel(self):
        mid = dict(BASE, pingpong=9720.5)
        row = self.chain(BASE, mid, PATCHED)["rows"][2]
        self.assertEqual(row["steps"], {"k0": None, "k1": 10.0, "k2": 2.0})
        self.assertEqual(row["delta"], 12.0)

    def test_same_path_pays_more(self):
        ic = self.chain(BASE, dict(PATCHED, **{"wake-private": 488.66}))
        self.assertEqual(self.verdicts(ic)["wake-private"], compare_icount.MORE)
        self.assertEqual(compare_icount.failures(ic), ["wake-private pays more (+0.1, allowed 0)"])

    def test_within_the_tolerance(self):
        """What two boots of one kernel may differ by is no difference."""
        ic = self.chain(BASE, dict(PATCHED, **{"wake-private": 488.65, "wait-private": 488.65}))
        self.assertEqual(compare_icount.failures(ic), [])

    def test_same_path_pays_less(self):
        ic = self.chain(BASE, dict(PATCHED, **{"wake-private": 480.0, "wait-private": 470.0}))
        self.assertEqual(compare_icount.failures(ic), [])

    def test_blocking_path_beyond_its_allowance(self):
        ic = self.chain(BASE, dict(PATCHED, pingpong=9722.56))
        self.assertEqual(self.verdicts(ic)["pingpong"], compare_icount.MORE)

    def test_refused_wait_above_its_wake(self):
        ic = self.chain(BASE, dict(PATCHED, **{"wait-private": 488.66}))
        self.assertEqual(self.verdicts(ic)["wait-private"], compare_icount.ABOVE)

    def test_refused_wait_with_no_ref_above_base(self):
        """configs/icount-paths' numa-wait names no wake: above base it still
        fails, below base and above the FUTEX2_NUMA wake it passes."""
        paths = compare_icount.read_paths()
        self.assertEqual(paths["numa-wait"]["ref"], None)
        base = {"numa-wait": 620.4, "numa-wake": 479.3}

        def rows(wait):
            kernels = [("base", parsed(base)), ("patched", parsed(dict(base, **{"numa-wait": wait})))]
            return {r["path"]: r["verdict"] for r in compare_icount.chain(kernels, paths)["rows"]}

        self.assertEqual(rows(620.6)["numa-wait"], compare_icount.MORE)
        self.assertEqual(rows(467.3)["numa-wait"], compare_icount.OK)

    def test_refused_wait_without_its_wake(self):
        figs = dict(PATCHED)
        del figs["wake-private"]
        self.assertEqual(self.verdicts(self.chain(BASE, figs))["wait-private"], compare_icount.MISSING)

    def test_path_missing(self):
        figs = dict(BASE)
        del figs["pingpong"]
        ic = self.chain(figs, PATCHED)
        self.assertEqual(self.verdicts(ic)["pingpong"], compare_icount.MISSING)
        self.assertEqual(ic["rows"][2]["delta"], None)

    def test_unknown_path_and_errors(self):
        k = parse_results.parse_icount(icount_text(dict(PATCHED, other=5.0)) + "error x: failed\n")
        ic = compare_icount.chain([("base", parsed(BASE)), ("patched", k), ("none", None)], PATHS)
        self.assertEqual(ic["unknown"], ["other"])
        self.assertEqual(ic["errors"], {"patched": ["error x: failed"], "none": ["no icount section"]})

    def test_repeat(self):
        self.assertEqual(compare_icount.repeat(parsed(PATCHED), parsed(PATCHED)), [])
        self.assertEqual(compare_icount.repeat(parsed(PATCHED), parsed(dict(PATCHED, pingpong=9722.55))), [])
        self.assertEqual(compare_icount.repeat(parsed(PATCHED), parsed(dict(PATCHED, pingpong=9722.56))),
                         ["pingpong"])
        less = dict(PATCHED)
        del less["pingpong"]
        self.assertEqual(compare_icount.repeat(parsed(PATCHED), parsed(less)), ["pingpong"])

    def test_a_tick_more_in_a_short_loop(self):
        """A loop of 1,000 calls that catches one timer tick more (2,210
        instructions here) repeats; one more instruction a call does not."""
        def loop(v):
            return parse_results.parse_icount(icount_text({"wake1-private": v}, calls=1000))
        self.assertEqual(compare_icount.tolerance(loop(1191.07), "wake1-private"), 2.5)
        self.assertEqual(compare_icount.repeat(loop(1191.07), loop(1193.28)), [])
        self.assertEqual(compare_icount.repeat(loop(1191.07), loop(1193.6)), ["wake1-private"])
        self.assertEqual(compare_icount.tolerance(parsed(BASE), "pingpong"), compare_icount.TOLERANCE)

    def test_paths_file(self):
        """configs/icount-paths: every line read, each refused wait's
        reference, where it has one, a path of its own."""
        paths = compare_icount.read_paths()
        self.assertIn("wake-shared", paths)
        for name, line in paths.items():
            if line["series"] == compare_icount.REFUSES and line["ref"]:
                self.assertIn(line["ref"], paths, name)

    def test_bad_paths_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".paths") as f:
            f.write("wake-private same lots - -\n")
            f.flush()
            with self.assertRaises(ValueError):
                compare_icount.read_paths(f.name)


class Icount(unittest.TestCase):
    """bin/compare.py --icount, as make icount runs it."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def guest(self, name, figures, accel="tcg icount (shift=0,sleep=off)"):
        d = os.path.join(self.tmp, name)
        fixtures.write_results(d, [("icount", icount_text(figures)), ("end", "done\n")], accel=accel)
        return d

    def run_compare(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = compare.main(["compare.py", "--icount", "--fail-on-regression", *argv])
        return rc, out.getvalue(), err.getvalue()

    def test_pass(self):
        """Base, a patch, the patched kernel and its second boot."""
        figs = {p: 100.0 for p in compare_icount.read_paths()}
        rc, out, err = self.run_compare("--repeat", self.guest("p-again", figs),
                                        "-o", os.path.join(self.tmp, "out"), self.guest("b", figs),
                                        self.guest("one", dict(figs, getppid=101.0)), self.guest("p", figs))
        self.assertEqual((rc, err), (0, ""))
        self.assertIn("| instructions per call | b | one | p | delta | delta % | rule | verdict |", out)
        self.assertIn("| getppid | 100.0 | 101.0 (+1.0) | 100.0 (-1.0) | +0.0 | +0.00% | same, at most +0 | ok |",
                      out)
        self.assertIn("icount repeat: every figure the same in both boots of p", out)
        with open(os.path.join(self.tmp, "out", "summary.tsv")) as f:
            tsv = f.read()
        self.assertIn("icount\twake-shared\t\tp\t100\tinstructions\t\t\t\t\t\tok\tseries delta +0.0\t0\n", tsv)

    def test_regression_and_repeat_fail(self):
        """A path that pays more, and figures that differ between the
        last kernel's boots, each fail make icount."""
        real = compare_icount.read_paths()
        base = {p: 100.0 for p in real}
        more = dict(base, **{"wake-shared": 111.0})
        rc, out, err = self.run_compare("--repeat", self.guest("again", dict(more, getppid=99.0)),
                                        "-o", os.path.join(self.tmp, "out"),
                                        self.guest("base", base), self.guest("patched", more))
        self.assertEqual(rc, 1)
        self.assertIn("wake-shared pays more (+11.0, allowed 0)", err)
        self.assertIn("differ between boots: getppid", err)
        self.assertIn("| wake-shared | 100.0 | 111.0 (+11.0) | +11.0 | +11.00% |", out)

    def test_usage(self):
        rc, _, err = self.run_compare(self.guest("base", BASE))
        self.assertEqual(rc, 2)
        self.assertIn("usage: compare.py --icount", err)

    def test_render_two_kernels(self):
        """make run's pair: the table and rows come with the summary."""
        s = {"icount": compare_icount.chain([("base", parsed(BASE)), ("patched", parsed(PATCHED))], PATHS)}
        lines = render_md.icount_table(s)
        self.assertIn("| pingpong | 9710.5 | 9722.5 (+12.0) | +12.0 | +0.12% | blocks, at most +12 | ok |",
                      lines)
        self.assertIn("| wait-private | 649.3 | 480.2 (-169.1) | -169.1 | -26.04% | refuses, at most +0 and wake-private | ok |",
                      lines)
        rows = list(render_data.icount_rows(s))
        self.assertEqual(len(rows), 2 * len(PATHS))
        self.assertEqual(rows[-1]["verdict"], "ok")


if __name__ == "__main__":
    unittest.main()
