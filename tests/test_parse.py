# SPDX-License-Identifier: GPL-2.0
"""Unit tests of bin/parse_results.py: the sections of results.txt and the
parsers of each step and benchmark program, on QEMU and native folders."""

import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixtures  # noqa: E402
import parse_results  # noqa: E402
import render_md  # noqa: E402

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
        self.ks = parse_results.parse_kselftest(KSELFTEST)

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
        with open(os.path.join(HERE, "data", "verdicts", "captures",
                               "numa_mpol_timeout")) as f:
            ks = parse_results.parse_kselftest(f.read())
        self.assertEqual(ks.timeouts, ["futex_numa_mpol"])
        self.assertEqual(self.ks.timeouts, ["futex_requeue_pi"])


class ParseOther(unittest.TestCase):
    def test_badinput(self):
        base = parse_results.parse_badinput("0 futex(WAIT, NULL, match, timeout=none) -> -1 EFAULT\n"
                                      "1 futex(WAKE, valid, match, timeout=none) -> 0 -\n"
                                      "total 2\n")
        self.assertEqual(base.total, 2)
        self.assertEqual(base.calls["futex(WAKE, valid, match, timeout=none)"], "0 -")
        patched = parse_results.parse_badinput("0 futex(WAIT, NULL, match, timeout=none) -> -1 EINVAL\n"
                                         "total 1\nerror futex_badinput failed or timed out\n")
        self.assertEqual(patched.errors, ["futex_badinput failed or timed out"])
        self.assertEqual(parse_results.badinput_diff(base, patched), [
            ("futex(WAIT, NULL, match, timeout=none)", "-1 EFAULT", "-1 EINVAL"),
            ("futex(WAKE, valid, match, timeout=none)", "0 -", "missing")])

    def test_replace(self):
        here = os.path.dirname(os.path.abspath(__file__))
        lost = parse_results.read_kernel(os.path.join(here, "data", "verdicts", "captures", "replace-lost"))
        r = lost.replace
        self.assertEqual((r.rc, r.skip, r.counts.lost, r.counts.children_failed), (1, None, 2, 7))
        self.assertEqual(len([x for x in r.found if x.startswith("lost: ")]), 11)
        self.assertEqual(len([x for x in r.found if x.startswith("child ")]), 7)
        skip = parse_results.parse_replace("skip: no private futex hash to replace\nrc=0\n")
        self.assertEqual((skip.counts, skip.rc, skip.skip), (None, 0, "no private futex hash to replace"))
        torn = parse_results.parse_replace("replacements=3 rounds=1\nrc=x\n")
        self.assertEqual((torn.counts, torn.rc), (None, None))

    def test_failfutex(self):
        tap = ("TAP version 13\n1..1\n# selftests: futex/functional: futex_wait\n"
               "ok 1 selftests: futex/functional: futex_wait\n# took futex_wait 2 s\n"
               "TAP version 13\n1..1\n# selftests: futex/functional: futex_requeue\n"
               "not ok 1 selftests: futex/functional: futex_requeue # TIMEOUT 30 seconds\n")
        f = parse_results.parse_failfutex(
            "badinput rc=0\nstress-ng rc=2\n# stress-ng: info:  [7] dispatching hogs: 8 futex\n"
            "# stress-ng: metrc: [7] futex             41234      6.08      3.01     44.90\n", tap,
            "{ ret:          0 } hitcount:       4608\n{ ret:          1 } hitcount:        512\n")
        self.assertEqual(f, parse_results.Failfutex(faults=512, calls=5120, programs=2, listed=2,
                                                    timeouts=["futex_requeue"], badinput_rc=0, stress_rc=2,
                                                    stress_ops=41234))
        self.assertEqual(parse_results.parse_failfutex("listed 6\n", tap).listed, 6)

    def test_failfutex_case_timeout_is_no_hang(self):
        """A test case that hit kselftest_harness's own 30 s, which fault
        injection may well cause, is not a program stopped for its time."""
        tap = ("TAP version 13\n1..1\n# selftests: futex/functional: futex_requeue\n"
               "# # requeue_single: Test terminated by timeout\n# not ok 1 requeue_single\n"
               "not ok 1 selftests: futex/functional: futex_requeue # exit=1\n")
        self.assertEqual(parse_results.parse_failfutex("listed 1\n", tap).timeouts, [])

    def test_perf_buckets(self):
        self.assertEqual(parse_results.parse_perf_buckets("Futex hashing: auto resized to 32 buckets\n"), 32)
        self.assertEqual(parse_results.parse_perf_buckets("Futex hashing: global hash\n"), 0)
        # PR_FUTEX_HASH_GET_SLOTS failed: the size is unknown, not 0.
        self.assertIsNone(parse_results.parse_perf_buckets("Futex hashing: n/a\n"))
        self.assertIsNone(parse_results.parse_perf_buckets("  0.000 s: hash size n/a\nFutex hashing: n/a\n"))
        ramp = ("  0.000 s: global hash\n  0.003 s: 16 hash buckets\n"
                "Futex hashing: auto resized to 32 buckets\n")
        self.assertEqual(parse_results.parse_perf_buckets(ramp), 16)

    def test_perf(self):
        self.assertEqual(parse_results.parse_perf(PERF), 311204)
        self.assertIsNone(parse_results.parse_perf("perf: command failed\n"))

    def test_precheck(self):
        self.assertEqual(parse_results.parse_precheck("private waits=10 bucket=10\n"
                                                      "shared waits=10 bucket=0\n"),
                         {"private": (10, 10), "shared": (10, 0)})

    def test_waiters(self):
        text = ("private rounds=1 aborted=6 wakes=3 busy=0 woken=1 waiter_busy=1\n"
                "error futex_aborted shared failed\n"
                "futex_aborted: wake: Bad address\n")
        self.assertEqual(parse_results.parse_waiters(text), parse_results.Waiters(
            {"private": parse_results.WaiterCounts(rounds=1, aborted=6, wakes=3, busy=0, woken=1,
                                                   waiter_busy=1)},
            ["error futex_aborted shared failed", "futex_aborted: wake: Bad address"]))

    def test_waiters_counts_whole(self):
        """A kind's line that lacks a count, or has one unknown or twice,
        is an error, not a record."""
        for line in ("private rounds=1 aborted=6 wakes=3 woken=1 waiter_busy=1",
                     "private rounds=1 aborted=6 wakes=3 busy=0 woken=1 waiter_busy=1 other=2",
                     "private rounds=1 rounds=1 aborted=6 wakes=3 busy=0 woken=1 waiter_busy=1"):
            with self.subTest(line=line):
                w = parse_results.parse_waiters(line + "\n")
                self.assertEqual(w.kinds, {})
                self.assertEqual(len(w.errors), 1)

    def test_resize(self):
        text = ("# # auto resize to 32 slots: 64 threads, 8 CPUs, done after 0.012 s, "
                "grace period 0.089 s\n"
                "# # set slots to 256: 64 threads, 8 CPUs, not done after 15.000 s, "
                "grace period 0.031 s\n")
        auto, setslots = parse_results.parse_resize(text)
        self.assertEqual(auto, parse_results.ResizeTest("auto", slots=32, threads=64, cpus=8, done=True,
                                                        seconds=0.012, gp=0.089))
        self.assertFalse(setslots.done)
        self.assertEqual(setslots.seconds, 15.0)

    def test_resizebench(self):
        text = "mode=ramp threads=16 cpus=8 slots=32 done=0 seconds=10.0000 ops_per_s=500\n"
        hist = ("# event histogram\n#\n{ state:          0 } hitcount:         10\n"
                "{ state:          1 } hitcount:        990\n\nTotals:\n    Hits: 1000\n")
        r = parse_results.parse_resizebench(text, hist)
        self.assertEqual(r.runs[0].done, False)
        self.assertEqual(r.refstate, {0: 10, 1: 990})
        self.assertEqual(render_md._share(r.refstate), "99.00% of 1,000")
        self.assertIsNone(r.retry)

    def test_resizebench_shrink(self):
        text = ("mode=shrink threads=64 cpus=8 slots=16 done=1 seconds=0.1250 ops_per_s=900 "
                "syscall=0.0004 ops_during=800\n")
        run = parse_results.parse_resizebench(text).runs[0]
        self.assertEqual((run.mode, run.slots, run.seconds, run.ops_during),
                         ("shrink", 16, 0.125, 800.0))
        self.assertEqual(render_md.resize_pair_lines({"cpus": 8, "bench": [
            {"mode": "shrink", "threads": 64, "slots": 16, "base": None, "patched": parse_results.plain(run), "ops_ratio": None}],
            "tests": [], "refstate": {"base": {}, "patched": {}}})[3],
            "| SET_SLOTS(16), a shrink, with 64 threads running | - | 0.125 s | |")

    def test_resizebench_retry(self):
        retry = "mode=retry threads=64 cpus=8 slots=32 before=16 done=1 seconds=0.3125\n"
        r = parse_results.parse_resizebench("", None, retry)
        self.assertEqual(r.retry, parse_results.ResizeRetry(threads=64, cpus=8, slots=32, before=16,
                                                            done=True, seconds=0.3125))
        self.assertIsNone(parse_results.parse_resizebench("", None, "mode=retry threads=1\n").retry)

    def test_resizebench_torn_lines(self):
        """A line that lacks a value, or has one that is no number, is an
        error, not a run: a guest killed mid-line, say."""
        r = parse_results.parse_resizebench("mode=ramp threads=4 cpus=8\n", None,
                                            "mode=retry slots=64 before=64 done=1 seconds=1\n")
        self.assertEqual((r.runs, r.retry, len(r.errors)), ([], None, 2))
        r = parse_results.parse_resizebench("mode=set threads=x cpus=8 slots=4 done=1 seconds=1 ops_per_s=1\n")
        self.assertEqual((r.runs, len(r.errors)), ([], 1))

    def test_failfutex_listed_not_a_number(self):
        for line in ("listed x\n", "listed \n", "listed 1 2\n"):
            with self.subTest(line=line):
                f = parse_results.parse_failfutex(line)
                self.assertEqual((f.listed, len(f.errors)), (0, 1))


def bench_of(command, output, rc=0):
    """parse_bench() of one bench section running COMMAND."""
    return parse_results.parse_bench(fixtures.bench("block", "x", 1, 1, "-", command, output, rc)[1])


class ParseBench(unittest.TestCase):
    """Each program's metric, from the final averaged line of its output."""

    def metric(self, command, output):
        b = bench_of(command, output)
        return b.value, b.unit, b.higher

    def test_perf_wake_takes_the_averaged_line(self):
        out = "[Run 10]: Wokeup 4 of 4 threads in 0.1870 ms\nWokeup 4 of 4 threads in 0.3041 ms (+-47.71%)\n"
        self.assertEqual(self.metric("/bin/perf bench futex wake", out), (0.3041, "ms", False))

    def test_perf_wake_parallel(self):
        out = "Avg per-thread latency (waking 1/4 threads) in 0.0351 ms (+-49.88%)\n"
        self.assertEqual(self.metric("perf bench futex wake-parallel", out), (0.0351, "ms", False))

    def test_perf_requeue(self):
        out = ("[Run 1]: Requeued 4 of 4 threads in 0.0040 ms\n"
               "Requeued 4 of 4 threads in 0.0096 ms (+-4.17%)\n")
        self.assertEqual(self.metric("perf bench futex requeue", out), (0.0096, "ms", False))

    def test_perf_lock_pi_and_hash(self):
        out = "Averaged 1493 operations/sec (+- 0.00%), total secs = 1\n"
        self.assertEqual(self.metric("perf bench futex lock-pi -r 1", out), (1493, "ops/s", True))
        b = bench_of("timeout 60 perf bench futex hash -r 5 -b 2", PERF + "Futex hashing: 2 hash buckets\n")
        self.assertEqual((b.value, b.buckets, b.program), (311204, 2, "perf hash"))

    def test_sysbench(self):
        mutex = ("    total time:                          0.3475s\n"
                 "    total number of events:              2\n")
        self.assertEqual(self.metric("sysbench mutex --threads=8 run", mutex), (0.3475, "s", False))
        threads = ("    total time:                          1.0004s\n"
                   "    total number of events:              2330\n")
        v, unit, higher = self.metric("sysbench threads --threads=8 --time=1 run", threads)
        self.assertAlmostEqual(v, 2330 / 1.0004)
        self.assertEqual((unit, higher), ("events/s", True))

    def test_pi_stress(self):
        out = "Total inversion performed: 45900\nTest Duration: 0 days, 0 hours, 0 minutes, 3 seconds\n"
        self.assertEqual(self.metric("pi_stress --duration=5 --quiet", out), (9180, "inversions/s", True))
        self.assertEqual(self.metric("pi_stress --quiet", out)[0], 15300)
        self.assertIsNone(bench_of("pi_stress --quiet", out).failure)
        self.assertEqual(bench_of("pi_stress --quiet", out, rc=1).failure, "rc 1")
        self.assertEqual(bench_of("pi_stress --quiet", "ERROR: deadlock detected\n" + out).failure,
                         "ERROR: deadlock detected")

    def test_header_and_failed_run(self):
        b = parse_results.parse_bench(fixtures.bench("scale", "wake", 2, 3, 16, "perf bench futex hash -t 16",
                                                     "perf: killed\n", rc=124)[1])
        self.assertEqual((b.group, b.name, b.run, b.runs, b.threads, b.rc, b.value),
                         ("scale", "wake", 2, 3, 16, 124, None))
        self.assertIsNone(bench_of("perf bench futex wake", "Wokeup 4 of 4 threads in 1 ms\n").threads)


class ParseFolder(unittest.TestCase):
    """Whole result folders: sections, machine, skips, console."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.tmp, "tree/tools/testing/selftests/rcutorture/bin"))
        with open(os.path.join(self.tmp, "tree/tools/testing/selftests/rcutorture/bin/"
                               "console-badness.sh"), "w") as f:
            f.write("grep -E 'WARNING:|BUG:' || true\n")
        self.tree, parse_results.TREE = parse_results.TREE, os.path.join(self.tmp, "tree")

    def tearDown(self):
        parse_results.TREE = self.tree
        shutil.rmtree(self.tmp)

    def test_sections_keep_order_and_repeats(self):
        secs = parse_results.parse_sections("==> a <==\n1\n==> bench <==\nx\n==> bench <==\ny\n"
                                            "==> evidence kselftest futex_wait <==\nz\n")
        self.assertEqual(secs, [("a", "1\n"), ("bench", "x\n"), ("bench", "y\n"),
                                ("evidence kselftest futex_wait", "z\n")])
        self.assertEqual(parse_results.sections_named(secs, "bench"), ["x\n", "y\n"])
        self.assertEqual(parse_results.evidence_sections(secs),
                         {"futex_wait": "evidence kselftest futex_wait"})

    def test_native_folder(self):
        d = os.path.join(self.tmp, "native")
        fixtures.synthetic_kernel(d, 1.0, runner="native", skip="block: sysbench not installed")
        k = parse_results.read_kernel(d)
        m = k.machine
        self.assertEqual((m.release, m.cpus, m.nodes, m.runner, m.tools),
                         ("7.3.4+", 18, 6, "native", "0123abcd"))
        self.assertEqual(m.node[4], parse_results.Node("12-14", [21, 21, 21, 12, 10, 12]))
        self.assertEqual(k.skips, [parse_results.Skip("block", "sysbench not installed")])
        self.assertEqual(k.accel, "native")
        self.assertEqual({b.program for b in k.bench},
                         set(parse_results.METRICS))
        self.assertTrue(all(b.value is not None for b in k.bench))
        # No console.log: the dmesg section is scanned.
        self.assertEqual(k.badness, [])
        fixtures.set_section(d, "dmesg", "[    2.0] WARNING: at kernel/futex/core.c\n")
        self.assertEqual(parse_results.read_kernel(d).badness,
                         ["[    2.0] WARNING: at kernel/futex/core.c"])

    def test_qemu_folder_scans_its_console(self):
        d = os.path.join(self.tmp, "qemu")
        fixtures.synthetic_kernel(d, 1.0)
        fixtures.set_section(d, "dmesg", "[    2.0] WARNING: only in dmesg\n")
        self.assertEqual(parse_results.read_kernel(d).badness, [])

    def test_numa_race(self):
        with open(os.path.join(HERE, "data", "verdicts", "pass", "stable", "results.txt")) as f:
            text = parse_results.section(parse_results.parse_sections(f.read()), "numarace")
        nr = parse_results.parse_numa_race(text)
        self.assertEqual(nr.result, "fail")
        self.assertEqual(nr.lost, parse_results.NumaLost(round=4, node=0, missed=1, waiters=8))
        self.assertEqual(nr.rounds, parse_results.NumaRounds(rounds=4, waiters=8, nodes=2))


if __name__ == "__main__":
    unittest.main()
