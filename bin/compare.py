#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Stage "compare": read what the guests reported and set base against patched.

Usage: bin/compare.py RUN_DIR

RUN_DIR holds one folder per kernel (base/, patched/), each with the section
files bin/boot.sh split out of the guest's results port, and optionally a
second pair booted with more vCPUs for the private hash replacement runs
(base-many/, patched-many/). Prints one table and writes summary.json,
summary.tsv and summary.md into RUN_DIR.

Throughput is reported as the median of the runs with its relative standard
deviation; the patched/base ratio is the ratio of the medians, and its
spread combines both relative deviations (sqrt(a^2 + b^2)). Under emulation
only such ratios mean anything.
"""

import json
import math
import os
import re
import statistics
import subprocess
import sys
from dataclasses import dataclass, field

KERNELS = ("base", "patched")
# The pairs of guests whose private hash replacement results are compared.
RESIZE_PAIRS = (("base", "patched"), ("base-many", "patched-many"))
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREE = os.environ.get("TREE", os.path.join(TOP, "build", "tree"))


@dataclass
class Kselftest:
    """Totals of one kselftest run: test programs and their subtests."""
    programs: dict = field(default_factory=lambda: {"pass": 0, "fail": 0, "skip": 0})
    subtests: dict = field(default_factory=lambda: {"pass": 0, "fail": 0, "skip": 0})
    results: dict = field(default_factory=dict)   # "prog:subtest" -> pass/fail/skip
    failed: list = field(default_factory=list)    # programs that failed or timed out
    timeouts: list = field(default_factory=list)  # programs stopped for their time


_TOP = re.compile(r"^(not )?ok \d+ selftests: \S+: (\S+)(.*)$")
# A nested "ok N # SKIP why" without a name counts as a skip as well.
_SUB = re.compile(r"^# (not )?ok \d+ (.*?)(\s*#\s*(SKIP|XFAIL|TODO).*)?$")


# guest/run.sh: "evidence STEP TEST", what the threads of a kselftest program
# that was killed for its time were doing (guest/evidence.sh); bin/boot.sh
# turns the spaces of a section's name into "_".
_EVIDENCE = re.compile(r"^evidence_([a-z]+)_(\w+)$")


def evidence_files(d, steps=("kselftest", "resize")):
    """{test program: section file name} for the evidence of STEPS in D."""
    out = {}
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        m = _EVIDENCE.match(name)
        if m and m.group(1) in steps:
            out.setdefault(m.group(2), name)
    return out


def _verdict(not_ok, rest):
    if rest and re.search(r"#\s*SKIP", rest):
        return "skip"
    return "fail" if not_ok else "pass"


def parse_kselftest(text):
    """Parse run_kselftest.sh output: top-level TAP plus nested subtests."""
    ks = Kselftest()
    current = None
    timed_out = False
    for line in text.splitlines():
        m = _TOP.match(line)
        if m:
            v = _verdict(m.group(1), m.group(3))
            ks.programs[v] += 1
            if v == "fail":
                ks.failed.append(m.group(2) + m.group(3))
            if timed_out or "TIMEOUT" in m.group(3):
                ks.timeouts.append(m.group(2))
            current, timed_out = None, False
            continue
        # kselftest_harness.h, for a test case that ran out of time
        if line.startswith("# ") and line.endswith(": Test terminated by timeout"):
            timed_out = True
        if line.startswith("# selftests: "):
            current = line.split(": ", 2)[-1].strip()
            continue
        m = _SUB.match(line)
        if m and current:
            v = _verdict(m.group(1), m.group(3))
            ks.subtests[v] += 1
            ks.results[f"{current}:{m.group(2).strip()}"] = v
    return ks


def parse_precheck(text):
    """Lines "private waits=N bucket=M" -> {"private": (N, M)}."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(\w+) waits=(\d+) bucket=(\d+)$", line.strip())
        if m:
            out[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return out


def parse_waiters(text):
    """Lines "private aborted=A wakes=W busy=B ..." -> {"private": {...}};
    "error ..." lines -> {"error": [...]}."""
    out = {}
    for line in text.splitlines():
        words = line.split()
        if words and words[0] == "error":
            out.setdefault("error", []).append(line.strip())
        elif len(words) > 1 and all(re.match(r"^\w+=\d+$", w) for w in words[1:]):
            out[words[0]] = {k: int(v) for k, v in (w.split("=") for w in words[1:])}
    return out


_RESIZE = re.compile(r"(auto resize|set slots) to (\d+)(?: slots)?: (\d+) threads, (\d+) CPUs, "
                     r"(done|not done) after ([\d.]+) s, grace period ([-\d.]+) s")


_BADINPUT = re.compile(r"^(\d+) (.*) -> (-?\d+) (\S+)$")


def parse_badinput(text):
    """futex_badinput's lines -> {"calls": {call: "RET ERRNO"}, "total": N,
    "errors": [...]}."""
    out = {"calls": {}, "total": None, "errors": []}
    for line in text.splitlines():
        m = _BADINPUT.match(line)
        if m:
            out["calls"][m.group(2)] = f"{m.group(3)} {m.group(4)}"
        elif line.startswith("total "):
            out["total"] = int(line.split()[1])
        elif line.startswith("error "):
            out["errors"].append(line[6:])
    return out


def parse_failfutex(text):
    """The fault injection step -> {"faults", "calls", "programs", "listed",
    "timeouts", "badinput_rc", "stress_rc", "stress_ops", "errors"}: faults
    injected out of calls of should_fail_futex(), and how the programs
    ended (programs: how many the runner reported, of listed)."""
    out = {"faults": 0, "calls": 0, "programs": 0, "listed": 0, "timeouts": [],
           "badinput_rc": None, "stress_rc": None, "stress_ops": 0, "errors": []}
    for line in text.splitlines():
        w = line.split()
        kv = dict(x.split("=", 1) for x in w[1:] if "=" in x)
        if line.startswith("sites ret="):
            out["calls"] += int(w[2])
            if kv["ret"] == "1":
                out["faults"] = int(w[2])
        elif line.startswith("programs "):
            out["programs"] = int(w[1])
            out["listed"] = int(w[3]) if len(w) > 3 else 0
        elif line.startswith("timeout "):
            out["timeouts"].append(w[1])
        elif line.startswith("badinput rc="):
            out["badinput_rc"] = int(kv["rc"])
        elif line.startswith("stress-ng rc="):
            out["stress_rc"] = int(kv["rc"])
            out["stress_ops"] = int(kv.get("ops") or 0)
        elif line.startswith("error "):
            out["errors"].append(line[6:])
    return out


def parse_soak(text):
    """The soak step -> {"stress_rc": rc, "perf": {bench: (runs, rc)}, "errors"}."""
    out = {"stress_rc": None, "perf": {}, "errors": []}
    for line in text.splitlines():
        w = line.split()
        kv = dict(x.split("=", 1) for x in w if "=" in x)
        if line.startswith("stress-ng rc="):
            out["stress_rc"] = int(kv["rc"])
        elif line.startswith("perf ") and "runs" in kv:
            out["perf"][w[1]] = (int(kv["runs"]), int(kv["rc"]))
        elif line.startswith("error "):
            out["errors"].append(line[6:])
    return out


def badinput_diff(base, patched):
    """Calls whose results differ between two parse_badinput() results."""
    calls = sorted(set(base["calls"]) | set(patched["calls"]))
    return [(c, base["calls"].get(c, "missing"), patched["calls"].get(c, "missing"))
            for c in calls if base["calls"].get(c) != patched["calls"].get(c)]


def parse_resize(text):
    """futex_hash_resize's measurements -> [{"test", "slots", "threads",
    "cpus", "done", "seconds", "gp"}]."""
    out = []
    for line in text.splitlines():
        m = _RESIZE.search(line)
        if m:
            out.append({"test": "auto" if m.group(1) == "auto resize" else "set",
                        "slots": int(m.group(2)), "threads": int(m.group(3)),
                        "cpus": int(m.group(4)), "done": m.group(5) == "done",
                        "seconds": float(m.group(6)), "gp": float(m.group(7))})
    return out


def parse_resizebench(text):
    """futex_resize_bench lines and reference-state counts ->
    {"runs": [{mode, threads, cpus, slots, done, seconds, ops_per_s}],
     "refstate": {state: hits}}."""
    out = {"runs": [], "refstate": {}}
    for line in text.splitlines():
        kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
        if line.startswith("mode="):
            out["runs"].append({"mode": kv["mode"], "threads": int(kv["threads"]),
                                "cpus": int(kv["cpus"]), "slots": int(kv["slots"]),
                                "done": kv["done"] == "1", "seconds": float(kv["seconds"]),
                                "ops_per_s": float(kv["ops_per_s"])})
        elif line.startswith("refstate "):
            out["refstate"][int(kv["state"])] = int(kv["hits"])
    return out


_AVG = re.compile(r"Averaged (\d+) operations/sec")


def parse_perf(text):
    """The averaged ops/s of one perf bench futex hash run, or None."""
    m = _AVG.search(text)
    return int(m.group(1)) if m else None


_BUCKETS = re.compile(r"^Futex hashing: (?:global hash|.*?(\d+) (?:hash )?buckets)", re.M)
_RAMP = re.compile(r"^ *[\d.]+ s: (?:global hash|(\d+) hash buckets)$", re.M)


def parse_perf_buckets(text):
    """The hash size a perf bench futex hash run ended with (0: global hash):
    with --ramp, the last size seen while the threads ran (the summary line
    comes after they stopped, when a stuck replacement completes)."""
    ramp = _RAMP.findall(text)
    if ramp:
        return int(ramp[-1]) if ramp[-1] else 0
    m = _BUCKETS.search(text)
    return (int(m.group(1)) if m.group(1) else 0) if m else None


def badness(console, tree=None):
    """Lines of a guest console that rcutorture's console-badness.sh flags,
    the script taken from TREE (the kernel tree) unless given another."""
    script = os.path.join(tree or TREE, "tools/testing/selftests/rcutorture/bin/console-badness.sh")
    if not os.path.exists(console) or not os.path.exists(script):
        return None
    with open(console, errors="replace") as f:
        r = subprocess.run(["bash", script], stdin=f, capture_output=True, text=True)
    return r.stdout.splitlines()


def read_kernel(d):
    """Everything one guest reported, from its section files."""
    def read(name):
        p = os.path.join(d, name)
        if not os.path.exists(p):
            return None
        with open(p, errors="replace") as f:
            return f.read()

    perf, buckets = {}, {}
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        m = re.match(r"^perf_hash(.*)_#(\d+)$", name)
        if m:
            args = m.group(1).replace("_", " ").strip() or "(default)"
            text = read(name)
            v = parse_perf(text)
            if v is not None:
                perf.setdefault(args, []).append(v)
                buckets.setdefault(args, []).append(parse_perf_buckets(text))
    # The resize step runs one kselftest program through the same runner.
    tap = [t for t in (read("kselftest"), read("resize")) if t is not None]
    ks = "".join(tap) if tap else None
    pc = read("precheck")
    wt = read("waiters")
    rb = read("resizebench")
    bi = read("badinput")
    ff = read("failfutex")
    sk = read("soak")
    nr = read("numarace")
    fr = read("firstrun")
    return {
        "end": read("end"),
        "kselftest_text": ks,
        "numarace": nr,
        "firstrun": fr,
        "uname": (read("uname") or "").strip(),
        "cpus": (read("cpus") or "").strip(),
        # bin/boot.sh: "kvm", "tcg", or "tcg (KVM unusable: why)".
        "accel": (read("accel") or "").strip(),
        "kselftest": parse_kselftest(ks) if ks is not None else None,
        "precheck": parse_precheck(pc) if pc is not None else None,
        "waiters": parse_waiters(wt) if wt is not None else None,
        "resize": parse_resize(ks or ""),
        "resizebench": parse_resizebench(rb) if rb is not None else None,
        "badinput": parse_badinput(bi) if bi is not None else None,
        "failfutex": parse_failfutex(ff) if ff is not None else None,
        "soak": parse_soak(sk) if sk is not None else None,
        "perf": perf,
        "perf_buckets": buckets,
        "badness": badness(os.path.join(d, "console.log")),
        "evidence": evidence_files(d),
        "evidence_all": {step: evidence_files(d, (step,))
                         for step in ("kselftest", "resize", "numarace", "firstrun", "failfutex")},
    }


def spread(values):
    """Median and relative standard deviation (0 for a single run)."""
    med = statistics.median(values)
    if len(values) < 2 or med == 0:
        return med, 0.0
    return med, statistics.stdev(values) / statistics.mean(values)


def ratio(base, patched):
    """Ratio of medians and its combined relative spread."""
    mb, sb = spread(base)
    mp, sp = spread(patched)
    return (mp / mb if mb else math.inf), math.hypot(sb, sp)


def with_evidence(name, failed, evidence):
    """A failed program's entry, naming the evidence its guest recorded."""
    f = evidence.get(failed.split()[0])
    return f"{failed} (evidence: {name}/{f})" if f else failed


def summarize(run):
    """Build the comparison rows from both kernels' reports."""
    k = {name: read_kernel(os.path.join(run, name)) for name in KERNELS}
    out = {"kernels": {n: {"uname": k[n]["uname"], "cpus": k[n]["cpus"],
                           "accel": k[n]["accel"], "badness": k[n]["badness"]}
                       for n in KERNELS},
           "kselftest": {}, "precheck": {}, "waiters": {}, "perf": {}, "badinput": None}
    for name in [n for pair in RESIZE_PAIRS for n in pair]:
        d = os.path.join(run, name)
        kn = k[name] if name in k else (read_kernel(d) if os.path.isdir(d) else None)
        ks = kn["kselftest"] if kn else None
        if ks:
            out["kselftest"][name] = {
                "cpus": kn["cpus"], "accel": kn["accel"],
                "programs": ks.programs, "subtests": ks.subtests,
                "failed": [with_evidence(name, f, kn["evidence"]) for f in ks.failed],
                "skipped": sorted(t for t, v in ks.results.items() if v == "skip")}
    for name in KERNELS:
        if k[name]["precheck"]:
            out["precheck"][name] = {kind: {"waits": w, "bucket": b}
                                     for kind, (w, b) in k[name]["precheck"].items()}
    for name in KERNELS:
        if k[name]["waiters"]:
            out["waiters"][name] = k[name]["waiters"]
    if k["base"]["badinput"] and k["patched"]["badinput"]:
        diff = badinput_diff(k["base"]["badinput"], k["patched"]["badinput"])
        out["badinput"] = {"calls": len(k["patched"]["badinput"]["calls"]),
                           "differ": [{"call": c, "base": b, "patched": p} for c, b, p in diff]}
    out["resize"] = {}
    for pair in RESIZE_PAIRS:
        for name in pair:
            d = os.path.join(run, name)
            kn = k[name] if name in k else (read_kernel(d) if os.path.isdir(d) else None)
            if kn and (kn["resize"] or kn["resizebench"]):
                out["resize"][name] = {"tests": kn["resize"], "bench": kn["resizebench"]}
    for args in sorted(set(k["base"]["perf"]) & set(k["patched"]["perf"])):
        b, p = k["base"]["perf"][args], k["patched"]["perf"][args]
        (mb, sb), (mp, sp) = spread(b), spread(p)
        r, sr = ratio(b, p)
        out["perf"][args] = {"base": {"median": mb, "rsd": sb, "runs": b,
                                      "buckets": k["base"]["perf_buckets"][args]},
                             "patched": {"median": mp, "rsd": sp, "runs": p,
                                         "buckets": k["patched"]["perf_buckets"][args]},
                             "ratio": r, "ratio_spread": sr}
    return out


def _kinds(per_kernel):
    """The result kinds (private, shared) that any kernel reported."""
    return sorted({kind for n in per_kernel for kind in per_kernel[n] if kind != "error"})


def _kind_table(title, per_kernel, cell):
    """One row per result kind (private, shared), base against patched."""
    if not per_kernel:
        return []
    lines = ["", f"| {title} | base | patched |", "|---|---|---|"]
    for kind in _kinds(per_kernel):
        cells = []
        for n in KERNELS:
            v = per_kernel.get(n, {}).get(kind)
            cells.append(cell(v) if v else "-")
        lines.append(f"| {kind} | {cells[0]} | {cells[1]} |")
    return lines


def _secs(done, seconds):
    return f"{seconds:.3f} s" if done else f"not in {seconds:.0f} s"


def _share(refstate):
    """Share of references dropped in FR_ATOMIC (1), of all."""
    total = sum(refstate.values())
    return f"{refstate.get(1, 0) / total:.2%} of {total:,}" if total else "-"


def resize_table(res):
    """Rows for the private hash replacement runs, one block per vCPU count."""
    lines = []
    for b, p in RESIZE_PAIRS:
        if b not in res and p not in res:
            continue
        rb = (res.get(b) or {}).get("bench") or {"runs": [], "refstate": {}}
        rp = (res.get(p) or {}).get("bench") or {"runs": [], "refstate": {}}
        runs = rb["runs"] + rp["runs"]
        tests = [t for n in (b, p) for t in (res.get(n) or {}).get("tests", [])]
        cpus = (runs or tests or [{"cpus": "?"}])[0]["cpus"]
        lines.append("")
        lines.append(f"| private hash replacement under load ({cpus} vCPUs) | base | patched | patched/base |")
        lines.append("|---|---|---|---|")
        keys = sorted({(r["mode"], r["threads"]) for r in runs}, key=lambda x: (x[0] != "ramp", x[1]))
        for mode, n in keys:
            vb = next((r for r in rb["runs"] if (r["mode"], r["threads"]) == (mode, n)), None)
            vp = next((r for r in rp["runs"] if (r["mode"], r["threads"]) == (mode, n)), None)
            what = (f"ramp to {n} threads: time to {(vb or vp)['slots']} slots" if mode == "ramp"
                    else f"SET_SLOTS({(vb or vp)['slots']}) with {n} threads running")
            lines.append(f"| {what} | {_secs(vb['done'], vb['seconds']) if vb else '-'}"
                         f" | {_secs(vp['done'], vp['seconds']) if vp else '-'} | |")
            ratio = f"{vp['ops_per_s'] / vb['ops_per_s']:.2f}x" if vb and vp and vb["ops_per_s"] else ""
            lines.append(f"| then ops/s, {n} threads | {vb['ops_per_s']:,.0f} |" if vb else "| then ops/s | - |")
            lines[-1] += f" {vp['ops_per_s']:,.0f} | {ratio} |" if vp else " - | |"
        if rb["refstate"] or rp["refstate"]:
            lines.append(f"| references on the shared atomic, steady state after a ramp to 64 threads | "
                         f"{_share(rb['refstate'])} | {_share(rp['refstate'])} | |")
        tb = (res.get(b) or {}).get("tests", [])
        tp = (res.get(p) or {}).get("tests", [])
        for test, n in sorted({(t["test"], t["threads"]) for t in tb + tp}):
            vb = next((t for t in tb if (t["test"], t["threads"]) == (test, n)), None)
            vp = next((t for t in tp if (t["test"], t["threads"]) == (test, n)), None)
            v = vb or vp
            what = (f"kselftest: ramp to {n} threads, time to {v['slots']} slots" if test == "auto"
                    else f"kselftest: SET_SLOTS({v['slots']}) with {n} threads running")
            gp = " / ".join(f"{v['gp']:.3f} s" for v in (vb, vp) if v)
            lines.append(f"| {what} | {_secs(vb['done'], vb['seconds']) if vb else '-'}"
                         f" | {_secs(vp['done'], vp['seconds']) if vp else '-'}"
                         f" | grace period {gp} |")
    return lines


def _buckets(kernel):
    """The hash sizes perf's runs ended with: "16", or "16 (4 runs), 32 (1 run)"."""
    sizes = [b for b in kernel.get("buckets", []) if b is not None]
    if not sizes:
        return "?"
    if len(set(sizes)) == 1:
        return str(sizes[0])
    return ", ".join(f"{b} ({sizes.count(b)} run{'s' if sizes.count(b) > 1 else ''})"
                     for b in sorted(set(sizes)))


def table(s):
    """The summary as markdown-style table lines."""
    lines = []
    kb, kp = s["kernels"]["base"], s["kernels"]["patched"]
    lines.append(f"guests: {kb['cpus'] or '?'}; base: {kb['uname'] or '?'}")
    lines.append(f"        patched: {kp['uname'] or '?'}")
    if kb["accel"] == kp["accel"]:
        lines.append(f"accelerator: {kb['accel'] or '?'}")
    else:
        lines.append(f"accelerator: base {kb['accel'] or '?'}; patched {kp['accel'] or '?'}")
    if kb["accel"].split(" ")[:1] != kp["accel"].split(" ")[:1]:
        lines.append("note: base and patched ran under different accelerators, "
                     "so their ratios below mean nothing")
    lines.append("")
    lines.append("| kselftest futex | base | patched |")
    lines.append("|---|---|---|")
    for pair in RESIZE_PAIRS:
        ks = [s["kselftest"].get(n, {}) for n in pair]
        if not any(ks):
            continue
        cpus = next((k["cpus"] for k in ks if k.get("cpus")), "?")
        for what in ("programs", "subtests"):
            cells = [f"{k[what]['pass']} pass, {k[what]['fail']} fail, {k[what]['skip']} skip"
                     if k else "-" for k in ks]
            lines.append(f"| {what}, {cpus} | {cells[0]} | {cells[1]} |")
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
    lines += _kind_table("mismatched waits reaching the bucket", s["precheck"],
                         lambda v: f"{v['bucket']} of {v['waits']}")
    lines += _kind_table("wakes with nobody waiting that saw a waiter count", s["waiters"],
                         lambda v: f"{v['busy']} of {v['wakes']} after {v['aborted']} aborted "
                                   f"waits; waiter woken: {v['woken']}")
    if s.get("badinput"):
        bi = s["badinput"]
        lines.append("")
        lines.append(f"malformed futex calls (guest/futex_badinput.c): {bi['calls']} calls, "
                     f"{len(bi['differ'])} with a different result on the patched kernel")
        lines += [f"  {d['call']}: base {d['base']}, patched {d['patched']}" for d in bi["differ"][:20]]
    lines += resize_table(s["resize"])
    if s["perf"]:
        lines.append("")
        lines.append("| perf bench futex hash | base ops/s | patched ops/s | patched/base "
                     "| hash buckets at the end, base / patched |")
        lines.append("|---|---|---|---|---|")
        for args, v in s["perf"].items():
            b, p = v["base"], v["patched"]
            lines.append(f"| {args} | {b['median']:,.0f} ±{b['rsd']:.1%} ({len(b['runs'])} runs)"
                         f" | {p['median']:,.0f} ±{p['rsd']:.1%} ({len(p['runs'])} runs)"
                         f" | {v['ratio']:.2f}x ±{v['ratio_spread']:.1%}"
                         f" | {_buckets(b)} / {_buckets(p)} |")
    return lines


def write_tsv(s, path):
    with open(path, "w") as f:
        f.write("metric\targs\tbase\tpatched\tratio\tspread\n")
        for n_what in ("programs", "subtests"):
            for v in ("pass", "fail", "skip"):
                vals = [s["kselftest"].get(n, {}).get(n_what, {}).get(v, "") for n in KERNELS]
                f.write(f"kselftest_{n_what}\t{v}\t{vals[0]}\t{vals[1]}\t\t\n")
        for pair in RESIZE_PAIRS:
            vals = [s["kselftest"].get(n, {}).get("accel", "") for n in pair]
            if any(vals):
                f.write(f"accelerator\t{pair[0]}/{pair[1]}\t{vals[0]}\t{vals[1]}\t\t\n")
        for kind in _kinds(s["precheck"]):
            vals = [s["precheck"].get(n, {}).get(kind, {}).get("bucket", "") for n in KERNELS]
            f.write(f"precheck_bucket\t{kind}\t{vals[0]}\t{vals[1]}\t\t\n")
        for kind in _kinds(s["waiters"]):
            vals = [s["waiters"].get(n, {}).get(kind, {}).get("busy", "") for n in KERNELS]
            f.write(f"idle_wakes_seeing_waiters\t{kind}\t{vals[0]}\t{vals[1]}\t\t\n")
        for name, r in s["resize"].items():
            for v in (r["bench"] or {}).get("runs", []):
                f.write(f"resize_{v['mode']}_seconds\t{name} {v['threads']} threads\t"
                        f"{v['seconds'] if v['done'] else ''}\t\t\t\n")
                f.write(f"resize_{v['mode']}_ops\t{name} {v['threads']} threads\t"
                        f"{v['ops_per_s']:.0f}\t\t\t\n")
        for args, v in s["perf"].items():
            f.write(f"perf_hash_ops\t{args}\t{v['base']['median']}\t{v['patched']['median']}"
                    f"\t{v['ratio']:.4f}\t{v['ratio_spread']:.4f}\n")


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("error: compare: usage: compare.py RUN_DIR (with base/ and patched/ inside)",
              file=sys.stderr)
        return 2
    run = argv[1]
    s = summarize(run)
    lines = table(s)
    print("\n".join(lines))
    with open(os.path.join(run, "summary.json"), "w") as f:
        json.dump(s, f, indent=1)
    with open(os.path.join(run, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    write_tsv(s, os.path.join(run, "summary.tsv"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
