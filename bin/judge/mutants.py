# SPDX-License-Identifier: GPL-2.0
"""Deliberate bugs, each caught by the check its patch names: the checks of
the mutant scenario by name (make mutants, and make check's mutant and
its control), and make lockcheck's, lockdep's reports of a hash
reference put under curr->pi_lock."""

import os

import parse_results
from judge.core import TOP, console_hits, guest_problems, keys, planned
from judge.kselftest import plan_problems
from judge.series import precheck_data, precheck_problems, waiters_counts, waiters_data, waiters_problem
from judge.stress import replace_problems
from parse_results import with_evidence

SCENARIOS = os.path.join(TOP, "configs", "scenarios")

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
    why = [] if kn.end is not None else ["no end section"]
    why += [f"section {n} written {kn.sections.count(n)} times" for n in kn.repeated]
    steps = kn.about.get("steps")
    for step in steps.split(",") if steps else scenario_steps("mutant"):
        sec = STEP_SECTIONS.get(step, step)
        if sec not in kn.sections:
            why.append(f"step {step} reported no {sec} section")
        elif sec in parse_results.TAP_SECTIONS:
            why += plan_problems(kn, sec)
        elif sec in WHOLE_COUNTS:
            why += [p for kind in ("private", "shared") for p in WHOLE_COUNTS[sec](kn, kind)]
    return "; ".join(why) or None


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
    where = os.path.basename(kn.dir)
    for sec in ("kselftest", "numarace"):
        ks = kn.taps.get(sec)
        if ks is None:
            continue
        for f in ks.failed:
            out[f"kselftest:{f.split()[0]}"] = ("fail", with_evidence(where, f, kn.evidence))
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
    if kn.replace is not None:
        rep = replace_problems(kn)
        out["replace"] = ("skip" if kn.replace.skip else "fail", "; ".join(rep)) if rep else None
    out["console"] = ("fail", (kn.badness or ["console missing"])[0]) if kn.badness != [] else None
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
def check_mutant(j, name, kn, header):
    """One mutant: its guest completed, and a check its patch names as
    catching it (Caught-by:) failed, not skipped; or its patch says why it
    cannot be caught here (Not-caught-here:) and names none. A mutant that
    deadlocks or crashes the kernel ends its guest early (bin/boot.sh
    panics on an RCU stall): its console's report is the catch, where the
    patch names the console."""
    key = f"mutant.{name}"
    if header is None:
        return j.verdict(key, False, f"mutant {name}: its patch is in tests/mutants/", "no such patch")
    incomplete = mutant_incomplete(kn)
    report = [(c, h[0]) for c in header["caught_by"] for h in [console_hits(kn, c)] if h]
    if incomplete and report:
        return j.verdict(key, True, f"mutant {name} is caught by {report[0][0]}: {report[0][1]}"
                         f" (its guest ended early: {incomplete})")
    if incomplete:
        return j.verdict(key, False, f"mutant {name}: its guest completed", incomplete)
    checks = mutant_checks(kn, header["caught_by"])
    if header["not_caught"] and not header["caught_by"]:
        return j.skipped(key, f"mutant {name} survives", "not caught here: " + header["not_caught"])
    hit = [checks[c][1] for c in header["caught_by"] if checks.get(c) and checks[c][0] == "fail"]
    others = [c for c, v in checks.items() if v and c not in header["caught_by"]]
    j.verdict(key, bool(hit), f"mutant {name} is caught by {', '.join(header['caught_by']) or 'no check named'}"
              + (f": {'; '.join(hit[:2])}" if hit else ""),
              "the named checks did not fail" + (f"; failed instead: {', '.join(others[:5])}" if others else "")
              + f"; waiters: {waiters_counts(kn)}"
              if header["caught_by"] else "its patch names no Caught-by: check")


def control_verdict(j, key, what, kn, named):
    """KEY: the unmutated kernel WHAT in the mutant scenario, KN: the guest
    completed and every check passed, each of NAMED among them (a name that
    the control does not report is a typo, and fails)."""
    incomplete = mutant_incomplete(kn) if kn else "no control run"
    named = sorted(named)
    checks = mutant_checks(kn, named) if kn and not incomplete else {}
    unknown = [c for c in named if c not in checks]
    bad = [f"{c}: {v[1]}" for c, v in checks.items() if v]
    j.verdict(key, not incomplete and not unknown and not bad,
              f"mutant control: the unmutated {what} completes and passes all {len(checks)} checks, "
              f"the {len(named)} the mutants name among them",
              incomplete or "; ".join(bad[:5] + [f"{c}: not reported" for c in unknown]))


@keys("mutant-control")
def check_control(j, kn, headers):
    """The unmutated kernel, as the mutants without a Flavour: line are
    built, passes every check that any mutant names."""
    control_verdict(j, "mutant-control", "kernel", kn,
                    {c for h in headers.values() if h for c in h["caught_by"]})


@keys("mutant-control.{name}")
def check_flavour_control(j, flavour, kn, headers):
    """The unmutated kernel of a flavour that a mutant's patch names
    (Flavour:), which its checks may only catch there (a KASAN report), passes
    every check that the mutants of that flavour name: a report that the
    series itself causes is no catch."""
    control_verdict(j, f"mutant-control.{flavour}", f"{flavour} kernel", kn,
                    {c for h in headers.values() if h and h["flavour"] == flavour for c in h["caught_by"]})


def mutant_flavours(headers):
    """The kernel flavours that the mutants' patches name (Flavour:)."""
    return sorted({h["flavour"] for h in headers.values() if h and h["flavour"]})


def mutant_plan(j, d):
    names = sorted(os.listdir(d)) if os.path.isdir(d) else []
    headers = {name: mutant_header(os.path.join(j.mutants, name + ".patch")) for name in names}
    return names, ["mutants.ran"] + [x for n in names for x in planned(check_mutant, n)] + \
        planned(check_control) + [x for f in mutant_flavours(headers) for x in planned(check_flavour_control, f)]


def check_mutants(j, d, control):
    """Every mutant of DIR is caught by the check its patch names, and the
    unmutated CONTROL passes every check; so does CONTROL-FLAVOUR, the
    unmutated kernel of each flavour that a mutant names."""
    names, _ = mutant_plan(j, d)
    headers = {name: mutant_header(os.path.join(j.mutants, name + ".patch")) for name in names}
    j.verdict("mutants.ran", any(h and h["caught_by"] for h in headers.values()),
              f"{len(names)} mutants ran, at least one that a check must catch",
              f"in {d}: " + (", ".join(names) or "no mutant"))
    for name in names:
        check_mutant(j, name, j.read(os.path.join(d, name)), headers[name])
    check_control(j, j.read(control) if os.path.isdir(control) else None,
                  headers or {n[:-6]: mutant_header(os.path.join(j.mutants, n))
                              for n in sorted(os.listdir(j.mutants)) if n.endswith(".patch")})
    for f in mutant_flavours(headers):
        path = f"{os.path.normpath(control)}-{f}"
        check_flavour_control(j, f, j.read(path) if os.path.isdir(path) else None, headers)


def exitpi_problems(kn):
    """Why step exitpi (guest/futex_exitpi.c) did not make the put it is
    for, or failed: none where the PI waiter queued, a futex operation
    held a reference in a fault, PR_FUTEX_HASH_SET_SLOTS slept, the owner
    exited, the kernel logged the forced put (tests/lockcheck/probe.patch)
    and the program ended, with no error."""
    e = kn.exitpi
    if e is None:
        return ["no exitpi section"]
    if e.skip:
        return [f"skipped: {e.skip}"]
    bad = [f"futex_exitpi exited {e.rc}"] if e.rc != 0 else []
    bad += [f"it did not report: {k}" for k in parse_results.EXITPI_STAGES if not getattr(e, k)]
    if not e.probe:
        bad.append("the kernel did not log the forced put (no probe line)")
    return bad + e.errors[:2]


def lockcheck_plan(d):
    names = sorted(n for n in os.listdir(d) if n != "control") if os.path.isdir(d) else []
    return names, ["lockcheck.ran", "lockcheck.control"] + [f"lockcheck.{n}" for n in names]


def check_lockcheck(j, d):
    """make lockcheck: DIR/control, the stable patches alone, made the put
    with curr->pi_lock held and its console stayed clean; each mutant of
    DIR is caught by the check its patch names (Caught-by:
    console:PATTERN), lockdep's report."""
    names, _ = lockcheck_plan(d)
    headers = {n: mutant_header(os.path.join(j.lockcheck, n + ".patch")) for n in names}
    j.verdict("lockcheck.ran", any(h and h["caught_by"] for h in headers.values()),
              f"{len(names)} lockcheck mutants ran, each named in tests/lockcheck/",
              f"in {d}: " + (", ".join(names) or "no mutant"))
    path = os.path.join(d, "control")
    kn = j.read(path) if os.path.isdir(path) else None
    bad = (exitpi_problems(kn) + guest_problems(kn) + [f"console: {b}" for b in kn.badness or []][:1]
           + (["console missing"] if kn.badness is None else [])) if kn else ["no control run"]
    j.verdict("lockcheck.control", not bad,
              "lockcheck control: the stable patches alone drop a hash reference with pi_lock held "
              "while PR_FUTEX_HASH_SET_SLOTS waits, and lockdep reports nothing", "; ".join(bad[:3]))
    for name in names:
        kn, h = j.read(os.path.join(d, name)), headers[name]
        if h is None:
            j.verdict(f"lockcheck.{name}", False, f"lockcheck mutant {name}: its patch is in tests/lockcheck/",
                      "no such patch")
            continue
        hits = [(c, x[0]) for c in h["caught_by"] for x in [console_hits(kn, c) or []] if x]
        j.verdict(f"lockcheck.{name}", bool(hits),
                  f"lockcheck mutant {name} is caught by {', '.join(h['caught_by']) or 'no check named'}"
                  + (f": {hits[0][1]}" if hits else ""),
                  "no such report; the step: " + ("; ".join(exitpi_problems(kn)) or "made the put")
                  + (f"; console: {kn.badness[0]}" if kn.badness else ""))
