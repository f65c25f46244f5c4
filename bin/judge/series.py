# SPDX-License-Identifier: GPL-2.0
"""What the series changes, counted by the guests' own steps: waits refused
before the bucket (precheck), waiter counts after aborted waits (waiters),
malformed calls alike on base and patched (badinput), the stable patches'
references and size (refstate, retry), futex_numa_race with and without
fixes/, the SNC-like topology; and make check's native runs."""

import os
import subprocess

import compare_kernels
import parse_results
from judge.core import keys, planned
from parse_results import NUMA_RACE, NUMA_RACE_CASE



def precheck_data(kn, kind):
    """What is wrong with one guest's precheck counts of KIND other than
    the verdict itself, as a list: the step ran without an error, every
    wait asked for ended as it must, and every matched wait of the control
    reached the bucket (the probe counts what it must)."""
    pc = kn.precheck_all
    if pc is None:
        return ["no precheck section"]
    out = list(pc["errors"])
    for what in ("mismatched", "matched"):
        v = pc[what].get(kind)
        if v is None:
            out.append(f"no {what} {kind} waits counted")
            continue
        if not v["requested"] or v["waits"] != v["requested"]:
            out.append(f"{v['waits']} of {v['requested']} {what} {kind} waits ended as they must")
        if what == "matched" and v["bucket"] < v["waits"]:
            out.append(f"control: {v['bucket']} of {v['waits']} matched {kind} waits reached the bucket")
    return out


def precheck_problems(kn, kind, base=False):
    """precheck_data(), and the mismatched waits of KIND: every one reached
    the bucket (BASE), or none did."""
    out = precheck_data(kn, kind)
    v = ((kn.precheck_all or {}).get("mismatched") or {}).get(kind)
    if v and ((v["bucket"] < v["waits"]) if base else v["bucket"] != 0):
        out.append(f"{v['bucket']} of {v['waits']} mismatched {kind} waits reached the bucket")
    return out


@keys("base.precheck.private", "base.precheck.shared",
      "patched.precheck.private", "patched.precheck.shared")
def check_precheck(j, k):
    """Base: every mismatched wait reaches the bucket; patched: none does;
    on both, every matched wait of the control does (the probe works)."""
    for name, rule in (("base", "all {w} mismatched {kind} waits reach the bucket"),
                       ("patched", "no mismatched {kind} wait reaches the bucket")):
        for kind in ("private", "shared"):
            kn = k[name]
            v = ((kn.precheck_all or {}).get("mismatched") or {}).get(kind) or {}
            bad = precheck_problems(kn, kind, base=name == "base")
            j.verdict(f"{name}.precheck.{kind}", not bad,
                      f"{name}: " + rule.format(w=v.get("waits", 0), kind=kind)
                      + ", every matched one of the control does", "; ".join(bad))


def waiters_data(kn, kind):
    """What is wrong with one guest's aborted waits of KIND other than the
    verdict itself (guest/futex_aborted.c): no error, every round aborted
    waits, every wake with nobody waiting returned."""
    w = kn.waiters or {}
    v = w.get(kind)
    out = list(w.get("error", []))
    if not v:
        return out + [f"no {kind} waiters result"]
    if not (v.get("rounds", 0) > 0 and v.get("aborted", 0) >= v["rounds"]
            and v.get("wakes", 0) == 3 * v["rounds"]):
        out.append(f"{v.get('rounds', 0)} rounds: {v.get('aborted', 0)} aborted waits, "
                   f"{v.get('wakes', 0)} wakes")
    return out


def waiters_problem(kn, kind):
    """Why one guest's aborted waits of KIND are not clean, or None: with
    waiters_data(), a wake after them saw a waiter count, or a real waiter
    was not woken having been seen."""
    out = waiters_data(kn, kind)
    v = (kn.waiters or {}).get(kind) or {}
    if not (v.get("busy") == 0 and v.get("woken") == 1 and v.get("waiter_busy", 0) >= 1):
        out.append(f"{v.get('busy', '?')} of {v.get('wakes', 0)} wakes saw a count; "
                   f"woken {v.get('woken', '?')}, waiter seen {v.get('waiter_busy', '?')} times"
                   + missed(v))
    return "; ".join(out) or None


def missed(v):
    """The calls of futex_hash() that futex_aborted's probe missed in its two
    windows (kprobe_profile): events that never reached the trace buffer."""
    return f", the probe missed {v.get('busy_missed', '?')} and {v.get('waiter_missed', '?')} calls"


def waiters_counts(kn):
    """What one guest's waiters step counted, for a verdict's detail."""
    w = kn.waiters or {}
    return "; ".join(f"{kind}: {v.get('busy', '?')} of {v.get('wakes', '?')} wakes saw a count, "
                     f"waiter seen {v.get('waiter_busy', '?')} times" + missed(v)
                     for kind in ("private", "shared") for v in [w.get(kind) or {}])


@keys("base.waiters.private", "base.waiters.shared", "patched.waiters.private", "patched.waiters.shared")
def check_waiters(j, k):
    for name in compare_kernels.KERNELS:
        for kind in ("private", "shared"):
            v = (k[name].waiters or {}).get(kind) or {}
            bad = waiters_problem(k[name], kind)
            j.verdict(f"{name}.waiters.{kind}", bad is None,
                      f"{name}: after {v.get('aborted', 0)} aborted {kind} waits, {v.get('wakes', 0)} "
                      f"wakes see no waiter count and a real waiter is woken", bad or "")


# The 18-vCPU guest's topology, like Sub-NUMA Clustering: two sockets of
# three nodes each, nodes 0-2 on socket 0 and 3-5 on socket 1.
SNC_SOCKETS, SNC_NODES = 2, 3
SNC_LOCAL, SNC_SOCKET, SNC_REMOTE = 10, 12, 21


def snc_distances(n):
    """The distance matrix of N nodes in SNC_SOCKETS sockets of SNC_NODES."""
    return [[SNC_LOCAL if i == j else SNC_SOCKET if i // SNC_NODES == j // SNC_NODES else SNC_REMOTE
             for j in range(n)] for i in range(n)]


@keys("patched-many.topology")
def check_topology(j, many):
    """The patched-many guest boots with the SNC-like topology: the
    FUTEX2_NUMA tests then see more nodes than sockets."""
    m = many.machine or {}
    n = SNC_SOCKETS * SNC_NODES
    seen = [m["node"][i]["distances"] if i in m["node"] else [] for i in range(n)] if m else []
    j.verdict("patched-many.topology", m.get("nodes") == n and seen == snc_distances(n),
              f"patched-many guest sees {n} NUMA nodes with SNC-like distances",
              f"nodes {m.get('nodes', 'unknown')}, distances {seen or 'missing'}" if m
              else "no machine section")


# What a native run must have recorded: each benchmark group's results,
# and the blocking paths' programs each, or a skip that says why not.
NATIVE_GROUPS = {"hash": "hash", "block": "block", "scale": "scale"}
NATIVE_BLOCK_PROGRAMS = ("perf", "sysbench", "pi_stress")
SUMMARY_FILES = ("summary.md", "summary.tsv", "summary.json")
NATIVE_RUNS = ("native-1", "native-2")


def native_missing(kn):
    """What a native run neither recorded nor said why it could not."""
    ran = [b for b in kn.bench if b["value"] is not None]
    missing = [g for g, step in NATIVE_GROUPS.items()
               if not any(b["group"] == g for b in ran)
               and compare_kernels.skip_reason(kn, (step,)) is None]
    missing += [f"block: {p}" for p in NATIVE_BLOCK_PROGRAMS
                if not any(b["group"] == "block" and (b["program"] or "").split()[:1] == [p] for b in ran)
                and compare_kernels.skip_reason(kn, ("block",), p) is None]
    ks = kn.kselftest
    if not (ks and sum(ks.programs.values())) and compare_kernels.skip_reason(kn, ("kselftest",)) is None:
        missing.append("kselftest")
    return missing


@keys("native-1.end", "native-1.recorded", "native-2.end", "native-2.recorded", "native.compare")
def check_native(j, run):
    """make check's native runs (CHECK_DIR/native-1, native-2) on this
    machine's own kernel (the judge's release): each ran to its end,
    described the machine and recorded the kselftest and every
    benchmark, or why it could not, and their comparison
    (native-compare) wrote the summary files. What the host kernel
    measures or passes is not judged."""
    release = j.release or os.uname().release
    for name in NATIVE_RUNS:
        kn = j.read(os.path.join(run, name))
        m = kn.machine or {}
        j.verdict(f"{name}.end", kn.end is not None and kn.accel == "native" and m.get("runner") == "native"
                  and m.get("release") == release and m.get("cpus"),
                  f"{name}: a native run on {release} ends and describes the machine",
                  f"end {kn.end is not None}, accel {kn.accel!r}, machine {m or 'missing'}")
        missing = native_missing(kn)
        j.verdict(f"{name}.recorded", not missing, f"{name}: records the kselftest and every benchmark, "
                  f"or why not ({len(kn.bench)} runs, {len(kn.skips)} steps not run)",
                  "neither results nor a reason for: " + ", ".join(missing))
    out = os.path.join(run, "native-compare")
    absent = [f for f in SUMMARY_FILES if not os.path.exists(os.path.join(out, f))]
    j.verdict("native.compare", not absent, "the two native runs compare into summary.md, .tsv and .json",
              "missing: " + ", ".join(absent))


# Calls of guest/futex_badinput.c whose result the series changes on
# purpose, with why. None: the unlocked check keeps every error's
# precedence, and a mismatch was -EWOULDBLOCK before as well.
INTENDED = {}


@keys("badinput")
def check_badinput(j, k):
    b, p = k["base"].badinput, k["patched"].badinput
    if not b or not p or not b["total"] or not p["total"] or b["errors"] or p["errors"]:
        return j.verdict("badinput", False, "malformed futex calls ran on both kernels",
                         "; ".join((b or {}).get("errors", []) + (p or {}).get("errors", []))
                         or "no complete badinput section")
    diff = [d for d in parse_results.badinput_diff(b, p) if d[0] not in INTENDED]
    complete = len(p["calls"]) == p["total"] and len(b["calls"]) == b["total"]
    j.verdict("badinput", not diff and complete,
              f"{len(p['calls'])} malformed futex calls give the same results on base and "
              f"patched ({len(INTENDED)} intended differences)",
              "; ".join(f"{c}: base {rb}, patched {rp}" for c, rb, rp in diff[:5])
              or f"calls reported: base {len(b['calls'])} of {b['total']}, patched {len(p['calls'])} of {p['total']}")


def has_fixes(kn, tree):
    """Whether fixes/ had patches below the series, as KN's folder records
    it (bin/describe.sh), or else as TREE says: its base is not its
    upstream."""
    if "fixes" in kn.about:
        return kn.about["fixes"] != "0"
    # Without a tree git cannot tell either: judged as with fixes.
    out = subprocess.run(["git", "-C", tree or os.devnull, "rev-list", "--count", "upstream..base"],
                         capture_output=True, text=True)
    return out.returncode != 0 or out.stdout.strip() != "0"


# The share of a ramp's references that found FR_ATOMIC as they were
# dropped (step refstate), at most on a kernel that leaves no automatic
# replacement pending under load, and at least on one where it stays stuck
# (7.3.4: nearly all).
REFSTATE_ATOMIC_MAX = 0.10
REFSTATE_ATOMIC_STUCK = 0.50


def atomic_share(kn):
    """(share of the references dropped in FR_ATOMIC, how many were dropped)
    of step refstate's histogram, or (None, 0) without one."""
    hist = (kn.resizebench or {}).get("refstate") or {}
    total = sum(hist.values())
    return (hist.get(1, 0) / total if total else None), total


def _share(share, total):
    return f"{share:.2%} of {total:,}" if share is not None else "no histogram"


@keys("stable.refstate", "base.refstate.stuck", "stable.size", "stable.console")
def check_stable(j, st, k):
    """On the base source with the series' stable patches alone, and
    without fixes/ (tag stable), the references of a process are counted
    per CPU after a ramp of threads under load, and the hash has its
    automatic size; on base (without the stable patches) they stay on the
    shared atomic."""
    share, total = atomic_share(st)
    j.verdict("stable.refstate", share is not None and share <= REFSTATE_ATOMIC_MAX,
              f"stable: after a ramp to 64 threads at most {REFSTATE_ATOMIC_MAX:.0%} of the "
              f"references found FR_ATOMIC ({_share(share, total)})",
              _share(share, total))
    share, total = atomic_share(k["base"])
    j.verdict("base.refstate.stuck", share is not None and share >= REFSTATE_ATOMIC_STUCK,
              f"base: after a ramp to 64 threads at least {REFSTATE_ATOMIC_STUCK:.0%} of the "
              f"references found FR_ATOMIC, the bug the stable patches fix ({_share(share, total)})",
              _share(share, total))
    rt = (st.resizebench or {}).get("retry")
    j.verdict("stable.size", rt is not None and rt["before"] == rt["slots"] and rt["done"],
              f"stable: under the load after a ramp to 64 threads the hash has its automatic "
              f"size ({rt['slots'] if rt else '?'} slots): no replacement was left pending",
              "no retry line" if rt is None else
              f"{rt['before']} slots under the load, the size {'reached' if rt['done'] else 'not reached'}"
              f" after a pause")
    j.verdict("stable.console", st.badness == [], "stable: console clean",
              st.badness[0] if st.badness else "console missing")


@keys("stable.numarace.fails", "base.numarace", "patched.numarace")
def check_numa_race(j, st, k, fixes):
    """The race test fails on the base source without fixes/, for the reason
    it exists (a wake missed a queued waiter), and passes with them."""
    if not fixes:
        for key in planned(check_numa_race):
            j.skipped(key, f"{key.split('.')[0]}: {NUMA_RACE}", "fixes/ is empty")
        return
    nr = st.numarace or parse_results.parse_numa_race("")
    lost = nr["lost"] or {}
    j.verdict("stable.numarace.fails", nr["result"] == "fail" and bool(lost),
              f"without fixes/: {NUMA_RACE} fails, a wake on the node the futex names "
              f"misses {lost.get('missed', '?')} of {lost.get('waiters', '?')} "
              f"queued waiters (round {lost.get('round', '?')})",
              f"{NUMA_RACE_CASE}: {nr['result'] or 'missing'}"
              f"{'' if lost else ', no missed waiter reported'}")
    for name in compare_kernels.KERNELS:
        nr = k[name].numarace_kselftest
        rounds = nr["rounds"]
        j.verdict(f"{name}.numarace", nr["result"] == "pass" and rounds is not None and rounds["nodes"] >= 2,
                  f"{name}: {NUMA_RACE} passes ("
                  + (f"{rounds['rounds']} rounds of {rounds['waiters']} waiters" if rounds else "no rounds")
                  + ")",
                  f"{NUMA_RACE_CASE}: {nr['result'] or 'missing'}{'' if rounds else ', no rounds reported'}")
