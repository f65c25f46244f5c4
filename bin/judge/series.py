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
    out = list(pc.errors)
    for what, waits in (("mismatched", pc.mismatched), ("matched", pc.matched)):
        v = waits.get(kind)
        if v is None:
            out.append(f"no {what} {kind} waits counted")
            continue
        if not v.requested or v.waits != v.requested:
            out.append(f"{v.waits} of {v.requested} {what} {kind} waits ended as they must")
        if what == "matched" and v.bucket < v.waits:
            out.append(f"control: {v.bucket} of {v.waits} matched {kind} waits reached the bucket")
    return out


def precheck_problems(kn, kind, base=False):
    """precheck_data(), and the mismatched waits of KIND: every one reached
    the bucket (BASE), or none did."""
    out = precheck_data(kn, kind)
    v = mismatched(kn, kind)
    if v and ((v.bucket < v.waits) if base else v.bucket != 0):
        out.append(f"{v.bucket} of {v.waits} mismatched {kind} waits reached the bucket")
    return out


def mismatched(kn, kind):
    """One guest's mismatched waits of KIND (PrecheckWaits), or None."""
    return kn.precheck_all.mismatched.get(kind) if kn.precheck_all else None


@keys("base.precheck.private", "base.precheck.shared",
      "patched.precheck.private", "patched.precheck.shared")
def check_precheck(j, k):
    """Base: every mismatched wait reaches the bucket; patched: none does;
    on both, every matched wait of the control does (the probe works)."""
    for name, rule in (("base", "all {w} mismatched {kind} waits reach the bucket"),
                       ("patched", "no mismatched {kind} wait reaches the bucket")):
        for kind in ("private", "shared"):
            kn = k[name]
            v = mismatched(kn, kind)
            bad = precheck_problems(kn, kind, base=name == "base")
            j.verdict(f"{name}.precheck.{kind}", not bad,
                      f"{name}: " + rule.format(w=v.waits if v else 0, kind=kind)
                      + ", every matched one of the control does", "; ".join(bad))


def waiters_data(kn, kind):
    """What is wrong with one guest's aborted waits of KIND other than the
    verdict itself (guest/futex_aborted.c): no error, every round aborted
    waits, every wake with nobody waiting returned."""
    v = waiter_counts(kn, kind)
    out = list(kn.waiters.errors) if kn.waiters else []
    if not v:
        return out + [f"no {kind} waiters result"]
    if not (v.rounds > 0 and v.aborted >= v.rounds and v.wakes == 3 * v.rounds):
        out.append(f"{v.rounds} rounds: {v.aborted} aborted waits, {v.wakes} wakes")
    return out


def waiter_counts(kn, kind):
    """One guest's WaiterCounts of KIND, or None."""
    return kn.waiters.kinds.get(kind) if kn.waiters else None


def waiters_problem(kn, kind):
    """Why one guest's aborted waits of KIND are not clean, or None: with
    waiters_data(), a wake after them saw a waiter count, or a real waiter
    was not woken having been seen."""
    out = waiters_data(kn, kind)
    v = waiter_counts(kn, kind)
    if v and not (v.busy == 0 and v.woken == 1 and v.waiter_busy >= 1):
        out.append(f"{v.busy} of {v.wakes} wakes saw a count; "
                   f"woken {v.woken}, waiter seen {v.waiter_busy} times" + missed(v))
    return "; ".join(out) or None


def _known(n):
    return "?" if n is None else n


def missed(v):
    """The calls of futex_hash() that futex_aborted's probe missed in its two
    windows (kprobe_profile): events that never reached the trace buffer."""
    return f", the probe missed {_known(v.busy_missed)} and {_known(v.waiter_missed)} calls"


def waiters_counts(kn):
    """What one guest's waiters step counted, for a verdict's detail."""
    return "; ".join(f"{kind}: {v.busy} of {v.wakes} wakes saw a count, "
                     f"waiter seen {v.waiter_busy} times" + missed(v) if v else f"{kind}: no result"
                     for kind in ("private", "shared") for v in [waiter_counts(kn, kind)])


@keys("base.waiters.private", "base.waiters.shared", "patched.waiters.private", "patched.waiters.shared")
def check_waiters(j, k):
    for name in compare_kernels.KERNELS:
        for kind in ("private", "shared"):
            v = waiter_counts(k[name], kind)
            bad = waiters_problem(k[name], kind)
            j.verdict(f"{name}.waiters.{kind}", bad is None,
                      f"{name}: after {v.aborted if v else 0} aborted {kind} waits, {v.wakes if v else 0} "
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
    m = many.machine
    n = SNC_SOCKETS * SNC_NODES
    seen = [m.node[i].distances if i in m.node else [] for i in range(n)] if m else []
    j.verdict("patched-many.topology", m is not None and m.nodes == n and seen == snc_distances(n),
              f"patched-many guest sees {n} NUMA nodes with SNC-like distances",
              f"nodes {_known(m.nodes)}, distances {seen or 'missing'}" if m
              else "no machine section")


# What a native run must have recorded: each benchmark group's results
# (compare_kernels.GROUP_STEPS), and the blocking paths' programs each,
# or a skip that says why not.
NATIVE_BLOCK_PROGRAMS = ("perf", "sysbench", "pi_stress")
SUMMARY_FILES = ("summary.md", "summary.tsv", "summary.json")
NATIVE_RUNS = ("native-1", "native-2")
NATIVE_COMPARE = "native-compare"


def native_missing(kn):
    """What a native run neither recorded nor said why it could not."""
    ran = [b for b in kn.bench if b.value is not None]
    missing = [g for g, steps in compare_kernels.GROUP_STEPS.items()
               if not any(b.group == g for b in ran)
               and compare_kernels.skip_reason(kn, steps) is None]
    missing += [f"block: {p}" for p in NATIVE_BLOCK_PROGRAMS
                if not any(b.group == "block" and (b.program or "").split()[:1] == [p] for b in ran)
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
        m = kn.machine or parse_results.Machine()
        j.verdict(f"{name}.end", kn.end is not None and kn.accel == "native" and m.runner == "native"
                  and m.release == release and m.cpus,
                  f"{name}: a native run on {release} ends and describes the machine",
                  f"end {kn.end is not None}, accel {kn.accel!r}, machine "
                  + (f"release {m.release}, {m.cpus} CPUs, runner {m.runner}" if kn.machine else "missing"))
        missing = native_missing(kn)
        j.verdict(f"{name}.recorded", not missing, f"{name}: records the kselftest and every benchmark, "
                  f"or why not ({len(kn.bench)} runs, {len(kn.skips)} steps not run)",
                  "neither results nor a reason for: " + ", ".join(missing))
    out = os.path.join(run, NATIVE_COMPARE)
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
    if not b or not p or not b.total or not p.total or b.errors or p.errors:
        return j.verdict("badinput", False, "malformed futex calls ran on both kernels",
                         "; ".join((b.errors if b else []) + (p.errors if p else []))
                         or "no complete badinput section")
    diff = [d for d in parse_results.badinput_diff(b, p) if d[0] not in INTENDED]
    complete = len(p.calls) == p.total and len(b.calls) == b.total
    j.verdict("badinput", not diff and complete,
              f"{len(p.calls)} malformed futex calls give the same results on base and "
              f"patched ({len(INTENDED)} intended differences)",
              "; ".join(f"{c}: base {rb}, patched {rp}" for c, rb, rp in diff[:5])
              or f"calls reported: base {len(b.calls)} of {b.total}, patched {len(p.calls)} of {p.total}")


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
    hist = kn.resizebench.refstate if kn.resizebench else {}
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
              f"stable: after step refstate's ramp at most {REFSTATE_ATOMIC_MAX:.0%} of the "
              f"references found FR_ATOMIC ({_share(share, total)})",
              _share(share, total))
    share, total = atomic_share(k["base"])
    j.verdict("base.refstate.stuck", share is not None and share >= REFSTATE_ATOMIC_STUCK,
              f"base: after step refstate's ramp at least {REFSTATE_ATOMIC_STUCK:.0%} of the "
              f"references found FR_ATOMIC, the bug the stable patches fix ({_share(share, total)})",
              _share(share, total))
    rt = st.resizebench.retry if st.resizebench else None
    j.verdict("stable.size", rt is not None and rt.before == rt.slots and rt.done,
              f"stable: under the load after a ramp to {rt.threads if rt else '?'} threads the hash has its automatic "
              f"size ({rt.slots if rt else '?'} slots): no replacement was left pending",
              "; ".join(["no retry line"] + (st.resizebench.errors if st.resizebench else [])) if rt is None else
              f"{rt.before} slots under the load, the size {'reached' if rt.done else 'not reached'}"
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
    lost = nr.lost
    j.verdict("stable.numarace.fails", nr.result == "fail" and lost is not None,
              f"without fixes/: {NUMA_RACE} fails, a wake on the node the futex names "
              + (f"misses {lost.missed} of {lost.waiters} queued waiters (round {lost.round})" if lost
                 else "misses queued waiters"),
              f"{NUMA_RACE_CASE}: {nr.result or 'missing'}"
              f"{'' if lost else ', no missed waiter reported'}")
    for name in compare_kernels.KERNELS:
        nr = k[name].numarace_kselftest or parse_results.parse_numa_race("")
        rounds = nr.rounds
        j.verdict(f"{name}.numarace", nr.result == "pass" and rounds is not None and rounds.nodes >= 2,
                  f"{name}: {NUMA_RACE} passes ("
                  + (f"{rounds.rounds} rounds of {rounds.waiters} waiters" if rounds else "no rounds")
                  + ")",
                  f"{NUMA_RACE_CASE}: {nr.result or 'missing'}{'' if rounds else ', no rounds reported'}")
