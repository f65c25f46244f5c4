#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge what the guests reported, one TAP line each.

Usage: bin/verdicts.py CHECK_DIR [TREE]
       bin/verdicts.py --soak DIR...	(make soak: each DIR one guest's results)
       bin/verdicts.py --sanitize DIR...	(make sanitize: likewise)
       bin/verdicts.py --boots DIR	(make boots: DIR/KERNEL-N, one per boot)
       bin/verdicts.py --mutants DIR CONTROL
				(make mutants: DIR/MUTANT, one per mutant,
				and CONTROL, the unmutated kernel's run)

CHECK_DIR holds the result folders of make check's scenarios
(configs/scenarios): base/, patched/, patched-many/ and stable/ (the base
source with the series' stable patches alone, without fixes/), each
written by bin/boot.sh; native-1/ and native-2/, two runs of the native
mode on the machine's own kernel, with native-compare/, their
comparison; mutants/MUTANT/ and mutant-control/, make check's mutant and
the unmutated patched kernel in the same scenario. Each guest's folder
says what else judging it needs (bin/describe.sh: the kselftest
programs, the fixes below the series, the steps, the console's scan);
TREE, the kernel tree, stands in for a folder written without that: its
rcutorture console-badness.sh scans the console, its futex kselftest
Makefile says which programs there are, its tags count the fixes.

Every verdict has a key; each mode plans its keys before it judges
(printed as "# plan: N verdicts") and a last verdict fails when a planned
one was not given, or given twice.
"""

import functools
import os
import re
import subprocess
import sys

import compare_kernels
import parse_results
from parse_results import NUMA_RACE, NUMA_RACE_CASE, with_evidence

TOP = parse_results.TOP
# guest/lib.sh's rule for the programs a machine is too small for.
NEEDS = os.path.join(TOP, "guest", "kselftest-needs")
SCENARIOS = os.path.join(TOP, "configs", "scenarios")
MUTANTS = os.path.join(TOP, "tests", "mutants")
LOCKCHECK = os.path.join(TOP, "tests", "lockcheck")
FUNCTIONAL = "tools/testing/selftests/futex/functional"

# The selftest program that pins down the refusal semantics.
SEMANTICS = "futex_wait_wouldblock"

# The release make check's native runs ran on (None: this machine's).
NATIVE_RELEASE = None

RESULTS = {}    # key -> ok, of the verdicts given so far
GIVEN = []      # keys in the order given, repeats included
FAILED = []     # names of the verdicts that failed


def reset():
    RESULTS.clear()
    GIVEN.clear()
    FAILED.clear()


def verdict(key, ok, name, why=""):
    """One TAP line; WHY follows a failed one."""
    ok = bool(ok)
    print(("ok " if ok else "not ok ") + name)
    GIVEN.append(key)
    RESULTS[key] = ok
    if not ok:
        FAILED.append(name)
        if why:
            print(why)


def skipped(key, name, why):
    """A verdict that does not apply to this run: ok, with SKIP and why."""
    verdict(key, True, f"{name} # SKIP {why}")


def keys(*templates):
    """Declare the verdict keys a check gives ("{name}" for its guest)."""
    def mark(fn):
        fn.keys = templates
        return fn
    return mark


def planned(check, name=""):
    return [t.format(name=name) for t in check.keys]


def check_plan(plan):
    """The last verdict: each planned key given exactly once, nothing else."""
    missing = [x for x in plan if x not in GIVEN]
    extra = sorted({x for x in GIVEN if x not in plan})
    twice = sorted({x for x in GIVEN if GIVEN.count(x) > 1})
    verdict("judge.plan", not missing and not extra and not twice,
            f"the judge gave each of its {len(plan)} planned verdicts once",
            "; ".join(f"{what}: {', '.join(x)}" for what, x in
                      (("missing", missing), ("unplanned", extra), ("given twice", twice)) if x))


def judge(plan, run):
    """Print the plan, run the checks (RUN()), then check the plan."""
    print(f"# plan: {len(plan)} verdicts, then whether each was given")
    run()
    check_plan(plan)
    return 1 if FAILED else 0


# -- The kselftest programs: which must run, and whether they did.

def kselftest_programs(kn, tree):
    """The futex kselftest programs that KN's guest had, as its folder
    records them (bin/describe.sh), or else TREE's Makefile; None where
    neither says."""
    if "programs" in kn["about"]:
        return kn["about"]["programs"].split() or None
    return test_gen_progs(tree)


def test_gen_progs(tree):
    """TEST_GEN_PROGS of TREE's futex kselftest Makefile, as make reads it,
    or None."""
    if tree is None:
        return None
    try:
        with open(os.path.join(tree, FUNCTIONAL, "Makefile")) as f:
            return _test_gen_progs(tree, f.read())
    except OSError:
        return None


@functools.lru_cache(maxsize=16)
def _test_gen_progs(tree, makefile):
    """test_gen_progs() of TREE whose Makefile reads MAKEFILE."""
    r = subprocess.run(["make", "-s", "--no-print-directory", "-C", os.path.join(tree, FUNCTIONAL),
                        "--eval", "futex-programs: ; @echo $(notdir $(TEST_GEN_PROGS))",
                        "futex-programs"], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return r.stdout.split() or None


def read_needs(path=NEEDS):
    """guest/kselftest-needs -> {program: (cpus, nodes)}."""
    out = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 3 and not w[0].startswith("#"):
                out[w[0]] = (int(w[1]), int(w[2]))
    return out


def too_small(prog, cpus, nodes, needs):
    """Why a machine of CPUS and NODES does not run PROG, or None: the
    rule of guest/lib.sh's needs_why()."""
    c, n = needs.get(prog, (0, 0))
    if cpus < c:
        return f"needs {c} CPUs, {cpus} online"
    if nodes < n:
        return f"needs {n} NUMA nodes, {nodes} online"
    return None


def machine_size(kn):
    """CPUs and NUMA nodes a guest reported (its machine section, else
    its cpus line), or (None, None)."""
    m = kn["machine"] or {}
    cpus = m.get("cpus") or next((int(w) for w in kn["cpus"].split()[:1] if w.isdigit()), None)
    return cpus, m.get("nodes") or (1 if cpus else None)


def plan_problems(kn, section, programs=None, needs=None):
    """What is wrong with one kselftest step of a guest: its plan and what
    ran. Every planned program reported one result and none else did; a
    program not run is not run by the rule; with PROGRAMS (the Makefile's
    list), the plan holds each of them, run unless the rule says not."""
    plan, tap = kn["plans"].get(section), kn["taps"].get(section)
    if plan is None or tap is None:
        return [f"no {'plan ' + section if plan is None else section} section"]
    needs = read_needs() if needs is None else needs
    cpus, nodes = machine_size(kn)
    out = [f"{p} planned {plan['run'].count(p)} times" for p in sorted(set(plan["run"]))
           if plan["run"].count(p) > 1]
    for prog, why in sorted(plan["not_run"].items()):
        rule = too_small(prog, cpus or 0, nodes or 0, needs)
        if rule != why:
            out.append(f"{prog} not run ({why}), where the rule says: {rule or 'run it'}")
    out += [f"{p} planned on a guest too small for it" for p in plan["run"]
            if too_small(p, cpus or 0, nodes or 0, needs)]
    if programs is not None:
        want = [p for p in programs if too_small(p, cpus or 0, nodes or 0, needs) is None]
        out += [f"{p} not planned" for p in want if p not in plan["run"]]
        out += [f"{p} planned, not in the Makefile" for p in plan["run"] if p not in programs]
    out += [f"{p} planned, no result" for p in plan["run"] if p not in tap.ran]
    out += [f"{p} ran, not planned" for p in sorted(set(tap.ran)) if p not in plan["run"]]
    out += [f"{p} reported {tap.ran.count(p)} times" for p in sorted(set(tap.ran)) if tap.ran.count(p) > 1]
    out += [f"{p}: {got} of the {want} cases it planned reported" for p, (want, got) in sorted(tap.cases.items())
            if want and got != want]
    out += [f"{t} reported twice" for t in tap.duplicates]
    return out


def guest_problems(kn):
    """What is wrong with a guest's run as a whole: it reached its end,
    wrote each section once, its console has the kernel's boot, and its
    machine section agrees with its cpus line."""
    out = [] if kn["end"] is not None else ["no end section: the guest did not finish"]
    out += [f"section {n} written {kn['sections'].count(n)} times" for n in kn["repeated"]]
    if kn["accel"] != "native" and not kn["console_booted"]:
        out.append("no console.log with the kernel's boot")
    m = kn["machine"] or {}
    line = next((int(w) for w in kn["cpus"].split()[:1] if w.isdigit()), None)
    if m.get("cpus") != line:
        out.append(f"machine section says {m.get('cpus')} CPUs, the cpus line {line}")
    return out


@keys("base.plan", "patched.plan", "patched-many.plan", "stable.plan")
def check_plans(k, st, tree):
    """Each guest ran what it planned; the 8-vCPU guests every program of
    the Makefile that the rule does not leave out."""
    guests = (("base", k["base"], ("kselftest",)), ("patched", k["patched"], ("kselftest",)),
              ("patched-many", k["patched-many"], ("resize",)), ("stable", st, ("numarace",)))
    for name, kn, sections in guests:
        programs = kselftest_programs(kn, tree)
        bad = [] if programs or name in ("patched-many", "stable") else \
            [f"no program list in {kn['dir']}/about, nor TEST_GEN_PROGS in {tree}"]
        bad += guest_problems(kn)
        for sec in sections:
            bad += plan_problems(kn, sec, programs if sec == "kselftest" else None)
        ran = sum(len(kn["taps"][s].ran) for s in sections if s in kn["taps"])
        verdict(f"{name}.plan", not bad,
                f"{name}: each planned futex kselftest program reported once ({ran} programs, "
                f"{', '.join(sections)})", "; ".join(bad[:8]))


# -- make check's guests.

def case_problems(ks, allowed=()):
    """Failed programs, failed or skipped cases and programs stopped for
    their time, except those of the programs ALLOWED to fail."""
    out = [f for f in ks.failed if f.split()[0] not in allowed]
    out += [f"{t}: {v}" for t, v in sorted(ks.results.items())
            if v != "pass" and t.split(":")[0] not in allowed]
    out += [f"{t} timed out" for t in ks.timeouts if t not in allowed]
    out += [f"{ks.programs['skip']} programs skipped"] if ks.programs["skip"] else []
    return out


@keys("patched.kselftest", "base.kselftest")
def check_kselftests(k):
    """Every futex kselftest the 8-vCPU guest runs passes on the patched
    kernel, none skipped; on base, all but the replacement tests that the
    series makes pass."""
    for name, allowed in (("patched", ()), ("base", RESIZE_PROGRAMS)):
        kn = k[name]
        ks = kn["kselftest"]
        if ks is None:
            verdict(f"{name}.kselftest", False, f"{name}: futex kselftests ran", "no kselftest section")
            continue
        bad = [with_evidence(name, f, kn["evidence"]) for f in case_problems(ks, allowed)]
        total = sum(ks.programs.values())
        verdict(f"{name}.kselftest", total > 0 and not bad,
                f"{name} debug kernel passes the futex kselftests, none skipped"
                + (f" but {', '.join(allowed)}" if allowed else "")
                + f" ({ks.programs['pass']} of {total} programs, {ks.subtests['pass']} cases)",
                "failed: " + "; ".join(bad[:8]) if bad else "no program ran")


@keys("patched.console", "base.console")
def check_console(k):
    for name in ("patched", "base"):
        bad = k[name]["badness"]
        verdict(f"{name}.console", bad == [], f"{name} debug kernel logs no WARNING, BUG or lockdep report",
                bad[0] if bad else "console or console-badness.sh missing")


def precheck_data(kn, kind):
    """What is wrong with one guest's precheck counts of KIND other than
    the verdict itself, as a list: the step ran without an error, every
    wait asked for ended as it must, and every matched wait of the control
    reached the bucket (the probe counts what it must)."""
    pc = kn["precheck_all"]
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
    v = ((kn["precheck_all"] or {}).get("mismatched") or {}).get(kind)
    if v and ((v["bucket"] < v["waits"]) if base else v["bucket"] != 0):
        out.append(f"{v['bucket']} of {v['waits']} mismatched {kind} waits reached the bucket")
    return out


@keys("base.precheck.private", "base.precheck.shared",
      "patched.precheck.private", "patched.precheck.shared")
def check_precheck(k):
    """Base: every mismatched wait reaches the bucket; patched: none does;
    on both, every matched wait of the control does (the probe works)."""
    for name, rule in (("base", "all {w} mismatched {kind} waits reach the bucket"),
                       ("patched", "no mismatched {kind} wait reaches the bucket")):
        for kind in ("private", "shared"):
            kn = k[name]
            v = ((kn["precheck_all"] or {}).get("mismatched") or {}).get(kind) or {}
            bad = precheck_problems(kn, kind, base=name == "base")
            verdict(f"{name}.precheck.{kind}", not bad,
                    f"{name}: " + rule.format(w=v.get("waits", 0), kind=kind)
                    + ", every matched one of the control does", "; ".join(bad))


def waiters_data(kn, kind):
    """What is wrong with one guest's aborted waits of KIND other than the
    verdict itself (guest/futex_aborted.c): no error, every round aborted
    waits, every wake with nobody waiting returned."""
    w = kn["waiters"] or {}
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
    v = (kn["waiters"] or {}).get(kind) or {}
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
    w = kn["waiters"] or {}
    return "; ".join(f"{kind}: {v.get('busy', '?')} of {v.get('wakes', '?')} wakes saw a count, "
                     f"waiter seen {v.get('waiter_busy', '?')} times" + missed(v)
                     for kind in ("private", "shared") for v in [w.get(kind) or {}])


@keys("base.waiters.private", "base.waiters.shared", "patched.waiters.private", "patched.waiters.shared")
def check_waiters(k):
    for name in compare_kernels.KERNELS:
        for kind in ("private", "shared"):
            v = (k[name]["waiters"] or {}).get(kind) or {}
            bad = waiters_problem(k[name], kind)
            verdict(f"{name}.waiters.{kind}", bad is None,
                    f"{name}: after {v.get('aborted', 0)} aborted {kind} waits, {v.get('wakes', 0)} "
                    f"wakes see no waiter count and a real waiter is woken", bad or "")


RESIZE = "futex_hash_resize"
# Needs more than 16 CPUs; the 18-vCPU guest runs it.
PRIV_HASH = "futex_priv_hash"
# The case that fails on a kernel whose private hash replacement never ends
# under load: with 64 threads at work the old hash's count never drains.
RESIZE_BASE_FAILS = RESIZE + ":global.set_slots_completes_under_load_64"
# A futex operation stalled in a fault, and a starved reference holder:
# fails on a kernel that holds a reference on the private hash across a
# fault, passes once none does.
DRAIN = "futex_hash_drain"
DRAIN_BASE_FAILS = re.compile(re.escape(DRAIN) + r":stall\.\w+\.set_slots_returns$")
# The programs of the private hash tests, each of which must report.
RESIZE_PROGRAMS = (RESIZE, DRAIN)


def resize_results(ks):
    return {t: v for t, v in (ks.results.items() if ks else [])
            if t.startswith(tuple(p + ":" for p in RESIZE_PROGRAMS))}


def program_failures(ks, programs=RESIZE_PROGRAMS + (PRIV_HASH,)):
    """The PROGRAMS whose runner result failed or that were stopped for
    their time, whatever their cases said."""
    return [f for f in (ks.failed if ks else []) if f.split()[0] in programs] + \
        [f"{t} timed out" for t in (ks.timeouts if ks else []) if t in programs]


def programs_of(results):
    return sorted({t.split(":")[0] for t in results})


@keys("base.resize.fails", "base.drain.fails", "patched.resize", "patched-many.resize",
      "patched-many.priv_hash", "patched-many.console")
def check_resize(k):
    base = resize_results(k["base"]["kselftest"])
    verdict("base.resize.fails", base.get(RESIZE_BASE_FAILS) == "fail",
            "base: the replacement test fails (SET_SLOTS does not return under load)",
            f"{RESIZE_BASE_FAILS} on base: {base.get(RESIZE_BASE_FAILS, 'missing')}")
    stalled = sorted(t.split(".")[1] for t, v in base.items() if DRAIN_BASE_FAILS.match(t) and v == "fail")
    verdict("base.drain.fails", bool(stalled),
            f"base: SET_SLOTS waits for a futex operation stalled in a fault "
            f"({', '.join(stalled) or 'no site'})",
            "no " + DRAIN + " stall.*.set_slots_returns case failed on base")
    many = k["patched-many"]
    for name, kn in (("patched", k["patched"]), ("patched-many", many)):
        res = resize_results(kn["kselftest"])
        bad = sorted(t for t, v in res.items() if v != "pass") + program_failures(kn["kselftest"])
        progs = programs_of(res)
        verdict(f"{name}.resize", progs == sorted(RESIZE_PROGRAMS) and not bad,
                f"{name}: the replacement tests pass ({len(res)} cases of "
                f"{', '.join(progs) or 'none'}, {kn['cpus'] or '? cpus'})",
                "failed: " + ", ".join(bad) if bad else f"ran: {', '.join(progs) or 'none'}")
    ks = many["kselftest"]
    ph = {t: v for t, v in (ks.results.items() if ks else []) if t.startswith(PRIV_HASH + ":")}
    verdict("patched-many.priv_hash", bool(ph) and all(v == "pass" for v in ph.values())
            and not program_failures(ks, (PRIV_HASH,)),
            f"patched-many: {PRIV_HASH} passes without a skip ({many['cpus'] or '? cpus'})",
            f"{PRIV_HASH}: {ph or 'missing'}")
    verdict("patched-many.console", many["badness"] == [], "patched-many: console clean",
            many["badness"][0] if many["badness"] else "console missing")


# The 18-vCPU guest's topology, like Sub-NUMA Clustering: two sockets of
# three nodes each, nodes 0-2 on socket 0 and 3-5 on socket 1.
SNC_SOCKETS, SNC_NODES = 2, 3
SNC_LOCAL, SNC_SOCKET, SNC_REMOTE = 10, 12, 21


def snc_distances(n):
    """The distance matrix of N nodes in SNC_SOCKETS sockets of SNC_NODES."""
    return [[SNC_LOCAL if i == j else SNC_SOCKET if i // SNC_NODES == j // SNC_NODES else SNC_REMOTE
             for j in range(n)] for i in range(n)]


@keys("patched-many.topology")
def check_topology(many):
    """The patched-many guest boots with the SNC-like topology: the
    FUTEX2_NUMA tests then see more nodes than sockets."""
    m = many["machine"] or {}
    n = SNC_SOCKETS * SNC_NODES
    seen = [m["node"][i]["distances"] if i in m["node"] else [] for i in range(n)] if m else []
    verdict("patched-many.topology", m.get("nodes") == n and seen == snc_distances(n),
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


@keys("native-1.end", "native-1.recorded", "native-2.end", "native-2.recorded", "native.compare")
def check_native(run, release=None):
    """make check's native runs (CHECK_DIR/native-1, native-2) on this
    machine's own kernel (RELEASE): each ran to its end, described the
    machine and recorded the kselftest and every benchmark, or why it
    could not, and their comparison (native-compare) wrote the summary
    files. What the host kernel measures or passes is not judged."""
    release = release or NATIVE_RELEASE or os.uname().release
    for name in NATIVE_RUNS:
        kn = parse_results.read_kernel(os.path.join(run, name))
        m = kn["machine"] or {}
        verdict(f"{name}.end", kn["end"] is not None and kn["accel"] == "native" and m.get("runner") == "native"
                and m.get("release") == release and m.get("cpus"),
                f"{name}: a native run on {release} ends and describes the machine",
                f"end {kn['end'] is not None}, accel {kn['accel']!r}, machine {m or 'missing'}")
        missing = native_missing(kn)
        verdict(f"{name}.recorded", not missing, f"{name}: records the kselftest and every benchmark, "
                f"or why not ({len(kn['bench'])} runs, {len(kn['skips'])} steps not run)",
                "neither results nor a reason for: " + ", ".join(missing))
    out = os.path.join(run, "native-compare")
    absent = [f for f in SUMMARY_FILES if not os.path.exists(os.path.join(out, f))]
    verdict("native.compare", not absent, "the two native runs compare into summary.md, .tsv and .json",
            "missing: " + ", ".join(absent))


@keys("semantics")
def check_semantics(k):
    res = {}
    for name in compare_kernels.KERNELS:
        ks = k[name]["kselftest"]
        res[name] = {t: v for t, v in (ks.results.items() if ks else []) if t.startswith(SEMANTICS + ":")}
    same = res["base"] == res["patched"] and res["base"]
    allpass = same and all(v == "pass" for v in res["patched"].values())
    diff = sorted(t for t in set(res["base"]) | set(res["patched"])
                  if res["base"].get(t) != res["patched"].get(t) or res["patched"].get(t) != "pass")
    verdict("semantics", allpass, f"refused waits and error precedence: {len(res['patched'])} "
            f"{SEMANTICS} cases pass alike on base and patched",
            "differs: " + ", ".join(diff) if diff else f"no {SEMANTICS} cases")


# Calls of guest/futex_badinput.c whose result the series changes on
# purpose, with why. None: the unlocked check keeps every error's
# precedence, and a mismatch was -EWOULDBLOCK before as well.
INTENDED = {}


@keys("badinput")
def check_badinput(k):
    b, p = k["base"]["badinput"], k["patched"]["badinput"]
    if not b or not p or not b["total"] or not p["total"] or b["errors"] or p["errors"]:
        return verdict("badinput", False, "malformed futex calls ran on both kernels",
                       "; ".join((b or {}).get("errors", []) + (p or {}).get("errors", []))
                       or "no complete badinput section")
    diff = [d for d in parse_results.badinput_diff(b, p) if d[0] not in INTENDED]
    complete = len(p["calls"]) == p["total"] and len(b["calls"]) == b["total"]
    verdict("badinput", not diff and complete,
            f"{len(p['calls'])} malformed futex calls give the same results on base and "
            f"patched ({len(INTENDED)} intended differences)",
            "; ".join(f"{c}: base {rb}, patched {rp}" for c, rb, rp in diff[:5])
            or f"calls reported: base {len(b['calls'])} of {b['total']}, patched {len(p['calls'])} of {p['total']}")


@keys("{name}.failfutex")
def check_failfutex(name, kn):
    """A guest that ran the failfutex step: whatever the injected faults made
    the programs report, each of them ended on its own, and so did
    futex_badinput and stress-ng, which did its futex operations."""
    key = f"{name}.failfutex"
    f = kn["failfutex"]
    if f is None or f["errors"]:
        skip = compare_kernels.skip_reason(kn, ("failfutex",))
        return verdict(key, False, f"{name}: futex programs ran under fault injection",
                       "; ".join(f["errors"]) if f else f"not run: {skip}" if skip
                       else "no failfutex section")
    verdict(key, f["faults"] > 0 and f["programs"] == f["listed"] > 0 and not f["timeouts"]
            and f["badinput_rc"] == 0 and f["stress_rc"] == 0 and f["stress_ops"] > 0,
            f"{name}: with fail_futex failing {f['faults']} of {f['calls']} checks, "
            f"{f['programs']} futex kselftest programs end within their test cases' "
            f"timeouts, the malformed calls and stress-ng ({f['stress_ops']} futex ops) "
            f"on their own",
            f"outlived their test cases' timeouts: {', '.join(f['timeouts']) or 'none'}; "
            f"programs {f['programs']} of {f['listed']}; faults {f['faults']}; futex_badinput rc "
            f"{f['badinput_rc']}; stress-ng rc {f['stress_rc']}, {f['stress_ops']} ops")


# The perf bench futex benchmarks of the soak step, each of which must run.
SOAK_PERF = ("wake", "wake-parallel", "requeue", "lock-pi")


@keys("{name}.soak")
def check_soak(name, kn):
    """The soak: stress-ng and every perf bench futex benchmark ran, each
    run ended on its own, and the console stayed clean."""
    key = f"{name}.soak"
    s = kn["soak"]
    if not s or s["errors"] or s["stress_rc"] is None:
        return verdict(key, False, f"{name}: the soak ran",
                       "; ".join((s or {}).get("errors", [])) or "no soak section")
    bad = [f"{b} rc {rc}" for b, (_, rc) in s["perf"].items() if rc != 0]
    bad += [f"perf bench futex {b} did not run" for b in SOAK_PERF if s["perf"].get(b, (0, 0))[0] < 1]
    runs = ", ".join(f"{b} {n}" for b, (n, _) in s["perf"].items())
    bad += guest_problems(kn)
    verdict(key, s["stress_rc"] == 0 and s["stress_ops"] > 0 and not bad and kn["badness"] == [],
            f"{name} ({kn['cpus'] or '? cpus'}): the soak's runs all end on their own "
            f"(stress-ng --futex, {s['stress_ops']} ops; perf bench futex runs: {runs or 'none'}), "
            f"console clean",
            f"stress-ng rc {s['stress_rc']}, {s['stress_ops']} ops; {', '.join(bad) or 'perf ok'}; "
            f"console: {kn['badness'][0] if kn['badness'] else 'clean'}")


# Step replace's counts of what went wrong, each of which must be 0.
REPLACE_FAILURES = ("lost", "exclusion", "children_failed", "errors")


def replace_problems(kn):
    """What step replace (guest/futex_replace.c) found wrong, or why it
    tells nothing: none where its replacements were done and it lost no
    waiter, let no two into a PI lock, and no child or call failed."""
    r = kn["replace"]
    if r is None:
        return ["no replace section"]
    if r["skip"]:
        return [f"skipped: {r['skip']}"]
    c = r["counts"]
    bad = [f"futex_replace exited {r['rc']}"] if r["rc"] != 0 else []
    if c is None:
        return bad + ["no summary line"]
    bad += [f"{k}={c[k]}" for k in REPLACE_FAILURES if c[k]]
    if not c["replacements"]:
        bad.append("no replacement done")
    return bad + r["found"][:2]


@keys("{name}.replace")
def check_replace(name, kn):
    """Step replace: every kind of private futex operation while the hash
    is replaced, each waiter woken, each PI lock held by one at a time."""
    bad = replace_problems(kn)
    c = (kn["replace"] or {}).get("counts") or {}
    verdict(f"{name}.replace", not bad,
            f"{name} ({kn['cpus'] or '? cpus'}): every private futex operation during "
            f"{c.get('replacements')} replacements of the hash, {c.get('forks')} forks and "
            f"{c.get('signals')} signals: no waiter lost, no PI lock shared",
            "; ".join(bad) + (f"; console: {kn['badness'][0]}" if kn["badness"] else ""))


@keys("{name}.kselftest", "{name}.badinput", "{name}.console")
def check_sanitized(name, kn):
    ks, b = kn["kselftest"], kn["badinput"]
    failed = [with_evidence(name, f, kn["evidence"]) for f in case_problems(ks)] if ks else []
    bad = failed + plan_problems(kn, "kselftest") + guest_problems(kn)
    verdict(f"{name}.kselftest", not bad and ks.programs["pass"] > 0,
            f"{name}: the futex kselftests pass ({ks.programs['pass'] if ks else 0} programs)",
            "failed: " + "; ".join(bad) if ks else "no kselftest section")
    verdict(f"{name}.badinput", b is not None and not b["errors"] and b["total"] and len(b["calls"]) == b["total"],
            f"{name}: the malformed futex calls all return ({len(b['calls']) if b else 0} calls)",
            "; ".join(b["errors"]) if b else "no badinput section")
    verdict(f"{name}.console", kn["badness"] == [], f"{name}: no sanitizer report, WARNING or BUG on the console",
            kn["badness"][0] if kn["badness"] else "console missing")


def has_fixes(kn, tree):
    """Whether fixes/ had patches below the series, as KN's folder records
    it (bin/describe.sh), or else as TREE says: its base is not its
    upstream."""
    if "fixes" in kn["about"]:
        return kn["about"]["fixes"] != "0"
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
    hist = (kn["resizebench"] or {}).get("refstate") or {}
    total = sum(hist.values())
    return (hist.get(1, 0) / total if total else None), total


def _share(share, total):
    return f"{share:.2%} of {total:,}" if share is not None else "no histogram"


@keys("stable.refstate", "base.refstate.stuck", "stable.size", "stable.console")
def check_stable(st, k):
    """On the base source with the series' stable patches alone, and
    without fixes/ (tag stable), the references of a process are counted
    per CPU after a ramp of threads under load, and the hash has its
    automatic size; on base (without the stable patches) they stay on the
    shared atomic."""
    share, total = atomic_share(st)
    verdict("stable.refstate", share is not None and share <= REFSTATE_ATOMIC_MAX,
            f"stable: after a ramp to 64 threads at most {REFSTATE_ATOMIC_MAX:.0%} of the "
            f"references found FR_ATOMIC ({_share(share, total)})",
            _share(share, total))
    share, total = atomic_share(k["base"])
    verdict("base.refstate.stuck", share is not None and share >= REFSTATE_ATOMIC_STUCK,
            f"base: after a ramp to 64 threads at least {REFSTATE_ATOMIC_STUCK:.0%} of the "
            f"references found FR_ATOMIC, the bug the stable patches fix ({_share(share, total)})",
            _share(share, total))
    rt = (st["resizebench"] or {}).get("retry")
    verdict("stable.size", rt is not None and rt["before"] == rt["slots"] and rt["done"],
            f"stable: under the load after a ramp to 64 threads the hash has its automatic "
            f"size ({rt['slots'] if rt else '?'} slots): no replacement was left pending",
            "no retry line" if rt is None else
            f"{rt['before']} slots under the load, the size {'reached' if rt['done'] else 'not reached'}"
            f" after a pause")
    verdict("stable.console", st["badness"] == [], "stable: console clean",
            st["badness"][0] if st["badness"] else "console missing")


@keys("stable.numarace.fails", "base.numarace", "patched.numarace")
def check_numa_race(st, k, fixes):
    """The race test fails on the base source without fixes/, for the reason
    it exists (a wake missed a queued waiter), and passes with them."""
    if not fixes:
        for key in planned(check_numa_race):
            skipped(key, f"{key.split('.')[0]}: {NUMA_RACE}", "fixes/ is empty")
        return
    nr = st["numarace"] or parse_results.parse_numa_race("")
    lost = nr["lost"] or {}
    verdict("stable.numarace.fails", nr["result"] == "fail" and bool(lost),
            f"without fixes/: {NUMA_RACE} fails, a wake on the node the futex names "
            f"misses {lost.get('missed', '?')} of {lost.get('waiters', '?')} "
            f"queued waiters (round {lost.get('round', '?')})",
            f"{NUMA_RACE_CASE}: {nr['result'] or 'missing'}"
            f"{'' if lost else ', no missed waiter reported'}")
    for name in compare_kernels.KERNELS:
        nr = k[name]["numarace_kselftest"]
        rounds = nr["rounds"]
        verdict(f"{name}.numarace", nr["result"] == "pass" and rounds is not None and rounds["nodes"] >= 2,
                f"{name}: {NUMA_RACE} passes ("
                + (f"{rounds['rounds']} rounds of {rounds['waiters']} waiters" if rounds else "no rounds")
                + ")",
                f"{NUMA_RACE_CASE}: {nr['result'] or 'missing'}{'' if rounds else ', no rounds reported'}")


# -- make boots.

def boot_runs(d):
    """{kernel: [(boot number, folder)]} of make boots' DIR/KERNEL-N."""
    runs = {}
    for name in sorted(os.listdir(d)):
        m = re.match(r"^(.+)-(\d+)$", name)
        if m:
            runs.setdefault(m.group(1), []).append((int(m.group(2)), os.path.join(d, name)))
    return runs


@keys("{name}.boots.reported", "{name}.boots.first", "{name}.boots.hung")
def check_boots(kernel, dirs):
    """One kernel's boots: each reported, futex_numa_mpol run first after
    boot passed, and no kselftest after it hung (was stopped for its time)."""
    first, hung, failed, bad = [], [], {}, []
    for i, path in sorted(dirs):
        kn = parse_results.read_kernel(path)
        fr = kn["firstrun"] or parse_results.parse_kselftest("")
        ks = kn["kselftest"]
        incomplete = plan_problems(kn, "firstrun") + plan_problems(kn, "kselftest") + guest_problems(kn)
        if ks is None or incomplete:
            bad.append(f"boot {i}: no complete results: " + "; ".join(incomplete[:3]))
            continue
        where = os.path.basename(path)
        if fr.programs["pass"] != 1 or case_problems(fr):
            ev = kn["evidence_all"]["firstrun"]
            first += [f"boot {i}: " + with_evidence(where, f, ev)
                      for f in fr.failed or ["futex_numa_mpol did not run"]]
        hung += [f"boot {i}: " + with_evidence(where, t, kn["evidence"]) for t in ks.timeouts]
        for f in ks.failed:
            failed.setdefault(f.split()[0], []).append(i)
    n = len(dirs)
    ran = n - len(bad)
    verdict(f"{kernel}.boots.reported", not bad, f"{kernel}: {ran} of {n} boots reported their results",
            "; ".join(bad))
    verdict(f"{kernel}.boots.first", not first and ran > 0, f"{kernel}: futex_numa_mpol, first after boot, "
            f"passed in {ran - len(first)} of {ran} boots", "; ".join(first))
    verdict(f"{kernel}.boots.hung", not hung and ran > 0, f"{kernel}: no futex kselftest after it hung, "
            f"in {ran} boots ({len(hung)} hangs)", "; ".join(hung[:10]))
    for t, boots_failed in sorted(failed.items()):
        print(f"# {kernel}: {t} failed in {len(boots_failed)} of {ran} boots")


def boots(d):
    """make boots: DIR/KERNEL-N, one folder per boot."""
    runs = boot_runs(d)
    plan = [x for kernel in runs for x in planned(check_boots, kernel)]
    return judge(plan, lambda: [check_boots(kernel, dirs) for kernel, dirs in sorted(runs.items())])


# -- Mutants: the checks of the mutant scenario, each by name.

# What each step of the mutant scenario reports (section names).
STEP_SECTIONS = {"quick": "kselftest", "kselftest": "kselftest", "numarace": "numarace",
                 "precheck": "precheck", "waiters": "waiters"}


# The sections of the mutant scenario whose counts must be whole, each by
# the function that says what is missing from them; step starve's line is
# read for its presence alone.
WHOLE_COUNTS = {"precheck": precheck_data, "waiters": waiters_data}


def scenario_steps(name, path=SCENARIOS):
    """The steps configs/scenarios gives scenario NAME."""
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 6 and w[0] == name:
                return w[4].split(",")
    raise ValueError(f"no scenario {name} in {path}")


def mutant_incomplete(kn):
    """Why a guest of the mutant scenario did not complete, or None: it
    reached its end, wrote each section once, every step reported, each
    kselftest step all it planned, and the precheck and waiter counts are
    whole (what they count is judged as a check)."""
    why = [] if kn["end"] is not None else ["no end section"]
    why += [f"section {n} written {kn['sections'].count(n)} times" for n in kn["repeated"]]
    steps = kn["about"].get("steps")
    for step in steps.split(",") if steps else scenario_steps("mutant"):
        sec = STEP_SECTIONS.get(step, step)
        if sec not in kn["sections"]:
            why.append(f"step {step} reported no {sec} section")
        elif sec in parse_results.TAP_SECTIONS:
            why += plan_problems(kn, sec)
        elif sec in WHOLE_COUNTS:
            why += [p for kind in ("private", "shared") for p in WHOLE_COUNTS[sec](kn, kind)]
    return "; ".join(why) or None


def console_hits(kn, check):
    """The console's flagged lines that CHECK counts: all of them for
    "console", those that match the regular expression PATTERN for
    "console:PATTERN" (a report that names the function the mutant breaks,
    where the flavour may report elsewhere too); None for any other check."""
    if check == "console":
        return kn["badness"] or []
    if check.startswith("console:"):
        return [b for b in kn["badness"] or [] if re.search(check[len("console:"):], b)]
    return None


def mutant_checks(kn, named=()):
    """{check: None where it passed, else ("fail" or "skip", why)} for every
    check of the mutant scenario: "kselftest:PROGRAM" and
    "kselftest:PROGRAM:CASE" (the quick kselftests and futex_numa_race),
    "precheck" (a mismatched wait reached the bucket), "waiters" (a wake
    after aborted waits saw a count, or a real waiter was not woken),
    "replace" where the guest ran that step (it lost a waiter or let two
    into a PI lock),
    "console", and each "console:PATTERN" of NAMED. Judged on a guest that
    completed (mutant_incomplete())."""
    out = {}
    where = os.path.basename(kn["dir"])
    for sec in ("kselftest", "numarace"):
        ks = kn["taps"].get(sec)
        if ks is None:
            continue
        for f in ks.failed:
            out[f"kselftest:{f.split()[0]}"] = ("fail", with_evidence(where, f, kn["evidence"]))
        for t in ks.timeouts:
            out[f"kselftest:{t}"] = ("fail", f"{t} timed out")
        for prog in ks.ran:
            out.setdefault(f"kselftest:{prog}", None)
        for t, v in ks.results.items():
            if v != "pass" or f"kselftest:{t}" not in out:
                out[f"kselftest:{t}"] = None if v == "pass" else (v, f"{t}: {v}")
    pre = [p for kind in ("private", "shared") for p in precheck_problems(kn, kind)
           if p not in precheck_data(kn, kind)]
    out["precheck"] = ("fail", "; ".join(pre)) if pre else None
    wait = [waiters_problem(kn, kind) for kind in ("private", "shared") if not waiters_data(kn, kind)]
    wait = [w for w in wait if w]
    out["waiters"] = ("fail", "; ".join(wait)) if wait else None
    # Where the guest ran step replace (mutant_incomplete() says whether
    # each step its scenario lists did).
    if kn["replace"] is not None:
        rep = replace_problems(kn)
        out["replace"] = ("skip" if kn["replace"]["skip"] else "fail", "; ".join(rep)) if rep else None
    out["console"] = ("fail", (kn["badness"] or ["console missing"])[0]) if kn["badness"] != [] else None
    for c in named:
        hits = console_hits(kn, c) if c != "console" else None
        if hits is not None:
            out[c] = ("fail", hits[0]) if hits else None
    return out


def mutant_header(path):
    """A mutant patch's machine-read lines: {"caught_by": [checks],
    "not_caught": why or None, "flavour": the kernel flavour it is built in,
    or None for the plain one}; None where there is no such patch."""
    if not os.path.isfile(path):
        return None
    caught, why, flavour = [], None, None
    with open(path) as f:
        for line in f:
            if line.startswith("Caught-by:"):
                caught.append(line.split(":", 1)[1].strip())
            elif line.startswith("Not-caught-here:"):
                why = line.split(":", 1)[1].strip()
            elif line.startswith("Flavour:"):
                flavour = line.split(":", 1)[1].strip()
            elif line.startswith("diff --git"):
                break
    return {"caught_by": caught, "not_caught": why, "flavour": flavour}


@keys("mutant.{name}")
def check_mutant(name, kn, header):
    """One mutant: its guest completed, and a check its patch names as
    catching it (Caught-by:) failed, not skipped; or its patch says why it
    cannot be caught here (Not-caught-here:) and names none. A mutant that
    deadlocks or crashes the kernel ends its guest early (bin/boot.sh
    panics on an RCU stall): its console's report is the catch, where the
    patch names the console."""
    key = f"mutant.{name}"
    if header is None:
        return verdict(key, False, f"mutant {name}: its patch is in tests/mutants/", "no such patch")
    incomplete = mutant_incomplete(kn)
    report = [(c, h[0]) for c in header["caught_by"] for h in [console_hits(kn, c)] if h]
    if incomplete and report:
        return verdict(key, True, f"mutant {name} is caught by {report[0][0]}: {report[0][1]}"
                       f" (its guest ended early: {incomplete})")
    if incomplete:
        return verdict(key, False, f"mutant {name}: its guest completed", incomplete)
    checks = mutant_checks(kn, header["caught_by"])
    if header["not_caught"] and not header["caught_by"]:
        return skipped(key, f"mutant {name} survives", "not caught here: " + header["not_caught"])
    hit = [checks[c][1] for c in header["caught_by"] if checks.get(c) and checks[c][0] == "fail"]
    others = [c for c, v in checks.items() if v and c not in header["caught_by"]]
    verdict(key, bool(hit), f"mutant {name} is caught by {', '.join(header['caught_by']) or 'no check named'}"
            + (f": {'; '.join(hit[:2])}" if hit else ""),
            "the named checks did not fail" + (f"; failed instead: {', '.join(others[:5])}" if others else "")
            + f"; waiters: {waiters_counts(kn)}"
            if header["caught_by"] else "its patch names no Caught-by: check")


def control_verdict(key, what, kn, named):
    """KEY: the unmutated kernel WHAT in the mutant scenario, KN: the guest
    completed and every check passed, each of NAMED among them (a name that
    the control does not report is a typo, and fails)."""
    incomplete = mutant_incomplete(kn) if kn else "no control run"
    named = sorted(named)
    checks = mutant_checks(kn, named) if kn and not incomplete else {}
    unknown = [c for c in named if c not in checks]
    bad = [f"{c}: {v[1]}" for c, v in checks.items() if v]
    verdict(key, not incomplete and not unknown and not bad,
            f"mutant control: the unmutated {what} completes and passes all {len(checks)} checks, "
            f"the {len(named)} the mutants name among them",
            incomplete or "; ".join(bad[:5] + [f"{c}: not reported" for c in unknown]))


@keys("mutant-control")
def check_control(kn, headers):
    """The unmutated kernel, as the mutants without a Flavour: line are
    built, passes every check that any mutant names."""
    control_verdict("mutant-control", "kernel", kn,
                    {c for h in headers.values() if h for c in h["caught_by"]})


@keys("mutant-control.{name}")
def check_flavour_control(flavour, kn, headers):
    """The unmutated kernel of a flavour that a mutant's patch names
    (Flavour:), which its checks may only catch there (a KASAN report), passes
    every check that the mutants of that flavour name: a report that the
    series itself causes is no catch."""
    control_verdict(f"mutant-control.{flavour}", f"{flavour} kernel", kn,
                    {c for h in headers.values() if h and h["flavour"] == flavour for c in h["caught_by"]})


def mutant_flavours(headers):
    """The kernel flavours that the mutants' patches name (Flavour:)."""
    return sorted({h["flavour"] for h in headers.values() if h and h["flavour"]})


def mutant_plan(d):
    names = sorted(os.listdir(d)) if os.path.isdir(d) else []
    headers = {name: mutant_header(os.path.join(MUTANTS, name + ".patch")) for name in names}
    return names, ["mutants.ran"] + [x for n in names for x in planned(check_mutant, n)] + \
        planned(check_control) + [x for f in mutant_flavours(headers) for x in planned(check_flavour_control, f)]


def check_mutants(d, control):
    """Every mutant of DIR is caught by the check its patch names, and the
    unmutated CONTROL passes every check; so does CONTROL-FLAVOUR, the
    unmutated kernel of each flavour that a mutant names."""
    names, _ = mutant_plan(d)
    headers = {name: mutant_header(os.path.join(MUTANTS, name + ".patch")) for name in names}
    verdict("mutants.ran", any(h and h["caught_by"] for h in headers.values()),
            f"{len(names)} mutants ran, at least one that a check must catch",
            f"in {d}: " + (", ".join(names) or "no mutant"))
    for name in names:
        check_mutant(name, parse_results.read_kernel(os.path.join(d, name)), headers[name])
    check_control(parse_results.read_kernel(control) if os.path.isdir(control) else None,
                  headers or {n[:-6]: mutant_header(os.path.join(MUTANTS, n))
                              for n in sorted(os.listdir(MUTANTS)) if n.endswith(".patch")})
    for f in mutant_flavours(headers):
        path = f"{os.path.normpath(control)}-{f}"
        check_flavour_control(f, parse_results.read_kernel(path) if os.path.isdir(path) else None, headers)


def exitpi_problems(kn):
    """Why step exitpi (guest/futex_exitpi.c) did not make the put it is
    for, or failed: none where the PI waiter queued, a futex operation
    held a reference in a fault, PR_FUTEX_HASH_SET_SLOTS slept, the owner
    exited, the kernel logged the forced put (tests/lockcheck/probe.patch)
    and the program ended, with no error."""
    e = kn["exitpi"]
    if e is None:
        return ["no exitpi section"]
    if e["skip"]:
        return [f"skipped: {e['skip']}"]
    bad = [f"futex_exitpi exited {e['rc']}"] if e["rc"] != 0 else []
    bad += [f"it did not report: {k}" for k in ("queued", "held", "waits", "exited", "done") if not e[k]]
    if not e["probe"]:
        bad.append("the kernel did not log the forced put (no probe line)")
    return bad + e["errors"][:2]


def lockcheck_plan(d):
    names = sorted(n for n in os.listdir(d) if n != "control") if os.path.isdir(d) else []
    return names, ["lockcheck.ran", "lockcheck.control"] + [f"lockcheck.{n}" for n in names]


def check_lockcheck(d):
    """make lockcheck: DIR/control, the stable patches alone, made the put
    with curr->pi_lock held and its console stayed clean; each mutant of
    DIR is caught by the check its patch names (Caught-by:
    console:PATTERN), lockdep's report."""
    names, _ = lockcheck_plan(d)
    headers = {n: mutant_header(os.path.join(LOCKCHECK, n + ".patch")) for n in names}
    verdict("lockcheck.ran", any(h and h["caught_by"] for h in headers.values()),
            f"{len(names)} lockcheck mutants ran, each named in tests/lockcheck/",
            f"in {d}: " + (", ".join(names) or "no mutant"))
    path = os.path.join(d, "control")
    kn = parse_results.read_kernel(path) if os.path.isdir(path) else None
    bad = (exitpi_problems(kn) + guest_problems(kn) + [f"console: {b}" for b in kn["badness"] or []][:1]
           + (["console missing"] if kn["badness"] is None else [])) if kn else ["no control run"]
    verdict("lockcheck.control", not bad,
            "lockcheck control: the stable patches alone drop a hash reference with pi_lock held "
            "while PR_FUTEX_HASH_SET_SLOTS waits, and lockdep reports nothing", "; ".join(bad[:3]))
    for name in names:
        kn, h = parse_results.read_kernel(os.path.join(d, name)), headers[name]
        if h is None:
            verdict(f"lockcheck.{name}", False, f"lockcheck mutant {name}: its patch is in tests/lockcheck/",
                    "no such patch")
            continue
        hits = [(c, x[0]) for c in h["caught_by"] for x in [console_hits(kn, c) or []] if x]
        verdict(f"lockcheck.{name}", bool(hits),
                f"lockcheck mutant {name} is caught by {', '.join(h['caught_by']) or 'no check named'}"
                + (f": {hits[0][1]}" if hits else ""),
                "no such report; the step: " + ("; ".join(exitpi_problems(kn)) or "made the put")
                + (f"; console: {kn['badness'][0]}" if kn["badness"] else ""))


# -- The modes.

def per_guest(checks, dirs):
    """make sanitize and make soak: each DIR one guest's results."""
    names = [os.path.basename(os.path.normpath(d)) for d in dirs]
    plan = [x for name in names for c in checks for x in planned(c, name)]

    def run():
        for d, name in zip(dirs, names):
            kn = parse_results.read_kernel(d)
            for c in checks:
                c(name, kn)
    return judge(plan, run)


MAIN_CHECKS = (check_plans, check_kselftests, check_console, check_precheck, check_waiters, check_resize,
               check_topology, check_semantics, check_badinput, check_stable, check_numa_race,
               check_failfutex, check_soak, check_replace, check_native)


def check_run(run, tree=None):
    """make check: CHECK_DIR, and TREE for folders that do not describe
    themselves."""
    # A console the run did not scan itself is scanned with TREE's script.
    if tree:
        parse_results.TREE = tree
    k = {name: parse_results.read_kernel(os.path.join(run, name))
         for name in compare_kernels.KERNELS + ("patched-many",)}
    st = parse_results.read_kernel(os.path.join(run, "stable"))
    mutants, control = os.path.join(run, "mutants"), os.path.join(run, "mutant-control")
    lockcheck = os.path.join(run, "lockcheck")
    plan = [x for c in MAIN_CHECKS for x in planned(c, "patched")] + mutant_plan(mutants)[1] + \
        lockcheck_plan(lockcheck)[1]

    def run_checks():
        check_plans(k, st, tree)
        check_kselftests(k)
        check_console(k)
        check_precheck(k)
        check_waiters(k)
        check_resize(k)
        check_topology(k["patched-many"])
        check_semantics(k)
        check_badinput(k)
        check_stable(st, k)
        check_numa_race(st, k, has_fixes(st, tree))
        check_failfutex("patched", k["patched"])
        check_soak("patched", k["patched"])
        check_replace("patched", k["patched"])
        check_native(run)
        check_mutants(mutants, control)
        check_lockcheck(lockcheck)
    return judge(plan, run_checks)


def main(argv):
    reset()
    modes = {"--sanitize": [check_sanitized], "--soak": [check_failfutex, check_soak, check_replace]}
    if argv[1] in modes:
        return per_guest(modes[argv[1]], argv[2:])
    if argv[1] == "--boots":
        return boots(argv[2])
    if argv[1] == "--lockcheck":
        return judge(lockcheck_plan(argv[2])[1], lambda: check_lockcheck(argv[2]))
    if argv[1] == "--mutants":
        return judge(mutant_plan(argv[2])[1], lambda: check_mutants(argv[2], argv[3]))
    return check_run(argv[1], argv[2] if len(argv) > 2 else None)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
