# SPDX-License-Identifier: GPL-2.0
"""The futex kselftest programs: which a guest must run (its plan, the
Makefile, guest/kselftest-needs), whether each reported once, and what
they reported on base and patched; the consoles of make check's guests."""

import functools
import os
import re
import subprocess

import compare_kernels
from judge.core import TOP, guest_problems, keys
from parse_results import Machine, with_evidence

# guest/lib.sh's rule for the programs a machine is too small for.
NEEDS = os.path.join(TOP, "guest", "kselftest-needs")
FUNCTIONAL = "tools/testing/selftests/futex/functional"

# The selftest program that pins down the refusal semantics.
SEMANTICS = "futex_wait_wouldblock"


def kselftest_programs(kn, tree):
    """The futex kselftest programs that KN's guest had, as its folder
    records them (bin/describe.sh), or else TREE's Makefile; None where
    neither says."""
    if "programs" in kn.about:
        return kn.about["programs"].split() or None
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
    m = kn.machine or Machine()
    cpus = m.cpus or next((int(w) for w in kn.cpus.split()[:1] if w.isdigit()), None)
    return cpus, m.nodes or (1 if cpus else None)


def plan_problems(kn, section, programs=None, needs=None):
    """What is wrong with one kselftest step of a guest: its plan and what
    ran. Every planned program reported one result and none else did; a
    program not run is not run by the rule; with PROGRAMS (the Makefile's
    list), the plan holds each of them, run unless the rule says not."""
    plan, tap = kn.plans.get(section), kn.taps.get(section)
    if plan is None or tap is None:
        return [f"no {'plan ' + section if plan is None else section} section"]
    needs = read_needs() if needs is None else needs
    cpus, nodes = machine_size(kn)
    out = [f"{p} planned {plan.run.count(p)} times" for p in sorted(set(plan.run))
           if plan.run.count(p) > 1]
    for prog, why in sorted(plan.not_run.items()):
        rule = too_small(prog, cpus or 0, nodes or 0, needs)
        if rule != why:
            out.append(f"{prog} not run ({why}), where the rule says: {rule or 'run it'}")
    out += [f"{p} planned on a guest too small for it" for p in plan.run
            if too_small(p, cpus or 0, nodes or 0, needs)]
    if programs is not None:
        want = [p for p in programs if too_small(p, cpus or 0, nodes or 0, needs) is None]
        out += [f"{p} not planned" for p in want if p not in plan.run]
        out += [f"{p} planned, not in the Makefile" for p in plan.run if p not in programs]
    out += [f"{p} planned, no result" for p in plan.run if p not in tap.ran]
    out += [f"{p} ran, not planned" for p in sorted(set(tap.ran)) if p not in plan.run]
    out += [f"{p} reported {tap.ran.count(p)} times" for p in sorted(set(tap.ran)) if tap.ran.count(p) > 1]
    out += [f"{p}: {got} of the {want} cases it planned reported" for p, (want, got) in sorted(tap.cases.items())
            if want and got != want]
    out += [f"{t} reported twice" for t in tap.duplicates]
    return out


@keys("base.plan", "patched.plan", "patched-many.plan", "stable.plan")
def check_plans(j, k, st):
    """Each guest ran what it planned; the 8-vCPU guests every program of
    the Makefile that the rule does not leave out."""
    guests = (("base", k["base"], ("kselftest",)), ("patched", k["patched"], ("kselftest",)),
              ("patched-many", k["patched-many"], ("resize",)), ("stable", st, ("numarace",)))
    for name, kn, sections in guests:
        programs = kselftest_programs(kn, j.tree)
        bad = [] if programs or name in ("patched-many", "stable") else \
            [f"no program list in {kn.dir}/about, nor TEST_GEN_PROGS in {j.tree}"]
        bad += guest_problems(kn)
        for sec in sections:
            bad += plan_problems(kn, sec, programs if sec == "kselftest" else None)
        ran = sum(len(kn.taps[s].ran) for s in sections if s in kn.taps)
        j.verdict(f"{name}.plan", not bad,
                  f"{name}: each planned futex kselftest program reported once ({ran} programs, "
                  f"{', '.join(sections)})", "; ".join(bad[:8]))


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
def check_kselftests(j, k):
    """Every futex kselftest the 8-vCPU guest runs passes on the patched
    kernel, none skipped; on base, all but the replacement tests that the
    series makes pass."""
    for name, allowed in (("patched", ()), ("base", RESIZE_PROGRAMS)):
        kn = k[name]
        ks = kn.kselftest
        if ks is None:
            j.verdict(f"{name}.kselftest", False, f"{name}: futex kselftests ran", "no kselftest section")
            continue
        bad = [with_evidence(name, f, kn.evidence) for f in case_problems(ks, allowed)]
        total = sum(ks.programs.values())
        j.verdict(f"{name}.kselftest", total > 0 and not bad,
                  f"{name} debug kernel passes the futex kselftests, none skipped"
                  + (f" but {', '.join(allowed)}" if allowed else "")
                  + f" ({ks.programs['pass']} of {total} programs, {ks.subtests['pass']} cases)",
                  "failed: " + "; ".join(bad[:8]) if bad else "no program ran")


@keys("patched.console", "base.console")
def check_console(j, k):
    for name in ("patched", "base"):
        bad = k[name].badness
        j.verdict(f"{name}.console", bad == [], f"{name} debug kernel logs no WARNING, BUG or lockdep report",
                  bad[0] if bad else "console or console-badness.sh missing")


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
def check_resize(j, k):
    base = resize_results(k["base"].kselftest)
    j.verdict("base.resize.fails", base.get(RESIZE_BASE_FAILS) == "fail",
              "base: the replacement test fails (SET_SLOTS does not return under load)",
              f"{RESIZE_BASE_FAILS} on base: {base.get(RESIZE_BASE_FAILS, 'missing')}")
    stalled = sorted(t.split(".")[1] for t, v in base.items() if DRAIN_BASE_FAILS.match(t) and v == "fail")
    j.verdict("base.drain.fails", bool(stalled),
              f"base: SET_SLOTS waits for a futex operation stalled in a fault "
              f"({', '.join(stalled) or 'no site'})",
              "no " + DRAIN + " stall.*.set_slots_returns case failed on base")
    many = k["patched-many"]
    for name, kn in (("patched", k["patched"]), ("patched-many", many)):
        res = resize_results(kn.kselftest)
        bad = sorted(t for t, v in res.items() if v != "pass") + program_failures(kn.kselftest)
        progs = programs_of(res)
        j.verdict(f"{name}.resize", progs == sorted(RESIZE_PROGRAMS) and not bad,
                  f"{name}: the replacement tests pass ({len(res)} cases of "
                  f"{', '.join(progs) or 'none'}, {kn.cpus or '? cpus'})",
                  "failed: " + ", ".join(bad) if bad else f"ran: {', '.join(progs) or 'none'}")
    ks = many.kselftest
    ph = {t: v for t, v in (ks.results.items() if ks else []) if t.startswith(PRIV_HASH + ":")}
    j.verdict("patched-many.priv_hash", bool(ph) and all(v == "pass" for v in ph.values())
              and not program_failures(ks, (PRIV_HASH,)),
              f"patched-many: {PRIV_HASH} passes without a skip ({many.cpus or '? cpus'})",
              f"{PRIV_HASH}: {ph or 'missing'}")
    j.verdict("patched-many.console", many.badness == [], "patched-many: console clean",
              many.badness[0] if many.badness else "console missing")


@keys("semantics")
def check_semantics(j, k):
    res = {}
    for name in compare_kernels.KERNELS:
        ks = k[name].kselftest
        res[name] = {t: v for t, v in (ks.results.items() if ks else []) if t.startswith(SEMANTICS + ":")}
    same = res["base"] == res["patched"] and res["base"]
    allpass = same and all(v == "pass" for v in res["patched"].values())
    diff = sorted(t for t in set(res["base"]) | set(res["patched"])
                  if res["base"].get(t) != res["patched"].get(t) or res["patched"].get(t) != "pass")
    j.verdict("semantics", allpass, f"refused waits and error precedence: {len(res['patched'])} "
              f"{SEMANTICS} cases pass alike on base and patched",
              "differs: " + ", ".join(diff) if diff else f"no {SEMANTICS} cases")
