#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Render compare_kernels.summarize()'s dict as markdown table lines: what
compare.py prints and writes as summary.md."""

from compare_kernels import KERNELS, NOT_RESOLVED, PAIRS, SLOWER


def nodes(machine):
    """A machine's NUMA nodes, compact: "6 nodes, distances 10/12/21"."""
    if not machine or machine["nodes"] is None:
        return "?"
    n = machine["nodes"]
    dists = sorted({d for node in machine["node"].values() for d in node["distances"]})
    return f"{n} node{'s' if n != 1 else ''}" + (f", distances {'/'.join(map(str, dists))}"
                                                 if n > 1 and dists else "")


def kernel_row(name, kn):
    """One kernel's line of the header table: release, CPUs, NUMA nodes,
    accelerator, tools commit; the uname and cpus sections where a guest
    reported no machine section."""
    m = kn["machine"] or {}
    release = m.get("release") or (kn["uname"].split() + ["?"] * 3)[2]
    cpus = m.get("cpus") or (kn["cpus"].split() or ["?"])[0]
    accel = (kn["accel"] or "?").split(" ")[0]
    return f"| {name} | {release} | {cpus} | {nodes(m)} | {accel} | {m.get('tools') or '?'} |"


def kernel_rows(s):
    """The header table: each kernel's line."""
    return (["| kernel | release | CPUs | NUMA nodes | accelerator | tools |", "|---|---|---|---|---|---|"]
            + [kernel_row(name, kn) for name, kn in s["kernels"].items()])


def header(s):
    """Which kernels ran where, and which steps did not run."""
    ks = s["kernels"]
    lines = kernel_rows(s)
    kb, kp = ks["base"], ks["patched"]
    if kb["accel"] == kp["accel"]:
        lines.append(f"accelerator: {kb['accel'] or '?'}")
    else:
        lines.append(f"accelerator: base {kb['accel'] or '?'}; patched {kp['accel'] or '?'}")
    if kb["accel"].split(" ")[:1] != kp["accel"].split(" ")[:1]:
        lines.append("note: base and patched ran under different accelerators, "
                     "so their ratios below mean nothing")
    lines += [f"not run on {x['kernel']}: {x['step']}: {x['reason']}" for x in s["skipped"]]
    return lines


def _counts(k, what):
    return f"{k[what]['pass']} pass, {k[what]['fail']} fail, {k[what]['skip']} skip" if k else "-"


def kselftest_table(s):
    """Kselftest totals, failed or skipped tests and accelerator per pair."""
    lines = ["", "| kselftest futex | base | patched |", "|---|---|---|"]
    for pair in PAIRS:
        ks = [s["kselftest"].get(n, {}) for n in pair]
        if not any(ks):
            continue
        cpus = next((k["cpus"] for k in ks if k.get("cpus")), "?")
        for what in ("programs", "subtests"):
            lines.append(f"| {what}, {cpus} | {_counts(ks[0], what)} | {_counts(ks[1], what)} |")
        cells = [", ".join(k.get("failed", []) + [t + " (skip)" for t in k.get("skipped", [])])
                 or "none" if k else "-" for k in ks]
        lines.append(f"| failed or skipped, {cpus} | {cells[0]} | {cells[1]} |")
        # The first word; the header says why where it is not KVM.
        cells = [(k.get("accel") or "?").split(" ")[0] if k else "-" for k in ks]
        lines.append(f"| accelerator, {cpus} | {cells[0]} | {cells[1]} |")
    cells = []
    for n in KERNELS:
        bad = s["kernels"][n]["badness"]
        cells.append("-" if bad is None else f"{len(bad)} flagged lines" if bad else "clean")
    lines.append(f"| console | {cells[0]} | {cells[1]} |")
    return lines


def _missing(s, kernel, steps):
    """The cell of a result a kernel did not report: "not run: why" or "-"."""
    reason = next((x["reason"] for x in s["skipped"] if x["kernel"] == kernel and x["step"] in steps),
                  None)
    return f"not run: {reason}" if reason else "-"


def kind_table(s, step, title, cell):
    """One row per result kind (private, shared) of STEP, base against patched."""
    per_kernel = s[step]
    if not per_kernel and not any(x["step"] == step for x in s["skipped"]):
        return []
    lines = ["", f"| {title} | base | patched |", "|---|---|---|"]
    kinds = sorted({kind for n in per_kernel for kind in per_kernel[n]}) or ["all"]
    for kind in kinds:
        cells = [cell(per_kernel[n][kind]) if per_kernel.get(n, {}).get(kind) else _missing(s, n, (step,))
                 for n in KERNELS]
        lines.append(f"| {kind} | {cells[0]} | {cells[1]} |")
    return lines


def badinput_lines(s):
    bi = s.get("badinput")
    if not bi:
        return []
    return ["", f"malformed futex calls (guest/futex_badinput.c): {bi['calls']} calls, "
                f"{len(bi['differ'])} with a different result on the patched kernel"] + \
        [f"  {d['call']}: base {d['base']}, patched {d['patched']}" for d in bi["differ"][:20]]


def secs(run):
    """A replacement's time: "0.012 s", or "not in 15 s" where it never completed."""
    if not run:
        return "-"
    return f"{run['seconds']:.3f} s" if run["done"] else f"not in {run['seconds']:.0f} s"


def _share(refstate):
    """Share of references dropped in FR_ATOMIC (1), of all."""
    total = sum(refstate.values())
    return f"{refstate.get(1, 0) / total:.2%} of {total:,}" if total else "-"


def _ops(run):
    return f"{run['ops_per_s']:,.0f}" if run else "-"


def resize_pair_lines(pair):
    """Rows of one pair's private hash replacement runs."""
    lines = ["", f"| private hash replacement under load ({pair['cpus'] or '?'} vCPUs) "
                 "| base | patched | patched/base |", "|---|---|---|---|"]
    for r in pair["bench"]:
        what = (f"ramp to {r['threads']} threads: time to {r['slots']} slots" if r["mode"] == "ramp"
                else f"SET_SLOTS({r['slots']}){', a shrink,' if r['mode'] == 'shrink' else ''} "
                     f"with {r['threads']} threads running")
        lines.append(f"| {what} | {secs(r['base'])} | {secs(r['patched'])} | |")
        ratio = f"{r['ops_ratio']:.2f}x" if r["ops_ratio"] is not None else ""
        lines.append(f"| then ops/s, {r['threads']} threads | {_ops(r['base'])} | {_ops(r['patched'])} "
                     f"| {ratio} |")
    ref = pair["refstate"]
    if ref["base"] or ref["patched"]:
        lines.append(f"| references on the shared atomic, steady state after step refstate's ramp | "
                     f"{_share(ref['base'])} | {_share(ref['patched'])} | |")
    for t in pair["tests"]:
        what = (f"kselftest: ramp to {t['threads']} threads, time to {t['slots']} slots"
                if t["test"] == "auto" else f"kselftest: SET_SLOTS({t['slots']}) with {t['threads']} "
                                            "threads running")
        gp = " / ".join(f"{v['gp']:.3f} s" for v in (t["base"], t["patched"]) if v)
        lines.append(f"| {what} | {secs(t['base'])} | {secs(t['patched'])} | grace period {gp} |")
    return lines


def resize_table(s):
    """The private hash replacement runs, one block per vCPU count."""
    return [line for pair in s["resize"] for line in resize_pair_lines(pair)]


def value(v, unit):
    """A measurement in its unit: rates as whole numbers, times with four digits."""
    return f"{v:,.0f}" if unit.endswith("/s") else f"{v:.4g} {unit}"


def side_cell(row, kernel):
    """One kernel's median with spread and runs, or why there is none."""
    side = row[kernel]
    if side is None:
        reason = row["not_run"].get(kernel)
        return f"not run: {reason}" if reason else "-"
    evidence = "".join(f"; evidence: section \"{e}\"" for e in side.get("evidence", []))
    if side["median"] is None:
        return f"no result ({side['failed']} runs failed{evidence})"
    return (f"{value(side['median'], row['unit'])} ±{side['rsd']:.1%} ({len(side['runs'])} runs"
            + (f", {side['failed']} failed" if side["failed"] else "") + evidence + ")")


def ratio_cell(row):
    """The ratio of medians and its interval: "0.93 [0.81, 1.07]"."""
    if row["ratio"] is None:
        return "-"
    return f"{row['ratio']:.2f} [{row['ratio_lo']:.2f}, {row['ratio_hi']:.2f}]"


def _buckets(side):
    """The hash sizes perf's runs ended with: "16", or "16 (4 runs), 32 (1 run)"."""
    sizes = [b for b in (side or {}).get("buckets", []) if b is not None]
    if not sizes:
        return "?"
    if len(set(sizes)) == 1:
        return str(sizes[0])
    return ", ".join(f"{b} ({sizes.count(b)} run{'s' if sizes.count(b) > 1 else ''})"
                     for b in sorted(set(sizes)))


RATIO_NOTE = ("patched/base is patched speed over base speed: for a time (ms, s) base/patched, "
              "so >= 1 always means patched is not slower; in brackets its interval")


def interval_note(s):
    """How the intervals were drawn."""
    i = s["interval"]
    return (f"interval: {i['confidence']:.0%}, a bootstrap of the two medians over the runs "
            f"({i['resamples']} resamples, seed {i['seed']}); ±: relative standard deviation, not judged")


def bench_table(title, rows, extra=()):
    """A table of benchmark rows: [(label, row)], each with its kernels'
    medians and the ratio; EXTRA: (heading, cell(row)) columns after them."""
    if not rows:
        return []
    heads = ["base", "patched", "patched/base"] + [h for h, _ in extra]
    lines = ["", f"| {title} | " + " | ".join(heads) + " |", "|---" * (len(heads) + 1) + "|"]
    for label, row in rows:
        cells = [side_cell(row, "base"), side_cell(row, "patched"), ratio_cell(row)]
        lines.append(f"| {label} | " + " | ".join(cells + [cell(row) for _, cell in extra]) + " |")
    return lines


BUCKETS_NOTE = ("hash buckets at the end: PR_FUTEX_HASH_GET_SLOTS after the run; on a kernel "
                "whose replacement waits for the old hash's users, a replacement requested as the "
                "threads were created may still be pending then, and the size is the old one")


def hash_table(s):
    """perf bench futex hash per mode (ops/s), with the hash size each run ended with."""
    lines = bench_table("perf bench futex hash, ops/s", list(s["hash"].items()),
                        [("hash buckets at the end, base / patched",
                          lambda row: f"{_buckets(row['base'])} / {_buckets(row['patched'])}")])
    return lines + [BUCKETS_NOTE, interval_note(s)] if lines else []


def _failures(row):
    """Runs that failed (no result: an error, or killed for its time) or
    reported a failure (pi_stress), per kernel."""
    return " / ".join(str(row[n]["bad"]) if row[n] else "-" for n in KERNELS)


def verdict_line(s):
    """The rule of the block table's verdicts, and the rows it flags."""
    names = {v: [name for name, row in s["block"].items() if row["verdict"] == v] for v in (SLOWER, NOT_RESOLVED)}
    flagged = [f"{v}: {', '.join(rows)}" for v, rows in names.items() if rows]
    return (f"verdict: slower where the whole interval of patched/base lies below {s['goal']}, ok where "
            f"it lies at or above it, not resolved where it straddles it or a kernel has fewer than "
            f"{s['interval']['min_runs']} runs, failed where a run failed or pi_stress reported a failure; "
            + ("; ".join(flagged) if flagged else "every row run on both is ok"))


def block_table(s):
    """The blocking paths, each with its verdict against the goal."""
    rows = [(f"{name}, {row['unit']}", row) for name, row in s["block"].items()]
    lines = bench_table("blocking paths", rows, [("failures, base / patched", _failures),
                                                 ("verdict", lambda row: row["verdict"])])
    if not lines:
        return []
    over = s.get("overcommitted")
    return lines + [verdict_line(s)] + \
        ([f"timings measured only, a slower row fails nothing: {'; '.join(over)}; make cost boots "
          f"guests with no more vCPUs than host CPUs"] if over else []) + [RATIO_NOTE, interval_note(s)]


def scale_table(s):
    """perf bench futex hash per op and thread count (ops/s)."""
    lines = bench_table("scale: op, threads, ops/s",
                        [(f"{op}, {threads if threads is not None else 'default'}", row)
                         for op, rows in s["scale"].items() for threads, row in rows.items()])
    return lines + [interval_note(s)] if lines else []


def _icount_cell(ic, row, label):
    """One kernel's figure, with the delta from the kernel before it."""
    v, step = row["values"][label], row["steps"][label]
    if v is None:
        return "-"
    return f"{v:.1f}" + (f" ({step:+.1f})" if step is not None and label != ic["kernels"][0] else "")


def _icount_rule(row):
    """The row's line of configs/icount-paths, in words."""
    return f"{row['series']}, at most {row['allow']:+d}" + (f" and {row['ref']}" if row["ref"] else "")


def icount_table(s):
    """Instructions per call of each path, per kernel, with the series'
    delta and the verdict by configs/icount-paths."""
    ic = s.get("icount")
    if not ic:
        return []
    labels = ic["kernels"]
    heads = labels + ["delta", "delta %", "rule", "verdict"]
    lines = ["", "| instructions per call | " + " | ".join(heads) + " |", "|---" * (len(heads) + 1) + "|"]
    for r in ic["rows"]:
        cells = [_icount_cell(ic, r, label) for label in labels]
        cells += ["-" if r["delta"] is None else f"{r['delta']:+.1f}",
                  "-" if r["pct"] is None else f"{r['pct']:+.2f}%", _icount_rule(r), r["verdict"]]
        lines.append(f"| {r['path']} | " + " | ".join(cells) + " |")
    lines.append("icount: one vCPU under QEMU's -icount (doc/icount.md), where a guest nanosecond is an "
                 "instruction: figures are instructions per call (the user loop and syscall entry "
                 "included), the least of futex_icount's repetitions, the same in every boot within a "
                 "timer tick over the loop's calls; in "
                 "brackets the delta from the kernel to the left. They count instructions only: not "
                 "cache misses, the cost of a barrier or an atomic, contention or preemption.")
    lines += [f"icount errors on {label}: {'; '.join(e)}" for label, e in ic["errors"].items()]
    if ic["unknown"]:
        lines.append("icount paths not in configs/icount-paths: " + ", ".join(ic["unknown"]))
    if ic.get("repeat") is not None:
        lines.append("icount repeat: " + ("every figure the same in both boots of " + ic["repeat"]["kernel"]
                                          if not ic["repeat"]["differ"] else
                                          "differ between two boots of " + ic["repeat"]["kernel"] + ": "
                                          + ", ".join(ic["repeat"]["differ"])))
    return lines


def plot_lines(plots):
    """Links to the plots, or the line saying why there are none."""
    if plots is None:
        return []
    if isinstance(plots, str):
        return ["", plots]
    return ["", "plots: " + ", ".join(f"[{p}]({p})" for p in plots)] if plots else []


def table(s, plots=None):
    """The summary as markdown-style table lines; PLOTS: the plot files
    to link, or a line saying why none were drawn. A summary of make
    icount has the kernels and their instructions per call alone."""
    if "kselftest" not in s:
        return kernel_rows(s) + icount_table(s) + plot_lines(plots)
    return (header(s) + kselftest_table(s)
            + kind_table(s, "precheck", "mismatched waits reaching the bucket",
                         lambda v: f"{v['bucket']} of {v['waits']}")
            + kind_table(s, "waiters", "wakes with nobody waiting that saw a waiter count",
                         lambda v: f"{v['busy']} of {v['wakes']} after {v['aborted']} aborted "
                                   f"waits; waiter woken: {v['woken']}")
            + badinput_lines(s) + resize_table(s) + hash_table(s) + block_table(s) + scale_table(s)
            + icount_table(s) + plot_lines(plots))
