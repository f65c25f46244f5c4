#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Set two parsed kernels against each other: the summary dict.

summarize() takes what parse_results.read_kernel() returned for "base" and
"patched", and optionally for the pair booted with more vCPUs
("base-many", "patched-many"), and returns plain data (lists, dicts,
numbers, strings) for the renderers: render_md, render_data, render_plot.

Throughput is the median of the runs with its relative standard deviation
(shown, never judged); the ratio is the patched kernel's speed over the
base kernel's, the ratio of the medians (patched/base where higher is
better, base/patched where lower is better, so >= 1 always means patched
is not slower), with a confidence interval from a bootstrap over the runs.
A block row's verdict is read off that interval against GOAL (verdict()).
"""

import math
import os
import random
import re
import statistics

import compare_icount
from parse_results import badinput_diff, plain, with_evidence

KERNELS = ("base", "patched")
# The pairs of guests that are set against each other.
PAIRS = (KERNELS, ("base-many", "patched-many"))
# make run's guests of step icount (scenario icount), if it booted them.
ICOUNT = ("icount-base", "icount-patched")
# The blocking paths must not get slower: patched/base at least this,
# over the whole confidence interval of the ratio.
GOAL = 0.98
# The ratio's interval: each kernel's runs resampled with replacement,
# independently, RESAMPLES times; the ratio of the resampled medians, its
# (1 - CONFIDENCE) / 2 and (1 + CONFIDENCE) / 2 percentiles. A fixed SEED,
# so that the same runs always give the same interval.
CONFIDENCE = 0.95
RESAMPLES = 2000
SEED = 20250101
# Fewer runs than this on either kernel: the interval is the point itself,
# so the row cannot be resolved, whatever its ratio.
MIN_RUNS = 2
# A block row's verdicts.
OK, SLOWER, NOT_RESOLVED, FAILED, NOT_RUN = "ok", "slower", "not resolved", "failed", "not run"
# The steps whose skip marks a bench group's rows "not run".
GROUP_STEPS = {"hash": ("hash",), "block": ("block",), "scale": ("scale",)}


def spread(values):
    """Median and relative standard deviation (0 for a single run)."""
    med = statistics.median(values)
    if len(values) < 2 or med == 0:
        return med, 0.0
    return med, statistics.stdev(values) / statistics.mean(values)


def speed_ratio(mb, mp, higher=True):
    """Patched speed over base speed of two medians: MP/MB where HIGHER is
    better, else MB/MP; infinite where the divisor is 0."""
    num, den = (mp, mb) if higher else (mb, mp)
    return num / den if den else math.inf


def _percentile(ordered, q):
    """The Q quantile of sorted ORDERED, by nearest rank (no arithmetic on
    the values, which may be infinite)."""
    return ordered[round(q * (len(ordered) - 1))]


def interval(base, patched, higher=True):
    """The CONFIDENCE interval (lo, hi) of speed_ratio() of the medians of
    BASE and PATCHED: a percentile bootstrap, each kernel's runs resampled
    with replacement, independently; seeded, so reproducible."""
    rng = random.Random(SEED)
    ratios = sorted(speed_ratio(statistics.median(rng.choices(base, k=len(base))),
                                statistics.median(rng.choices(patched, k=len(patched))), higher)
                    for _ in range(RESAMPLES))
    tail = (1 - CONFIDENCE) / 2
    return _percentile(ratios, tail), _percentile(ratios, 1 - tail)


def ratio(base, patched, higher=True):
    """Patched speed over base speed (ratio of medians) and its interval,
    (ratio, lo, hi): patched/base where HIGHER is better, else base/patched."""
    r = speed_ratio(statistics.median(base), statistics.median(patched), higher)
    return (r, *interval(base, patched, higher))


def skip_reason(kernel, steps, program=None):
    """Why one kernel did not run STEPS (its skip sections), or None; with
    PROGRAM, only a reason that names it (a step skips each missing
    program on a line of its own): a benchmark that is missing for no
    reason given stays a failure."""
    reasons = [s.reason for s in (kernel.skips if kernel else []) if s.step in steps]
    return next((r for r in reasons if program is None or program in r), None)


def _side(runs):
    """One kernel's runs of one row: median, spread, min, max, values."""
    # A run that ended with an error, or was killed for its time (a
    # lost wakeup leaves a benchmark blocked), has no value.
    values = [r.value for r in runs if r.value is not None]
    med, rsd = spread(values) if values else (None, 0.0)
    return {"median": med, "rsd": rsd, "runs": values,
            "min": min(values) if values else None, "max": max(values) if values else None,
            "failed": len(runs) - len(values), "command": runs[0].command,
            "failures": [r.failure for r in runs if r.failure],
            "bad": sum(1 for r in runs if r.value is None or r.failure),
            "evidence": sorted({r.evidence for r in runs if r.evidence}),
            "buckets": [r.buckets for r in runs]}


def metric_row(runs, reasons):
    """A row of one benchmark: {"unit", "higher", KERNEL: side or None,
    "ratio", "ratio_lo", "ratio_hi", "not_run": {KERNEL: reason}}; RUNS
    holds each kernel's runs (parse_results.Bench), REASONS each kernel's skip reason."""
    first = next(r for n in KERNELS for r in runs[n])
    row = {"unit": first.unit, "higher": first.higher, "ratio": None, "ratio_lo": None,
           "ratio_hi": None, "not_run": {n: reasons[n] for n in KERNELS if not runs[n] and reasons[n]}}
    for n in KERNELS:
        row[n] = _side(runs[n]) if runs[n] else None
    b, p = row["base"], row["patched"]
    if b and p and b["runs"] and p["runs"]:
        row["ratio"], row["ratio_lo"], row["ratio_hi"] = ratio(b["runs"], p["runs"], first.higher)
    return row


def verdict(row):
    """A block row's verdict: FAILED where a run failed (gave no result,
    ended with an error or was killed for its time) or reported a failure
    (pi_stress), or a kernel has no runs for no reason given; NOT_RUN where
    a kernel did not run it (a skip section says why); NOT_RESOLVED with
    fewer than MIN_RUNS runs on a kernel; else by the ratio's interval
    against GOAL: SLOWER when it lies wholly below, OK when at or above,
    NOT_RESOLVED when it straddles GOAL (more runs might tell)."""
    if any(row[n] and (row[n]["failures"] or row[n]["failed"]) for n in KERNELS):
        return FAILED
    if row["not_run"]:
        return NOT_RUN
    if row["ratio"] is None:
        return FAILED
    if min(len(row[n]["runs"]) for n in KERNELS) < MIN_RUNS:
        return NOT_RESOLVED
    if row["ratio_hi"] < GOAL:
        return SLOWER
    return OK if row["ratio_lo"] >= GOAL else NOT_RESOLVED


def bench_rows(k, group, key):
    """{key: metric_row} for GROUP's bench sections of both kernels, in the
    order they ran; KEY(run) names a row."""
    runs = {}
    for n in KERNELS:
        for r in k[n].bench:
            if r.group == group:
                runs.setdefault(key(r), {m: [] for m in KERNELS})[n].append(r)
    def reasons(per_kernel):
        """Each kernel's reason for not running the program of a row."""
        command = next(r.command for n in KERNELS for r in per_kernel[n])
        program = os.path.basename(command.split()[0]) if command else None
        return {n: skip_reason(k[n], GROUP_STEPS[group], program) for n in KERNELS}
    return {name: metric_row(per_kernel, reasons(per_kernel)) for name, per_kernel in runs.items()}


def scale_rows(k):
    """{op: {threads: metric_row}}: the scale group, per op and thread count."""
    out = {}
    for (op, threads), row in bench_rows(k, "scale", lambda r: (r.name, r.threads)).items():
        out.setdefault(op, {})[threads] = row
    return {op: dict(sorted(rows.items(), key=lambda x: x[0] or 0)) for op, rows in out.items()}


def block_rows(k):
    """The block group's rows, each with its verdict against GOAL."""
    rows = bench_rows(k, "block", lambda r: r.name)
    for row in rows.values():
        row["verdict"] = verdict(row)
    return rows


def pair_rows(left, right, key):
    """Entries of two lists matched by KEY: [(key, left one, right one)],
    None where one side has none."""
    keys = sorted({key(e) for e in left + right})
    return [(x, next((e for e in left if key(e) == x), None), next((e for e in right if key(e) == x), None))
            for x in keys]


def _bench_key(run):
    """Ramp runs first, then SET_SLOTS, each by thread count."""
    return (run.mode != "ramp", run.threads, run.mode)


def resize_pair(kb, kp):
    """The private hash replacement runs of one pair of guests: resizebench
    runs (ResizeRun) and futex_hash_resize measurements (ResizeTest),
    matched by mode and threads."""
    rb, rp = (kb.resizebench if kb else None), (kp.resizebench if kp else None)
    runs_b, runs_p = (rb.runs if rb else []), (rp.runs if rp else [])
    tb, tp = (kb.resize if kb else None) or [], (kp.resize if kp else None) or []
    cpus = next((r.cpus for r in runs_b + runs_p + tb + tp), None)
    bench = [{"mode": (vb or vp).mode, "threads": (vb or vp).threads, "slots": (vb or vp).slots,
              "base": vb, "patched": vp,
              "ops_ratio": vp.ops_per_s / vb.ops_per_s if vb and vp and vb.ops_per_s else None}
             for _, vb, vp in pair_rows(runs_b, runs_p, _bench_key)]
    tests = [{"test": (vb or vp).test, "threads": (vb or vp).threads, "slots": (vb or vp).slots,
              "base": vb, "patched": vp}
             for _, vb, vp in pair_rows(tb, tp, lambda t: (t.test, t.threads))]
    return {"cpus": cpus, "bench": bench, "tests": tests,
            "refstate": {"base": rb.refstate if rb else {}, "patched": rp.refstate if rp else {}}}


def resize_rows(k):
    """resize_pair() for each pair of guests that reported any."""
    out = []
    for b, p in PAIRS:
        r = resize_pair(k.get(b), k.get(p))
        if r["bench"] or r["tests"]:
            out.append({"kernels": [b, p], **r})
    return out


def replacement_rows(resize):
    """SET_SLOTS latency under load per vCPU count, at each thread count
    resizebench's set mode ran (guest/steps/resizebench.sh says which):
    [{"cpus", "rows": [{"threads", "slots", KERNEL: {"seconds", "done"}}]}];
    a run that never completed has its limit as seconds and done False."""
    out = []
    for pair in resize:
        rows = [{"threads": r["threads"], "slots": r["slots"],
                 **{n: {"seconds": r[n].seconds, "done": r[n].done} if r[n] else None
                    for n in KERNELS}}
                for r in pair["bench"] if r["mode"] == "set"]
        if rows:
            out.append({"cpus": pair["cpus"], "rows": rows})
    return out


def kselftest_rows(k):
    """Kselftest totals of every guest, failed programs naming their evidence."""
    out = {}
    for name, kn in k.items():
        ks = kn.kselftest if kn else None
        if ks:
            out[name] = {"cpus": kn.cpus, "accel": kn.accel,
                         "programs": ks.programs, "subtests": ks.subtests,
                         "failed": [with_evidence(name, f, kn.evidence) for f in ks.failed],
                         "skipped": sorted(t for t, v in ks.results.items() if v == "skip")}
    return out


def badinput_rows(k):
    """How many malformed calls ran, and those whose result differs."""
    b, p = k["base"].badinput, k["patched"].badinput
    if not b or not p:
        return None
    return {"calls": len(p.calls),
            "differ": [{"call": c, "base": rb, "patched": rp} for c, rb, rp in badinput_diff(b, p)]}


def icount_pair(k):
    """Instructions per call, base against patched (compare_icount.chain()):
    from the ICOUNT guests where K has them, else from the two kernels'
    own icount sections; None where neither kernel counted."""
    names = ICOUNT if all(n in k for n in ICOUNT) else KERNELS
    ics = [(label, k[n].icount) for label, n in zip(KERNELS, names)]
    return compare_icount.chain(ics) if any(ic for _, ic in ics) else None


def kernel_info(kn):
    """What the header says of one kernel, as plain data."""
    return {key: plain(getattr(kn, key)) for key in ("dir", "uname", "cpus", "accel", "host_cpus", "badness",
                                                     "machine", "skips")}


def vcpus(kn):
    """The CPUs a kernel ran on, or None."""
    if kn.machine and kn.machine.cpus:
        return kn.machine.cpus
    m = re.match(r"\d+", kn.cpus or "")
    return int(m.group(0)) if m else None


def overcommitted(kernels):
    """Of the base and patched kernels, those whose guest had more vCPUs
    than its host has CPUs, as phrases: their timings measure how the host
    schedules the vCPUs, and decide nothing (make cost boots guests that
    fit). A native run, or a folder that does not say, is not one."""
    out = []
    for name in KERNELS:
        kn = kernels.get(name)
        n, host = (vcpus(kn), kn.host_cpus) if kn else (None, None)
        if n and host and n > host:
            out.append(f"{name}: {n} vCPUs on {host} host CPUs")
    return out


def summarize(k):
    """The comparison of K, {"base": read_kernel(), "patched": ..., and
    optionally "base-many", "patched-many"}, as one dict of plain data."""
    k = {name: kn for name, kn in k.items() if kn is not None}
    resize = resize_rows(k)
    return plain({
        "kernels": {name: kernel_info(kn) for name, kn in k.items()},
        "kselftest": kselftest_rows(k),
        "precheck": {n: {kind: {"waits": w, "bucket": b} for kind, (w, b) in k[n].precheck.items()}
                     for n in KERNELS if k[n].precheck},
        "waiters": {n: k[n].waiters.kinds for n in KERNELS if k[n].waiters and k[n].waiters.kinds},
        "badinput": badinput_rows(k),
        "resize": resize,
        "replacement": replacement_rows(resize),
        "hash": bench_rows(k, "hash", lambda r: r.name),
        "block": block_rows(k),
        # Why the block rows' timings decide nothing, if they do not.
        "overcommitted": overcommitted(k),
        "scale": scale_rows(k),
        "icount": icount_pair(k),
        "skipped": [{"kernel": name, **plain(s)} for name, kn in k.items() for s in kn.skips],
        "goal": GOAL,
        # How each ratio's interval was drawn, and when a row is resolved.
        "interval": {"confidence": CONFIDENCE, "resamples": RESAMPLES, "seed": SEED, "min_runs": MIN_RUNS},
    })


def regressions(s):
    """What makes summary S a regression, as phrases (none: it is not one):
    a failed kselftest program on a patched guest (the second of each of
    PAIRS, whatever base did: the series must pass them all), block rows
    that are SLOWER (unless the guests were overcommitted(): a measurement
    then) or FAILED, and icount paths that fail their line of
    configs/icount-paths. NOT_RESOLVED and NOT_RUN are none."""
    out = [f"{n}: kselftest failed: {', '.join(s['kselftest'][n]['failed'])}"
           for _, n in PAIRS if s["kselftest"].get(n, {}).get("failed")]
    for v in (FAILED,) if s.get("overcommitted") else (SLOWER, FAILED):
        rows = [name for name, row in s["block"].items() if row["verdict"] == v]
        if rows:
            out.append(f"block rows {v}: {', '.join(rows)}")
    if s["icount"] and compare_icount.failures(s["icount"]):
        out.append("instructions per call: " + ", ".join(compare_icount.failures(s["icount"])))
    return out
