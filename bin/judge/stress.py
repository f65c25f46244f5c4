# SPDX-License-Identifier: GPL-2.0
"""The guests under stress: the futex programs under fault injection
(failfutex), the soak of stress-ng and perf bench futex, every private
futex operation during replacements of the hash (replace), and the
sanitizer kernels (make sanitize)."""

import compare_kernels
from judge.core import guest_problems, keys
from judge.kselftest import case_problems, plan_problems
from parse_results import with_evidence


@keys("{name}.failfutex")
def check_failfutex(j, name, kn):
    """A guest that ran the failfutex step: whatever the injected faults made
    the programs report, each of them ended on its own, and so did
    futex_badinput and stress-ng, which did its futex operations."""
    key = f"{name}.failfutex"
    f = kn.failfutex
    if f is None or f.errors:
        skip = compare_kernels.skip_reason(kn, ("failfutex",))
        return j.verdict(key, False, f"{name}: futex programs ran under fault injection",
                         "; ".join(f.errors) if f else f"not run: {skip}" if skip
                         else "no failfutex section")
    j.verdict(key, f.faults > 0 and f.programs == f.listed > 0 and not f.timeouts
              and f.badinput_rc == 0 and f.stress_rc == 0 and f.stress_ops > 0,
              f"{name}: with fail_futex failing {f.faults} of {f.calls} checks, "
              f"{f.programs} futex kselftest programs end within their test cases' "
              f"timeouts, the malformed calls and stress-ng ({f.stress_ops} futex ops) "
              f"on their own",
              f"outlived their test cases' timeouts: {', '.join(f.timeouts) or 'none'}; "
              f"programs {f.programs} of {f.listed}; faults {f.faults}; futex_badinput rc "
              f"{f.badinput_rc}; stress-ng rc {f.stress_rc}, {f.stress_ops} ops")


# The perf bench futex benchmarks of the soak step, each of which must run.
SOAK_PERF = ("wake", "wake-parallel", "requeue", "lock-pi")


@keys("{name}.soak")
def check_soak(j, name, kn):
    """The soak: stress-ng and every perf bench futex benchmark ran, each
    run ended on its own, and the console stayed clean."""
    key = f"{name}.soak"
    s = kn.soak
    if not s or s.errors or s.stress_rc is None:
        return j.verdict(key, False, f"{name}: the soak ran",
                         "; ".join(s.errors if s else []) or "no soak section")
    bad = [f"{b} rc {p.rc}" for b, p in s.perf.items() if p.rc != 0]
    bad += [f"perf bench futex {b} did not run" for b in SOAK_PERF if b not in s.perf or s.perf[b].runs < 1]
    runs = ", ".join(f"{b} {p.runs}" for b, p in s.perf.items())
    bad += guest_problems(kn)
    j.verdict(key, s.stress_rc == 0 and s.stress_ops > 0 and not bad and kn.badness == [],
              f"{name} ({kn.cpus or '? cpus'}): the soak's runs all end on their own "
              f"(stress-ng --futex, {s.stress_ops} ops; perf bench futex runs: {runs or 'none'}), "
              f"console clean",
              f"stress-ng rc {s.stress_rc}, {s.stress_ops} ops; {', '.join(bad) or 'perf ok'}; "
              f"console: {kn.badness[0] if kn.badness else 'clean'}")


# Step replace's counts of what went wrong, each of which must be 0.
REPLACE_FAILURES = ("lost", "exclusion", "children_failed", "errors")


def replace_problems(kn):
    """What step replace (guest/futex_replace.c) found wrong, or why it
    tells nothing: none where its replacements were done and it lost no
    waiter, let no two into a PI lock, and no child or call failed."""
    r = kn.replace
    if r is None:
        return ["no replace section"]
    if r.skip:
        return [f"skipped: {r.skip}"]
    c = r.counts
    bad = [f"futex_replace exited {r.rc}"] if r.rc != 0 else []
    if c is None:
        return bad + ["no summary line"]
    bad += [f"{k}={getattr(c, k)}" for k in REPLACE_FAILURES if getattr(c, k)]
    if not c.replacements:
        bad.append("no replacement done")
    return bad + r.found[:2]


@keys("{name}.replace")
def check_replace(j, name, kn):
    """Step replace: every kind of private futex operation while the hash
    is replaced, each waiter woken, each PI lock held by one at a time."""
    bad = replace_problems(kn)
    c = kn.replace.counts if kn.replace else None
    j.verdict(f"{name}.replace", not bad,
              f"{name} ({kn.cpus or '? cpus'}): every private futex operation during "
              + (f"{c.replacements} replacements of the hash, {c.forks} forks and {c.signals} signals"
                 if c else "replacements of the hash")
              + ": no waiter lost, no PI lock shared",
              "; ".join(bad) + (f"; console: {kn.badness[0]}" if kn.badness else ""))


@keys("{name}.kselftest", "{name}.badinput", "{name}.console")
def check_sanitized(j, name, kn):
    ks, b = kn.kselftest, kn.badinput
    failed = [with_evidence(name, f, kn.evidence) for f in case_problems(ks)] if ks else []
    bad = failed + plan_problems(kn, "kselftest") + guest_problems(kn)
    j.verdict(f"{name}.kselftest", not bad and ks.programs["pass"] > 0,
              f"{name}: the futex kselftests pass ({ks.programs['pass'] if ks else 0} programs)",
              "failed: " + "; ".join(bad) if ks else "no kselftest section")
    j.verdict(f"{name}.badinput", b is not None and not b.errors and b.total and len(b.calls) == b.total,
              f"{name}: the malformed futex calls all return ({len(b.calls) if b else 0} calls)",
              "; ".join(b.errors) if b else "no badinput section")
    j.verdict(f"{name}.console", kn.badness == [], f"{name}: no sanitizer report, WARNING or BUG on the console",
              kn.badness[0] if kn.badness else "console missing")
