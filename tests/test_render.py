# SPDX-License-Identifier: GPL-2.0
"""Unit tests of bin/render_md.py, bin/render_data.py and bin/render_plot.py
on the summary of a synthetic QEMU pair."""

import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixtures  # noqa: E402
import compare_kernels  # noqa: E402
import parse_results  # noqa: E402
import render_data  # noqa: E402
import render_md  # noqa: E402
import render_plot  # noqa: E402


class Render(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        k = {}
        for name, speed in (("base", 1.0), ("patched", 1.1)):
            d = os.path.join(self.tmp, name)
            fixtures.synthetic_kernel(d, speed, skip="block: sysbench not installed"
                                      if name == "patched" else None)
            if name == "patched":
                secs = [x for x in fixtures.read_sections(d) if x[0] != "bench" or "sysbench" not in x[1]]
                fixtures.write_results(d, secs)
            k[name] = parse_results.read_kernel(d)
        self.s = compare_kernels.summarize(k)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_header(self):
        lines = render_md.table(self.s)
        self.assertIn("| base | 7.3.4+ | 18 | 6 nodes, distances 10/12/21 | kvm | 0123abcd |", lines)
        self.assertIn("not run on patched: block: sysbench not installed", lines)
        self.assertNotIn("different accelerators", "\n".join(lines))
        self.s["kernels"]["patched"]["accel"] = "tcg"
        self.assertIn("different accelerators", "\n".join(render_md.table(self.s)))

    def test_block_rows_and_verdict(self):
        md = "\n".join(render_md.table(self.s))
        self.assertIn("| perf-wake, ms | 0.2985 ms ±0.7% (2 runs) | 0.2713 ms ±0.7% (2 runs) "
                      "| 1.10 [1.09, 1.11] "
                      "| 0 / 0 | ok |", md)
        self.assertIn("| sysbench-mutex, s | 0.3482 s ±0.7% (2 runs) | not run: sysbench not installed | - "
                      "| 0 / - | not run |", md)
        self.assertIn("verdict: slower where the whole interval of patched/base lies below 0.98, ok where it "
                      "lies at or above it, not resolved where it straddles it or a kernel has fewer than 2 "
                      "runs, failed where a run failed or pi_stress reported a failure; every row run on "
                      "both is ok", md)
        self.assertIn("for a time (ms, s) base/patched, so >= 1 always means patched is not slower", md)
        self.assertIn("interval: 95%, a bootstrap of the two medians over the runs "
                      "(2000 resamples, seed ", md)

    def test_verdict_line_lists_slower_and_not_resolved(self):
        block = self.s["block"]
        block["perf-wake"].update(ratio=0.7, ratio_lo=0.65, ratio_hi=0.75, verdict=compare_kernels.SLOWER)
        block["perf-requeue"]["verdict"] = compare_kernels.NOT_RESOLVED
        block["pi_stress"]["verdict"] = compare_kernels.NOT_RESOLVED
        lines = render_md.table(self.s)
        self.assertIn("| 0.70 [0.65, 0.75] | 0 / 0 | slower |", "\n".join(lines))
        line = next(x for x in lines if x.startswith("verdict: "))
        self.assertTrue(line.endswith("; slower: perf-wake; not resolved: perf-requeue, pi_stress"), line)

    def test_hash_and_scale_rows(self):
        md = render_md.table(self.s)
        self.assertIn("| wait-b2 | 1,005 ±0.7% (2 runs) | 1,106 ±0.7% (2 runs) | 1.10 [1.09, 1.11] "
                      "| 32 / 32 |", md)
        self.assertIn("| wake, 4 | 4,020 ±0.7% (2 runs) | 4,422 ±0.7% (2 runs) | 1.10 [1.09, 1.11] |", md)

    def test_nodes(self):
        self.assertEqual(render_md.nodes({"nodes": 1, "node": {0: {"cpus": "0-7", "distances": [10]}}}),
                         "1 node")
        self.assertEqual(render_md.nodes(None), "?")

    def test_tsv_rows(self):
        lines = render_data.tsv(self.s).splitlines()
        self.assertEqual(lines[0].split("\t"), list(render_data.COLUMNS))
        self.assertIn("scale\twake\t4\tpatched\t4422\tops/s\t4400\t4444\t1.1000\t1.0891\t1.1110\t\t\t", lines)
        self.assertIn("block\tperf-wake\t\tpatched\t0.27135\tms\t0.27\t0.2727\t1.1001\t1.0891\t1.1111\tok\t\t",
                      lines)
        self.assertIn("block\tperf-wake\t\tbase\t0.2985\tms\t0.297\t0.3\t\t\t\t\t\t", lines)
        self.assertIn("replacement\t18 vCPUs\t64\tbase\t15\ts\t\t\t\t\t\t\tnot done\t", lines)
        self.assertIn("block\tsysbench-mutex\t\tpatched\t\t\t\t\t\t\t\tnot run\t"
                      "not run: sysbench not installed\t", lines)
        self.assertIn("skipped\tblock\t\tpatched\t\t\t\t\t\t\t\t\tsysbench not installed\t", lines)

    def test_tsv_failed_row(self):
        """A row whose patched runs all failed still has the patched line,
        with its verdict."""
        side = self.s["block"]["perf-wake"]["patched"]
        side.update(median=None, runs=[], failed=2)
        self.s["block"]["perf-wake"].update(ratio=None, ratio_lo=None, ratio_hi=None,
                                            verdict=compare_kernels.FAILED)
        self.assertIn("block\tperf-wake\t\tpatched\t\t\t\t\t\t\t\tfailed\tno result: 2 runs failed\t",
                      render_data.tsv(self.s).splitlines())

    def test_json(self):
        render_data.write(self.s, os.path.join(self.tmp, "s.json"), os.path.join(self.tmp, "s.tsv"))
        with open(os.path.join(self.tmp, "s.json")) as f:
            back = json.load(f)
        for key in ("ratio", "ratio_lo", "ratio_hi", "verdict"):
            self.assertEqual(back["block"]["perf-wake"][key], self.s["block"]["perf-wake"][key], key)
        self.assertEqual(back["block"]["perf-wake"]["verdict"], "ok")
        self.assertEqual(back["interval"]["resamples"], compare_kernels.RESAMPLES)
        self.assertEqual(sorted(back["scale"]["wake"]), ["1", "2", "4"])

    @unittest.skipUnless(shutil.which("gnuplot"), "no gnuplot")
    def test_plots(self):
        drawn = render_plot.plots(self.s, self.tmp)
        self.assertEqual(drawn, ["scale-wake.png", "replacement.png"])
        for name in drawn:
            with open(os.path.join(self.tmp, name), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertIn("plots: [scale-wake.png](scale-wake.png), [replacement.png](replacement.png)",
                      render_md.table(self.s, drawn))

    def test_no_gnuplot(self):
        path = os.environ["PATH"]
        os.environ["PATH"] = self.tmp
        try:
            self.assertEqual(render_plot.plots(self.s, self.tmp), render_plot.NO_GNUPLOT)
        finally:
            os.environ["PATH"] = path
        self.assertEqual(render_md.table(self.s, render_plot.NO_GNUPLOT)[-1], render_plot.NO_GNUPLOT)
        self.assertFalse([f for f in os.listdir(self.tmp) if f.endswith(".png")])


if __name__ == "__main__":
    unittest.main()
