#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge what the base and patched debug guests reported, one TAP line each.

Usage: tests/verdicts.py CHECK_DIR TREE
       tests/verdicts.py --soak DIR...	(make soak: each DIR one guest's results)
       tests/verdicts.py --sanitize DIR...	(make sanitize: likewise)
       tests/verdicts.py --boots DIR	(make boots: DIR/KERNEL-N, one per boot)
       tests/verdicts.py --mutants DIR	(make mutants: DIR/MUTANT, one per mutant)

CHECK_DIR holds the result folders of make check's scenarios
(configs/scenarios): base/, patched/, patched-many/ and stable/ (the base
source with the series' stable patches alone, without fixes/), each
written by bin/boot.sh, and native-1/ and native-2/, two runs of the
native mode on the machine's own kernel, with native-compare/, their
comparison; TREE is the kernel tree whose rcutorture console-badness.sh
scans the consoles.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bin"))
import compare_kernels  # noqa: E402
import parse_results  # noqa: E402
from parse_results import NUMA_RACE, NUMA_RACE_CASE, with_evidence  # noqa: E402

# The selftest program that pins down the refusal semantics.
SEMANTICS = "futex_wait_wouldblock"

FAILED = []


def verdict(ok, name, why=""):
    print(("ok " if ok else "not ok ") + name)
    if not ok:
        FAILED.append(name)
    if not ok and why:
        print(why)


def check_kselftests(k):
    """Every futex kselftest the 8-vCPU guest runs passes; none is skipped."""
    ks = k["patched"]["kselftest"]
    if ks is None:
        return verdict(False, "patched: futex kselftests ran", "no kselftest section")
    failed = [with_evidence("patched", f, k["patched"]["evidence"]) for f in ks.failed]
    total = ks.programs["pass"] + ks.programs["fail"] + ks.programs["skip"]
    skipped = sorted(t for t, v in ks.results.items() if v == "skip")
    verdict(total > 0 and not failed and not skipped and not ks.programs["skip"],
            f"patched debug kernel passes the futex kselftests, none skipped "
            f"({ks.programs['pass'] + ks.programs['fail'] - len(failed)} of {total} programs, {ks.subtests['pass']} cases)",
            "failed: " + ", ".join(failed) if failed else "skipped: " + ", ".join(skipped))


def check_console(k):
    bad = k["patched"]["badness"]
    verdict(bad == [], "patched debug kernel logs no WARNING, BUG or lockdep report",
            bad[0] if bad else "console or console-badness.sh missing")


def check_precheck(k):
    for kind in ("private", "shared"):
        b = (k["base"]["precheck"] or {}).get(kind)
        p = (k["patched"]["precheck"] or {}).get(kind)
        if not b or not p:
            verdict(False, f"precheck counted for {kind} waits", "no precheck result")
            continue
        verdict(b[1] >= b[0], f"base: all {b[0]} mismatched {kind} waits reach the bucket",
                f"{b[1]} of {b[0]} reached it")
        verdict(p[1] == 0, f"patched: no mismatched {kind} wait reaches the bucket",
                f"{p[1]} of {p[0]} reached it")


def waiters_clean(v):
    """Wakes after aborted waits saw no waiter count, and a real waiter was
    still woken (guest/futex_aborted.c)."""
    return v["busy"] == 0 and v["woken"] == 1 and v["waiter_busy"] >= 1


def check_waiters(k):
    for name in compare_kernels.KERNELS:
        w = k[name]["waiters"] or {}
        for err in w.get("error", []):
            verdict(False, f"{name}: aborted-wait accounting measured", err)
        for kind in ("private", "shared"):
            v = w.get(kind)
            if not v:
                verdict(False, f"{name}: aborted {kind} waits measured", "no waiters result")
                continue
            verdict(waiters_clean(v),
                    f"{name}: after {v['aborted']} aborted {kind} waits, {v['wakes']} wakes "
                    f"see no waiter count and a real waiter is woken",
                    f"{v['busy']} wakes saw a count; woken {v['woken']}, "
                    f"waiter seen {v['waiter_busy']} times")


RESIZE = "futex_hash_resize"
# Needs more than 16 CPUs; the 32-vCPU guest runs it.
PRIV_HASH = "futex_priv_hash"
# The case that fails on a kernel whose private hash replacement never ends
# under load: with 64 threads at work the old hash's count never drains.
RESIZE_BASE_FAILS = RESIZE + ":global.set_slots_completes_under_load_64"
# A futex operation stalled in a fault, and a starved reference holder:
# fails on a kernel that holds a reference on the private hash across a
# fault, passes once none does.
DRAIN = "futex_hash_drain"
DRAIN_BASE_FAILS = re.compile(re.escape(DRAIN) + r":stall\.\w+\.set_slots_returns$")


def resize_results(ks):
    return {t: v for t, v in (ks.results.items() if ks else [])
            if t.startswith((RESIZE + ":", DRAIN + ":"))}


def check_resize(k):
    base = resize_results(k["base"]["kselftest"])
    verdict(base.get(RESIZE_BASE_FAILS) == "fail",
            "base: the replacement test fails (SET_SLOTS does not return under load)",
            f"{RESIZE_BASE_FAILS} on base: {base.get(RESIZE_BASE_FAILS, 'missing')}")
    stalled = sorted(t.split(".")[1] for t, v in base.items()
                     if DRAIN_BASE_FAILS.match(t) and v == "fail")
    verdict(bool(stalled),
            f"base: SET_SLOTS waits for a futex operation stalled in a fault "
            f"({', '.join(stalled) or 'no site'})",
            "no " + DRAIN + " stall.*.set_slots_returns case failed on base")
    many = k["patched-many"]
    for name, kn in (("patched", k["patched"]), ("patched-many", many)):
        res = resize_results(kn["kselftest"])
        bad = sorted(t for t, v in res.items() if v != "pass")
        verdict(bool(res) and not bad,
                f"{name}: the replacement tests pass ({len(res)} cases, {kn['cpus'] or '? cpus'})",
                "failed: " + ", ".join(bad) if bad else "no futex_hash_resize results")
    ks = many["kselftest"]
    ph = {t: v for t, v in (ks.results.items() if ks else []) if t.startswith(PRIV_HASH + ":")}
    verdict(bool(ph) and all(v == "pass" for v in ph.values()),
            f"patched-many: {PRIV_HASH} passes without a skip ({many['cpus'] or '? cpus'})",
            f"{PRIV_HASH}: {ph or 'missing'}")
    verdict(many["badness"] == [], "patched-many: console clean",
            many["badness"][0] if many["badness"] else "console missing")


# The 18-vCPU guest's topology, like Sub-NUMA Clustering: two sockets of
# three nodes each, nodes 0-2 on socket 0 and 3-5 on socket 1.
SNC_SOCKETS, SNC_NODES = 2, 3
SNC_LOCAL, SNC_SOCKET, SNC_REMOTE = 10, 12, 21


def snc_distances(n):
    """The distance matrix of N nodes in SNC_SOCKETS sockets of SNC_NODES."""
    return [[SNC_LOCAL if i == j else SNC_SOCKET if i // SNC_NODES == j // SNC_NODES else SNC_REMOTE
             for j in range(n)] for i in range(n)]


def check_topology(many):
    """The patched-many guest boots with the SNC-like topology: the
    FUTEX2_NUMA tests then see more nodes than sockets."""
    m = many["machine"] or {}
    n = SNC_SOCKETS * SNC_NODES
    seen = [m["node"][i]["distances"] if i in m["node"] else [] for i in range(n)] if m else []
    verdict(m.get("nodes") == n and seen == snc_distances(n),
            f"patched-many guest sees {n} NUMA nodes with SNC-like distances",
            f"nodes {m.get('nodes', 'unknown')}, distances {seen or 'missing'}" if m
            else "no machine section")


# What a native run must have recorded: each benchmark group's results,
# and the blocking paths' programs each, or a skip that says why not.
NATIVE_GROUPS = {"hash": "perf", "block": "block", "scale": "scale"}
NATIVE_BLOCK_PROGRAMS = ("perf", "sysbench", "pi_stress")
SUMMARY_FILES = ("summary.md", "summary.tsv", "summary.json")


def native_missing(kn):
    """What a native run neither recorded nor said why it could not."""
    skips = kn["skips"]
    ran = [b for b in kn["bench"] if b["value"] is not None]
    missing = [g for g, step in NATIVE_GROUPS.items()
               if not any(b["group"] == g for b in ran)
               and compare_kernels.skip_reason(kn, (step,)) is None]
    missing += [f"block: {p}" for p in NATIVE_BLOCK_PROGRAMS
                if not any(b["group"] == "block" and (b["program"] or "").split()[:1] == [p] for b in ran)
                and compare_kernels.skip_reason(kn, ("block",), p) is None]
    ks = kn["kselftest"]
    if not (ks and sum(ks.programs.values())) and compare_kernels.skip_reason(kn, ("kselftest",)) is None:
        missing.append("kselftest")
    return missing


def check_native(run, release=None):
    """make check's native runs (CHECK_DIR/native-1, native-2) on this
    machine's own kernel (RELEASE): each ran to its end, described the
    machine and recorded the kselftest and every benchmark, or why it
    could not, and their comparison (native-compare) wrote the summary
    files. What the host kernel measures or passes is not judged."""
    release = release or os.uname().release
    for name in ("native-1", "native-2"):
        d = os.path.join(run, name)
        kn = parse_results.read_kernel(d)
        m = kn["machine"] or {}
        verdict(kn["end"] is not None and kn["accel"] == "native" and m.get("runner") == "native"
                and m.get("release") == release and m.get("cpus"),
                f"{name}: a native run on {release} ends and describes the machine",
                f"end {kn['end'] is not None}, accel {kn['accel']!r}, machine {m or 'missing'}")
        missing = native_missing(kn)
        verdict(not missing, f"{name}: records the kselftest and every benchmark, or why not "
                f"({len(kn['bench'])} runs, {len(kn['skips'])} steps not run)",
                "neither results nor a reason for: " + ", ".join(missing))
    out = os.path.join(run, "native-compare")
    absent = [f for f in SUMMARY_FILES if not os.path.exists(os.path.join(out, f))]
    verdict(not absent, "the two native runs compare into summary.md, .tsv and .json",
            "missing: " + ", ".join(absent))


def check_semantics(k):
    res = {}
    for name in compare_kernels.KERNELS:
        ks = k[name]["kselftest"]
        res[name] = {t: v for t, v in (ks.results.items() if ks else [])
                     if t.startswith(SEMANTICS + ":")}
    same = res["base"] == res["patched"] and res["base"]
    allpass = same and all(v == "pass" for v in res["patched"].values())
    diff = sorted(t for t in set(res["base"]) | set(res["patched"])
                  if res["base"].get(t) != res["patched"].get(t) or res["patched"].get(t) != "pass")
    verdict(bool(allpass), f"refused waits and error precedence: {len(res['patched'])} "
            f"{SEMANTICS} cases pass alike on base and patched",
            "differs: " + ", ".join(diff))


# Calls of guest/futex_badinput.c whose result the series changes on
# purpose, with why. None: the unlocked check keeps every error's
# precedence, and a mismatch was -EWOULDBLOCK before as well.
INTENDED = {}


def check_badinput(k):
    b, p = k["base"]["badinput"], k["patched"]["badinput"]
    if not b or not p or not b["total"] or not p["total"] or b["errors"] or p["errors"]:
        return verdict(False, "malformed futex calls ran on both kernels",
                       "; ".join((b or {}).get("errors", []) + (p or {}).get("errors", []))
                       or "no complete badinput section")
    diff = [d for d in parse_results.badinput_diff(b, p) if d[0] not in INTENDED]
    verdict(not diff and len(p["calls"]) == p["total"],
            f"{len(p['calls'])} malformed futex calls give the same results on base and "
            f"patched ({len(INTENDED)} intended differences)",
            "; ".join(f"{c}: base {rb}, patched {rp}" for c, rb, rp in diff[:5]))


def check_failfutex(name, kn):
    """A guest that ran the failfutex step: whatever the injected faults made
    the programs report, each of them ended on its own."""
    f = kn["failfutex"]
    if f is None or f["errors"]:
        skipped = compare_kernels.skip_reason(kn, ("failfutex",))
        return verdict(False, f"{name}: futex programs ran under fault injection",
                       "; ".join(f["errors"]) if f else f"not run: {skipped}" if skipped
                       else "no failfutex section")
    verdict(f["faults"] > 0 and f["programs"] == f["listed"] > 0 and not f["timeouts"]
            and f["badinput_rc"] == 0 and f["stress_rc"] not in (None, 124),
            f"{name}: with fail_futex failing {f['faults']} of {f['calls']} checks, "
            f"{f['programs']} futex kselftest programs end within their test cases' "
            f"timeouts, the malformed calls and stress-ng ({f['stress_ops']} futex ops) "
            f"on their own",
            f"outlived their test cases' timeouts: {', '.join(f['timeouts']) or 'none'}; "
            f"programs {f['programs']} of {f['listed']}; futex_badinput rc {f['badinput_rc']}; "
            f"stress-ng rc {f['stress_rc']}")


def check_soak(name, kn):
    s = kn["soak"]
    if not s or s["errors"] or s["stress_rc"] is None:
        return verdict(False, f"{name}: the soak ran",
                       "; ".join((s or {}).get("errors", [])) or "no soak section")
    bad = [f"{b} rc {rc}" for b, (_, rc) in s["perf"].items() if rc != 0]
    runs = ", ".join(f"{b} {n}" for b, (n, _) in s["perf"].items())
    verdict(s["stress_rc"] == 0 and not bad and kn["badness"] == [],
            f"{name} ({kn['cpus'] or '? cpus'}): the soak's runs all end on their own "
            f"(stress-ng --futex{'; perf bench futex runs: ' + runs if runs else ''}), "
            f"console clean",
            f"stress-ng rc {s['stress_rc']}; {', '.join(bad) or 'perf ok'}; "
            f"console: {kn['badness'][0] if kn['badness'] else 'clean'}")


def check_sanitized(name, kn):
    ks, b = kn["kselftest"], kn["badinput"]
    failed = [with_evidence(name, f, kn["evidence"]) for f in ks.failed] if ks else []
    verdict(ks is not None and not failed and ks.programs["pass"] > 0,
            f"{name}: the futex kselftests pass "
            f"({ks.programs['pass'] + ks.programs['fail'] - len(failed) if ks else 0} programs)",
            "failed: " + ", ".join(failed) if ks else "no kselftest section")
    verdict(b is not None and not b["errors"] and b["total"] and len(b["calls"]) == b["total"],
            f"{name}: the malformed futex calls all return "
            f"({len(b['calls']) if b else 0} calls)",
            "; ".join(b["errors"]) if b else "no badinput section")
    verdict(kn["badness"] == [], f"{name}: no sanitizer report, WARNING or BUG on the console",
            kn["badness"][0] if kn["badness"] else "console missing")


def has_fixes(tree):
    """Whether fixes/ had patches: the tree's base is not its upstream."""
    out = subprocess.run(["git", "-C", tree, "rev-list", "--count", "upstream..base"],
                         capture_output=True, text=True)
    return out.returncode != 0 or out.stdout.strip() != "0"


def check_stable(run):
    """On the base source with the series' stable patches alone, and
    without fixes/ (tag stable), the private hash tests pass."""
    st = parse_results.read_kernel(os.path.join(run, "stable"))
    res = resize_results(st["kselftest"])
    bad = sorted(with_evidence("stable", t, st["evidence"])
                 for t, v in res.items() if v != "pass")
    progs = sorted({t.split(":")[0] for t in res})
    verdict(bool(res) and not bad and progs == sorted((RESIZE, DRAIN)),
            f"stable: the private hash tests pass on the base source with the stable "
            f"patches alone ({len(res)} cases of {', '.join(progs) or 'none'})",
            "failed: " + ", ".join(bad) if bad else f"ran: {', '.join(progs) or 'none'}")
    verdict(st["badness"] == [], "stable: console clean",
            st["badness"][0] if st["badness"] else "console missing")


def check_numa_race(run, k, tree):
    """The race test fails on the base source without fixes/, for the reason
    it exists (a wake missed a queued waiter), and passes with them."""
    d = os.path.join(run, "stable")
    if not os.path.isdir(d) or not has_fixes(tree):
        return
    nr = parse_results.read_kernel(d)["numarace"] or parse_results.parse_numa_race("")
    lost = nr["lost"] or {}
    verdict(nr["result"] == "fail" and bool(lost),
            f"without fixes/: {NUMA_RACE} fails, a wake on the node the futex names "
            f"misses {lost.get('missed', '?')} of {lost.get('waiters', '?')} "
            f"queued waiters (round {lost.get('round', '?')})",
            f"{NUMA_RACE_CASE}: {nr['result'] or 'missing'}"
            f"{'' if lost else ', no missed waiter reported'}")
    for name in compare_kernels.KERNELS:
        nr = k[name]["numarace_kselftest"]
        rounds = nr["rounds"]
        verdict(nr["result"] == "pass" and rounds is not None and rounds["nodes"] >= 2,
                f"{name}: {NUMA_RACE} passes ("
                + (f"{rounds['rounds']} rounds of {rounds['waiters']} waiters" if rounds else "no rounds")
                + ")",
                f"{NUMA_RACE_CASE}: {nr['result'] or 'missing'}")


def boots(d):
    """make boots: per kernel, whether futex_numa_mpol, run first after
    boot, or any kselftest after it hung (was stopped for its time)."""
    runs = {}
    for name in sorted(os.listdir(d)):
        m = re.match(r"^(.+)-(\d+)$", name)
        if m:
            runs.setdefault(m.group(1), []).append((int(m.group(2)), os.path.join(d, name)))
    for kernel, dirs in sorted(runs.items()):
        first, hung, failed, bad = [], [], {}, []
        for i, path in sorted(dirs):
            kn = parse_results.read_kernel(path)
            fr = kn["firstrun"] or parse_results.parse_kselftest("")
            ks = kn["kselftest"]
            if kn["end"] is None or ks is None:
                bad.append(f"boot {i}: no complete results")
                continue
            where = os.path.basename(path)
            if fr.programs["pass"] != 1:
                ev = kn["evidence_all"]["firstrun"]
                first += [f"boot {i}: " + with_evidence(where, f, ev)
                          for f in fr.failed or ["futex_numa_mpol did not run"]]
            hung += [f"boot {i}: " + with_evidence(where, t, kn["evidence"])
                     for t in ks.timeouts]
            for f in ks.failed:
                failed.setdefault(f.split()[0], []).append(i)
        n = len(dirs)
        ran = n - len(bad)
        verdict(not bad, f"{kernel}: {ran} of {n} boots reported their results", "; ".join(bad))
        verdict(not first, f"{kernel}: futex_numa_mpol, first after boot, passed in "
                f"{ran - len(first)} of {ran} boots", "; ".join(first))
        verdict(not hung, f"{kernel}: no futex kselftest after it hung, in {ran} boots "
                f"({len(hung)} hangs)", "; ".join(hung[:10]))
        for t, boots_failed in sorted(failed.items()):
            print(f"# {kernel}: {t} failed in {len(boots_failed)} of {ran} boots")
    return 1 if FAILED else 0


def check_mutant(d, patch):
    """Which checks of one mutant's guest failed: the quick kselftests, the
    FUTEX2_NUMA race test, the precheck count and the waiter count, as
    the patched kernel passes them, and a clean console."""
    kn = parse_results.read_kernel(d)
    caught = []
    if kn["end"] is None:
        caught.append("the guest did not finish")
    ks, nr = kn["kselftest"], (kn["numarace"] or parse_results.parse_numa_race(""))["tap"]
    if ks is None or not ks.programs["pass"]:
        caught.append("no kselftest results")
    else:
        caught += [with_evidence(os.path.basename(d), f, kn["evidence"]) for f in ks.failed]
    if nr.programs["pass"] != 1:
        caught += nr.failed or [NUMA_RACE + " did not run"]
    for kind, (waits, bucket) in sorted((kn["precheck"] or {}).items()):
        if bucket:
            caught.append(f"{bucket} of {waits} mismatched {kind} waits reached the bucket")
    for kind in ("private", "shared"):
        v = (kn["waiters"] or {}).get(kind)
        if not v:
            caught.append(f"no waiter count for aborted {kind} waits")
        elif not waiters_clean(v):
            caught.append(f"after aborted {kind} waits {v['busy']} wakes saw a waiter count "
                          f"(woken {v['woken']})")
    caught += [f"console: {b}" for b in kn["badness"] or []][:1]
    with open(patch) as f:
        why = [line.split(":", 1)[1].strip() for line in f
               if line.startswith("Not caught here:")]
    return caught, " ".join(why)


def mutants(d):
    """make mutants: every mutant of tests/mutants/ is caught, or its patch
    says why it cannot be here ("Not caught here: ...")."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mutants")
    for name in sorted(os.listdir(d)):
        caught, why = check_mutant(os.path.join(d, name), os.path.join(here, name + ".patch"))
        if caught:
            verdict(True, f"mutant {name} is caught: {'; '.join(caught[:3])}")
        elif why:
            verdict(True, f"mutant {name} survives # SKIP not caught here: {why}")
        else:
            verdict(False, f"mutant {name} is caught", "every check passed on it")
    return 1 if FAILED else 0


def main(argv):
    # make sanitize and make soak: each DIR is one guest's results.
    per_guest = {"--sanitize": [check_sanitized], "--soak": [check_failfutex, check_soak]}
    if argv[1] in per_guest:
        for d in argv[2:]:
            kn = parse_results.read_kernel(d)
            for check in per_guest[argv[1]]:
                check(os.path.basename(d), kn)
        return 1 if FAILED else 0
    if argv[1] == "--boots":
        return boots(argv[2])
    if argv[1] == "--mutants":
        return mutants(argv[2])
    run, tree = argv[1], argv[2]
    # Every console, the guests' own included, is scanned with TREE's script.
    parse_results.TREE = tree
    k = {name: parse_results.read_kernel(os.path.join(run, name))
         for name in compare_kernels.KERNELS + ("patched-many",)}
    check_kselftests(k)
    check_console(k)
    check_precheck(k)
    check_waiters(k)
    check_resize(k)
    check_topology(k["patched-many"])
    check_semantics(k)
    check_badinput(k)
    check_stable(run)
    check_numa_race(run, k, tree)
    check_failfutex("patched", k["patched"])
    check_soak("patched", k["patched"])
    # make check's native runs, where it made any.
    if any(os.path.exists(os.path.join(run, n)) for n in ("native-1", "native-2")):
        check_native(run)
    if os.path.isdir(os.path.join(run, "mutants")):
        mutants(os.path.join(run, "mutants"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
