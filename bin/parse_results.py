#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read one result folder, of a QEMU guest or of a native run, into data.

A result folder holds results.txt (sections "==> NAME <==", each with the
raw output of one step or tool), accel, and for a QEMU guest console.log.
read_kernel() parses results.txt once and returns everything in it, a Guest
record of typed records, one per section (each parser's below): the
other bin/ modules and bin/verdicts.py only read what it returns, and
compare_kernels.summarize() turns it into plain data (plain()).
"""

import functools
import hashlib
import os
import re
import shlex
import subprocess
from dataclasses import dataclass, field, fields, is_dataclass

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The kernel tree whose rcutorture console-badness.sh scans the consoles.
TREE = os.environ.get("TREE", os.path.join(TOP, "build", "tree"))
RESULTS = "results.txt"

_HEADER = re.compile(r"^==> (.+) <==$")


def parse_sections(text):
    """results.txt -> [(name, body)], in order; a name may repeat (bench)."""
    return list(_parse_sections(text))


# The unit tests, and tests/judge_mutation.py over them, read the same
# result folders many times: each text is parsed once.
@functools.lru_cache(maxsize=512)
def _parse_sections(text):
    out = []
    for line in text.splitlines(keepends=True):
        m = _HEADER.match(line.rstrip("\n"))
        if m:
            out.append([m.group(1), ""])
        elif out:
            out[-1][1] += line
    return [tuple(s) for s in out]


def section(sections, name):
    """The body of the first section NAME, or None when there is none."""
    return next((body for n, body in sections if n == name), None)


def sections_named(sections, name):
    """The bodies of every section NAME, in order."""
    return [body for n, body in sections if n == name]


@dataclass
class Kselftest:
    """Totals of one kselftest run: test programs and their subtests."""
    programs: dict = field(default_factory=lambda: {"pass": 0, "fail": 0, "skip": 0})
    subtests: dict = field(default_factory=lambda: {"pass": 0, "fail": 0, "skip": 0})
    results: dict = field(default_factory=dict)   # "prog:subtest" -> pass/fail/skip
    failed: list = field(default_factory=list)    # programs that failed or timed out
    timeouts: list = field(default_factory=list)  # programs stopped for their time
    planned: int = 0                              # programs the runner's plans announced
    ran: list = field(default_factory=list)       # programs with a result line, in order
    cases: dict = field(default_factory=dict)     # program -> [cases planned ("# 1..N"), reported]
    duplicates: list = field(default_factory=list)  # cases reported more than once


_TOP = re.compile(r"^(not )?ok \d+ selftests: \S+: (\S+)(.*)$")
_PLAN = re.compile(r"^1\.\.(\d+)$")
# A kselftest_harness program's own plan, nested in the runner's TAP.
_SUBPLAN = re.compile(r"^# 1\.\.(\d+)$")
# A nested "ok N # SKIP why" without a name counts as a skip as well.
_SUB = re.compile(r"^# (not )?ok \d+ (.*?)(\s*#\s*(SKIP|XFAIL|TODO).*)?$")


def _verdict(not_ok, rest):
    if rest and re.search(r"#\s*SKIP", rest):
        return "skip"
    return "fail" if not_ok else "pass"


@functools.lru_cache(maxsize=512)
def parse_kselftest(text):
    """Parse run_kselftest.sh output: top-level TAP plus nested subtests.
    The result is shared by every caller of the same text: read only."""
    ks = Kselftest()
    current = None
    timed_out = False
    for line in text.splitlines():
        m = _TOP.match(line)
        if m:
            v = _verdict(m.group(1), m.group(3))
            ks.programs[v] += 1
            ks.ran.append(m.group(2))
            if v == "fail":
                ks.failed.append(m.group(2) + m.group(3))
            if timed_out or "TIMEOUT" in m.group(3):
                ks.timeouts.append(m.group(2))
            current, timed_out = None, False
            continue
        m = _PLAN.match(line)
        if m:
            ks.planned += int(m.group(1))
        m = _SUBPLAN.match(line)
        if m and current:
            ks.cases.setdefault(current, [0, 0])[0] += int(m.group(1))
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
            key = f"{current}:{m.group(2).strip()}"
            if key in ks.results:
                ks.duplicates.append(key)
                # The worse of the two stands.
                v = v if ks.results[key] == "pass" else ks.results[key]
            ks.results[key] = v
            ks.cases.setdefault(current, [0, 0])[1] += 1
    return ks


# The FUTEX2_NUMA first-waiter race of fixes/: the kselftest that the fix
# adds, its one case, and what it logs when a wake misses a waiter.
NUMA_RACE = "futex_numa_race"
NUMA_RACE_CASE = NUMA_RACE + ":global.first_waiters_agree_on_node"
_NUMA_RACE_LOST = re.compile(r"first_waiters_agree_on_node:round (\d+): a wake on node (-?\d+), "
                             r"the word's node, missed (\d+) of (\d+) waiters")
_NUMA_RACE_ROUNDS = re.compile(r"first_waiters_agree_on_node:(\d+) rounds of (\d+) waiters "
                               r"on (\d+) nodes")


def _int(text):
    """A whole number of a key=value field, or 0 where it is none."""
    return int(text) if text and re.match(r"^-?\d+$", text) else 0


def plain(o):
    """O with every record in it turned into a dict, for the summary and
    its JSON: dicts, lists and tuples are copied, the rest kept."""
    if is_dataclass(o) and not isinstance(o, type):
        return {f.name: plain(getattr(o, f.name)) for f in fields(o)}
    if isinstance(o, dict):
        return {k: plain(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return type(o)(plain(v) for v in o)
    return o


def _ints(cls, m):
    return cls(*map(int, m.groups())) if m else None


@dataclass(frozen=True)
class NumaLost:
    """A wake of futex_numa_race that missed queued waiters."""
    round: int
    node: int  # the node the futex word names
    missed: int
    waiters: int


@dataclass(frozen=True)
class NumaRounds:
    """futex_numa_race's closing line: what it ran."""
    rounds: int
    waiters: int
    nodes: int


@dataclass
class NumaRace:
    """What futex_numa_race reported in a TAP section."""
    tap: Kselftest
    result: str | None = None  # its case's result
    lost: NumaLost | None = None
    rounds: NumaRounds | None = None


def parse_numa_race(text):
    """futex_numa_race's case in a TAP section -> NumaRace."""
    text = text or ""
    ks = parse_kselftest(text)
    return NumaRace(ks, ks.results.get(NUMA_RACE_CASE), _ints(NumaLost, _NUMA_RACE_LOST.search(text)),
                    _ints(NumaRounds, _NUMA_RACE_ROUNDS.search(text)))


_PRECHECK = re.compile(r"^(matched )?(\w+) waits=(\d+) bucket=(\d+)(?: requested=(\d+))?$")


@dataclass(frozen=True)
class PrecheckWaits:
    """One line of the precheck step: of REQUESTED waits of one kind (0
    where the line does not say), WAITS ended as they must (refused, or
    for the matched control timed out), and the probe saw the bucket
    reached BUCKET times meanwhile."""
    waits: int
    bucket: int
    requested: int = 0


@dataclass
class Precheck:
    """The precheck step: its waits per kind (private, shared), mismatched
    and matched, and its errors."""
    mismatched: dict = field(default_factory=dict)  # {kind: PrecheckWaits}
    matched: dict = field(default_factory=dict)  # {kind: PrecheckWaits}
    errors: list = field(default_factory=list)


def parse_precheck_all(text):
    """The precheck step -> Precheck."""
    out = Precheck()
    for line in text.splitlines():
        m = _PRECHECK.match(line.strip())
        if m:
            what = out.matched if m.group(1) else out.mismatched
            if m.group(2) in what:
                out.errors.append(f"{m.group(1) or 'mismatched '}{m.group(2)} waits reported twice")
            what[m.group(2)] = PrecheckWaits(int(m.group(3)), int(m.group(4)), int(m.group(5) or 0))
        elif line.startswith("error "):
            out.errors.append(line[6:].strip())
    return out


def parse_precheck(text):
    """The mismatched waits of the precheck step -> {"private": (waits, bucket)}."""
    return {kind: (v.waits, v.bucket) for kind, v in parse_precheck_all(text).mismatched.items()}


@dataclass
class Plan:
    """A "plan STEP" section: what a kselftest step planned to run."""
    run: list = field(default_factory=list)  # programs, in order
    not_run: dict = field(default_factory=dict)  # {program: why}


def parse_plan(text):
    """A "plan NAME" section -> Plan."""
    out = Plan()
    for line in text.splitlines():
        prog, sep, why = line.strip().partition(" not run: ")
        if not prog:
            continue
        if sep:
            out.not_run[prog] = why
        else:
            out.run.append(prog)
    return out


@dataclass(frozen=True)
class WaiterCounts:
    """One kind's line of the waiters step (guest/futex_aborted.c): rounds
    of aborted waits, the wakes after them with nobody waiting and how
    many saw a waiter count (busy), a real waiter woken and how often it
    was seen; the probe's missed calls, None where the line has none."""
    rounds: int
    aborted: int
    wakes: int
    busy: int
    woken: int
    waiter_busy: int
    busy_missed: int | None = None
    waiter_missed: int | None = None


WAITER_COUNTS = tuple(f.name for f in fields(WaiterCounts))


@dataclass
class Waiters:
    """The waiters step: {kind: WaiterCounts}, and what it said was wrong."""
    kinds: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)


def parse_waiters(text):
    """Lines "private rounds=N aborted=A wakes=W busy=B ..." and "error
    ..." lines -> Waiters. A kind's line with a count missing, unknown or
    twice is an error."""
    out = Waiters()
    need = [f.name for f in fields(WaiterCounts) if f.default is not None]
    for line in text.splitlines():
        words = line.split()
        if words and words[0] == "error":
            out.errors.append(line.strip())
        elif len(words) > 1 and all(re.match(r"^\w+=\d+$", w) for w in words[1:]):
            kv = dict(w.split("=") for w in words[1:])
            if words[0] in out.kinds or len(kv) != len(words) - 1:
                out.errors.append(f"error {words[0]} reported twice")
            elif not set(need) <= kv.keys() or not kv.keys() <= set(WAITER_COUNTS):
                out.errors.append(f"error {words[0]}: not the counts of futex_aborted: {line.strip()}")
            else:
                out.kinds[words[0]] = WaiterCounts(**{k: int(v) for k, v in kv.items()})
        elif words:
            # futex_aborted's own complaint on stderr, say.
            out.errors.append(line.strip())
    return out


_BADINPUT = re.compile(r"^(\d+) (.*) -> (-?\d+) (\S+)$")


@dataclass
class Badinput:
    """futex_badinput's malformed calls and their results."""
    calls: dict = field(default_factory=dict)  # {call: "RET ERRNO"}
    total: int | None = None  # the calls it says it made
    errors: list = field(default_factory=list)


def parse_badinput(text):
    """futex_badinput's lines -> Badinput."""
    out = Badinput()
    for line in text.splitlines():
        m = _BADINPUT.match(line)
        if m:
            out.calls[m.group(2)] = f"{m.group(3)} {m.group(4)}"
        elif line.startswith("total "):
            total = line.split()[1]
            if not total.isdigit() or out.total is not None:
                out.errors.append(f"bad total line: {line.strip()}")
            out.total = int(total) if total.isdigit() else None
        elif line.startswith("error "):
            out.errors.append(line[6:])
    return out


def badinput_diff(base, patched):
    """Calls whose results differ between two parse_badinput() results."""
    calls = sorted(set(base.calls) | set(patched.calls))
    return [(c, base.calls.get(c, "missing"), patched.calls.get(c, "missing"))
            for c in calls if base.calls.get(c) != patched.calls.get(c)]


_SITES = re.compile(r"^\{ ret: *([01]) \} hitcount: *(\d+)$", re.M)
# stress-ng --metrics-brief's line for the futex stressor: its bogo ops.
_STRESS_OPS = re.compile(r"^# stress-ng: \S+ +\[\d+\] futex +(\d+) ", re.M)


@dataclass
class Failfutex:
    """The fault injection step: FAULTS injected out of CALLS of
    should_fail_futex(), and how the programs ended: PROGRAMS, how many
    distinct ones the runner reported, of LISTED (the step's "listed N",
    else what the runner's plans announced); TIMEOUTS, those stopped for
    their time; the exit statuses of futex_badinput and stress-ng, and
    stress-ng's futex bogo ops."""
    faults: int = 0
    calls: int = 0
    programs: int = 0
    listed: int = 0
    timeouts: list = field(default_factory=list)
    badinput_rc: int | None = None
    stress_rc: int | None = None
    stress_ops: int = 0
    errors: list = field(default_factory=list)


def _rc(out, name, line, value):
    """Set OUT's exit status NAME from a line's rc=VALUE, once."""
    if getattr(out, name) is not None or not re.match(r"^-?\d+$", value):
        out.errors.append(f"{line.strip()}: reported twice or not a number")
    else:
        setattr(out, name, int(value))


def parse_failfutex(text, tap="", sites=""):
    """The fault injection step, its key=value lines with stress-ng's
    output, the TAP of its programs (section "failfutex tap") and the
    kretprobe histogram of should_fail_futex()'s results (section
    "failfutex sites") -> Failfutex."""
    ks = parse_kselftest(tap or "")
    # Programs stopped for their time (the runner's or the guest's
    # TIMEOUT): under fault injection a test case may well hit
    # kselftest_harness's own 30 s, which is no hang.
    stopped = [m.group(2) for m in map(_TOP.match, (tap or "").splitlines())
               if m and "TIMEOUT" in m.group(3)]
    ops = _STRESS_OPS.search(text)
    out = Failfutex(programs=len(set(ks.ran)), listed=ks.planned, timeouts=stopped,
                    stress_ops=int(ops.group(1)) if ops else 0)
    for ret, hits in _SITES.findall(sites or ""):
        out.calls += int(hits)
        if ret == "1":
            out.faults = int(hits)
    for line in text.splitlines():
        w = line.split()
        kv = dict(x.split("=", 1) for x in w[1:] if "=" in x)
        if line.startswith("listed "):
            if len(w) == 2 and w[1].isdigit():
                out.listed = int(w[1])
            else:
                out.errors.append(f"{line.strip()}: not a number of programs")
        elif line.startswith(("badinput rc=", "stress-ng rc=")):
            _rc(out, "badinput_rc" if line.startswith("badinput") else "stress_rc", line, kv["rc"])
        elif line.startswith("error "):
            out.errors.append(line[6:])
    return out


@dataclass(frozen=True)
class PerfRuns:
    """How often the soak ran one perf bench futex benchmark, and the
    exit status of the last run that failed (else 0)."""
    runs: int
    rc: int


@dataclass
class Soak:
    """The soak step: stress-ng's exit status and futex bogo ops, and
    {benchmark: PerfRuns} of perf bench futex."""
    stress_rc: int | None = None
    stress_ops: int = 0
    perf: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)


def parse_soak(text):
    """The soak step -> Soak."""
    ops = _STRESS_OPS.search(text)
    out = Soak(stress_ops=int(ops.group(1)) if ops else 0)
    for line in text.splitlines():
        w = line.split()
        kv = dict(x.split("=", 1) for x in w if "=" in x)
        if line.startswith("stress-ng rc="):
            _rc(out, "stress_rc", line, kv["rc"])
        elif line.startswith("perf "):
            if len(w) < 2 or w[1] in out.perf or not all(
                    re.match(r"^-?\d+$", kv.get(k, "")) for k in ("runs", "rc")):
                out.errors.append(f"{line.strip()}: reported twice or incomplete")
            else:
                out.perf[w[1]] = PerfRuns(int(kv["runs"]), int(kv["rc"]))
        elif line.startswith("error "):
            out.errors.append(line[6:])
    return out


@dataclass(frozen=True)
class ReplaceCounts:
    """Step replace's summary line: every count guest/futex_replace.c prints."""
    replacements: int
    set_slots_errors: int
    rounds: int
    pi: int
    rqpi: int
    rqpi_timeouts: int
    forks: int
    children_failed: int
    signals: int
    lost: int
    exclusion: int
    errors: int


REPLACE_COUNTS = tuple(f.name for f in fields(ReplaceCounts))


@dataclass
class Replace:
    """Step replace: its counts (None without a summary line), its exit
    status (None where it did not say), its "lost:", "exclusion:",
    "child" and "error:" lines, and why it skipped (None where it ran)."""
    counts: ReplaceCounts | None = None
    rc: int | None = None
    found: list = field(default_factory=list)
    skip: str | None = None


def parse_replace(text):
    """Step replace -> Replace."""
    out = Replace()
    for line in text.splitlines():
        kv = dict(x.split("=", 1) for x in line.split() if "=" in x)
        if line.startswith("replacements=") and all(
                re.match(r"^\d+$", kv.get(k, "")) for k in REPLACE_COUNTS):
            out.counts = ReplaceCounts(**{k: int(kv[k]) for k in REPLACE_COUNTS})
        elif line.startswith("rc=") and re.match(r"^\d+$", kv["rc"]):
            out.rc = int(kv["rc"])
        elif line.startswith(("lost: ", "exclusion: ", "child ", "error: ")):
            out.found.append(line.strip())
        elif line.startswith("skip: "):
            out.skip = line[6:].strip()
    return out

# The kernel log line of tests/lockcheck/probe.patch: exit_pi_state_list()
# made the reference put with curr->pi_lock held.
EXITPI_PROBE = "futex: exit_pi_state_list() dropped a reference with pi_lock held"


# Step exitpi's stages, each a line it prints as it reaches it.
EXITPI_STAGES = {"queued": "exitpi: owner ", "held": "exitpi: a futex wait holds",
                 "waits": "exitpi: PR_FUTEX_HASH_SET_SLOTS waits", "exited": "exitpi: the owner exited",
                 "done": "exitpi: done"}


@dataclass
class Exitpi:
    """Step exitpi: the program's exit status (None where it did not say);
    whether it reported each stage (the PI waiter queued, a reference held
    in a fault, PR_FUTEX_HASH_SET_SLOTS asleep, the owner's exit, the end);
    its "error:" lines and a PR_FUTEX_HASH_SET_SLOTS that returned without
    waiting; why it skipped; whether the kernel made the forced put."""
    rc: int | None = None
    queued: bool = False
    held: bool = False
    waits: bool = False
    exited: bool = False
    done: bool = False
    errors: list = field(default_factory=list)
    skip: str | None = None
    probe: bool = False


def parse_exitpi(text, log=None):
    """Step exitpi (guest/futex_exitpi.c) and the kernel log LOG -> Exitpi."""
    out = Exitpi(probe=EXITPI_PROBE in (log or ""))
    for line in text.splitlines():
        for k, prefix in EXITPI_STAGES.items():
            if line.startswith(prefix):
                setattr(out, k, True)
        if line.startswith("rc=") and re.match(r"^\d+$", line[3:].strip()):
            out.rc = int(line[3:])
        elif line.startswith("error: ") or "returned without waiting" in line:
            out.errors.append(line.strip())
        elif line.startswith("skip: "):
            out.skip = line[6:].strip()
    return out


_RESIZE = re.compile(r"(auto resize|set slots) to (\d+)(?: slots)?: (\d+) threads, (\d+) CPUs, "
                     r"(done|not done) after ([\d.]+) s, grace period ([-\d.]+) s")


@dataclass(frozen=True)
class ResizeTest:
    """One measurement of futex_hash_resize: a replacement of the hash to
    SLOTS by TEST ("auto" or "set") under THREADS on CPUS, whether it was
    DONE, after SECONDS, and the grace period it took."""
    test: str
    slots: int
    threads: int
    cpus: int
    done: bool
    seconds: float
    gp: float


def parse_resize(text):
    """futex_hash_resize's measurements -> [ResizeTest]."""
    out = []
    for line in text.splitlines():
        m = _RESIZE.search(line)
        if m:
            out.append(ResizeTest("auto" if m.group(1) == "auto resize" else "set", int(m.group(2)),
                                  int(m.group(3)), int(m.group(4)), m.group(5) == "done",
                                  float(m.group(6)), float(m.group(7))))
    return out


_HIST = re.compile(r"^\{ state: *(-?\d+) \} hitcount: *(\d+)$", re.M)


@dataclass(frozen=True)
class ResizeRun:
    """One run of futex_resize_bench: MODE ("ramp" or "set"), THREADS on
    CPUS, the hash's SLOTS, whether the replacement was DONE after
    SECONDS, the futex ops per second, and those while it was pending
    (None for a ramp)."""
    mode: str
    threads: int
    cpus: int
    slots: int
    done: bool
    seconds: float
    ops_per_s: float
    ops_during: float | None = None


@dataclass(frozen=True)
class ResizeRetry:
    """futex_resize_bench's retry mode: the hash had BEFORE slots under the
    load, its automatic size SLOTS was DONE (reached) after a pause."""
    threads: int
    cpus: int
    slots: int
    before: int
    done: bool
    seconds: float


@dataclass
class Resizebench:
    """The resizebench step: its runs, the histogram of reference states
    ({state: hits}) and its retry line (None without one)."""
    runs: list = field(default_factory=list)
    refstate: dict = field(default_factory=dict)
    retry: ResizeRetry | None = None
    errors: list = field(default_factory=list)  # lines it could not read


def parse_resizebench(text, hist="", retry=""):
    """futex_resize_bench lines, the kprobe histogram of reference states
    (section "resizebench refstate", as tracefs prints it) and the line of
    its retry mode (section "resizebench retry") -> Resizebench."""
    out = Resizebench(refstate={int(s): int(n) for s, n in _HIST.findall(hist or "")})

    def read(line, make):
        """MAKE(key=value pairs of LINE), or None and an error where the
        line lacks a value or has one that is not a number."""
        kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
        try:
            return make(kv)
        except (KeyError, ValueError) as e:
            out.errors.append(f"{line.strip()}: {type(e).__name__} {e}")
            return None
    for line in (retry or "").splitlines():
        if line.startswith("mode=retry "):
            out.retry = read(line, lambda kv: ResizeRetry(
                int(kv["threads"]), int(kv["cpus"]), int(kv["slots"]), int(kv["before"]), kv["done"] == "1",
                float(kv["seconds"])))
    for line in text.splitlines():
        if line.startswith("mode="):
            run = read(line, lambda kv: ResizeRun(
                kv["mode"], int(kv["threads"]), int(kv["cpus"]), int(kv["slots"]), kv["done"] == "1",
                float(kv["seconds"]), float(kv["ops_per_s"]),
                float(kv["ops_during"]) if "ops_during" in kv else None))
            out.runs += [run] if run else []
    return out


_ICOUNT = re.compile(r"^([a-z0-9-]+) calls=(\d+) ns=(\d+)$")


@dataclass
class Icount:
    """Step icount (guest/futex_icount.c): per path the nanoseconds per
    call of each repetition (under -icount a nanosecond is an
    instruction), the fewest calls of a repetition, and why a path was
    skipped; ERRORS: the lines that are neither."""
    runs: dict = field(default_factory=dict)  # {PATH: [ns per call]}
    calls: dict = field(default_factory=dict)  # {PATH: calls}
    errors: list = field(default_factory=list)
    skips: dict = field(default_factory=dict)  # {PATH: why}


def parse_icount(text):
    """Step icount's lines -> Icount. A line that is neither a path's
    count nor a skip is an error: nothing is dropped silently."""
    out = Icount()
    for line in text.splitlines():
        m = _ICOUNT.match(line)
        if m and int(m.group(2)) > 0:
            name, calls = m.group(1), int(m.group(2))
            out.runs.setdefault(name, []).append(int(m.group(3)) / calls)
            out.calls[name] = min(calls, out.calls.get(name, calls))
        elif line.startswith("skip ") and ": " in line:
            name, why = line[5:].split(": ", 1)
            out.skips[name] = why
        elif line.strip():
            out.errors.append(line)
    return out


_AVG = re.compile(r"^Averaged (\d+) operations/sec", re.M)


def parse_perf(text):
    """The averaged ops/s of one perf bench futex hash or lock-pi run, or None."""
    m = _AVG.search(text)
    return int(m.group(1)) if m else None


_BUCKETS = re.compile(r"^Futex hashing: (?:global hash|.*?(\d+) (?:hash )?buckets)", re.M)
_RAMP = re.compile(r"^ *[\d.]+ s: (?:global hash|(\d+) hash buckets)$", re.M)


def parse_perf_buckets(text):
    """The hash size a perf bench futex hash run ended with (0: global hash,
    None: not known, as where PR_FUTEX_HASH_GET_SLOTS fails and perf says
    "n/a"): with --ramp, the last size seen while the threads ran (the
    summary line comes after they stopped, when a stuck replacement
    completes)."""
    ramp = _RAMP.findall(text)
    if ramp:
        return int(ramp[-1]) if ramp[-1] else 0
    m = _BUCKETS.search(text)
    return (int(m.group(1)) if m.group(1) else 0) if m else None


def _last_float(pattern):
    """A metric parser (text, argv) for the last line matching PATTERN at a
    line's start: the final averaged line, not the "[Run N]: ..." before it."""
    regex = re.compile(pattern, re.M)

    def parse(text, argv=()):
        found = regex.findall(text)
        return float(found[-1]) if found else None
    return parse


_PERF_WAKE = _last_float(r"^Wokeup \d+ of \d+ threads in ([\d.]+) ms")
_PERF_WAKE_PARALLEL = _last_float(r"^Avg per-thread latency \(.*\) in ([\d.]+) ms")
_PERF_REQUEUE = _last_float(r"^Requeued \d+ of \d+ threads in ([\d.]+) ms")
_SYSBENCH_TIME = _last_float(r"^\s*total time:\s+([\d.]+)s$")
_SYSBENCH_EVENTS = _last_float(r"^\s*total number of events:\s+(\d+)$")


def parse_perf_ops(text, argv=()):
    """perf bench futex hash or lock-pi: the averaged ops/s, or None."""
    return parse_perf(text)


def parse_sysbench_threads(text, argv=()):
    """sysbench threads: events per second of its total time, or None."""
    events, secs = _SYSBENCH_EVENTS(text), _SYSBENCH_TIME(text)
    return events / secs if events is not None and secs else None


_PI_FAILURE = re.compile(r"ERROR|FAIL|deadlock", re.I)
_PI_INVERSIONS = _last_float(r"^Total inversion performed: (\d+)$")
_PI_DURATION = re.compile(r"^Test Duration: (\d+) days, (\d+) hours, (\d+) minutes, (\d+) seconds$",
                          re.M)


def _pi_seconds(argv, text):
    """pi_stress's --duration, else the "Test Duration" it printed."""
    for i, a in enumerate(argv):
        if a.startswith("--duration="):
            return float(a.split("=", 1)[1])
        if a in ("--duration", "-D") and i + 1 < len(argv):
            return float(argv[i + 1])
    m = _PI_DURATION.search(text)
    if not m:
        return None
    d, h, mi, s = map(int, m.groups())
    return float(((d * 24 + h) * 60 + mi) * 60 + s)


def parse_pi_stress(text, argv=()):
    """pi_stress: inversions per second of its duration, or None."""
    inversions, secs = _PI_INVERSIONS(text), _pi_seconds(argv, text)
    return inversions / secs if inversions is not None and secs else None


def pi_stress_failure(text, rc):
    """Why a pi_stress run failed (exit status or a line saying so), or None."""
    line = next((x.strip() for x in text.splitlines() if _PI_FAILURE.search(x)), None)
    return line or (f"rc {rc}" if rc != 0 else None)


@dataclass(frozen=True)
class Metric:
    """How a benchmark program's output is read: parse(text, argv) gives
    the value, in UNIT; HIGHER says whether a higher value is better."""
    parse: object
    unit: str
    higher: bool


# FORMAT.md's table: the metric of each program of a bench section.
METRICS = {
    "perf hash": Metric(parse_perf_ops, "ops/s", True),
    "perf lock-pi": Metric(parse_perf_ops, "ops/s", True),
    "perf wake": Metric(_PERF_WAKE, "ms", False),
    "perf wake-parallel": Metric(_PERF_WAKE_PARALLEL, "ms", False),
    "perf requeue": Metric(_PERF_REQUEUE, "ms", False),
    "sysbench mutex": Metric(_SYSBENCH_TIME, "s", False),
    "sysbench threads": Metric(parse_sysbench_threads, "events/s", True),
    "pi_stress": Metric(parse_pi_stress, "inversions/s", True),
}


def program(argv):
    """The METRICS key of a command line: "perf wake", "sysbench mutex",
    "pi_stress", whatever wraps it (timeout, env), or None."""
    names = [os.path.basename(a) for a in argv]
    for i, name in enumerate(names):
        rest = [a for a in argv[i + 1:] if not a.startswith("-")]
        if name == "perf" and rest[:2] == ["bench", "futex"] and len(rest) > 2:
            return "perf " + rest[2]
        if name == "sysbench":
            test = [a.split("=", 1)[1] for a in argv[i + 1:] if a.startswith("--test=")]
            return "sysbench " + (test or rest or ["?"])[0]
        if name == "pi_stress":
            return name
    return None


@dataclass
class Bench:
    """One bench section: one run of a benchmark program."""
    group: str | None  # the step (hash, block, scale)
    name: str | None  # the row it belongs to
    run: int  # this run's number, of RUNS
    runs: int
    threads: int | None  # None: the program's default
    command: str
    program: str | None  # the METRICS key
    rc: int | None
    value: float | None  # its METRICS value; None where it failed
    unit: str | None
    higher: bool  # whether a higher value is better
    buckets: int | None = None  # perf hash: the hash size (parse_perf_buckets())
    failure: str | None = None  # pi_stress: why it failed
    evidence: str | None = None  # the evidence section of a run killed for its time


def parse_bench(body):
    """One bench section -> Bench."""
    lines = body.splitlines()
    head = next((x for x in lines if x.startswith("# bench ")), "")
    kv = dict(w.split("=", 1) for w in head.split()[2:] if "=" in w)
    command = next((x[2:] for x in lines if x.startswith("$ ")), "")
    rc = next((int(x.split()[2]) for x in lines if re.match(r"^# rc -?\d+$", x)), None)
    output = "".join(x + "\n" for x in lines if x != head and not x.startswith("$ ")
                     and not re.match(r"^# rc -?\d+$", x))
    try:
        argv = shlex.split(command)
    except ValueError:
        argv = command.split()
    prog = program(argv)
    metric = METRICS.get(prog)
    value = metric.parse(output, argv) if metric and rc == 0 else None
    threads = kv.get("threads", "-")
    return Bench(kv.get("group"), kv.get("name"), _int(kv.get("run")), _int(kv.get("runs")),
                 int(threads) if threads.isdigit() else None, command, prog, rc, value,
                 metric.unit if metric else None, metric.higher if metric else True,
                 parse_perf_buckets(output) if prog == "perf hash" else None,
                 pi_stress_failure(output, rc) if prog == "pi_stress" else None)


@dataclass(frozen=True)
class Node:
    """One NUMA node of the machine section: its cpulist and distances."""
    cpus: str
    distances: list


@dataclass
class Machine:
    """The machine section; what it did not report is None."""
    release: str | None = None
    cpus: int | None = None
    online: str | None = None
    nodes: int | None = None
    node: dict = field(default_factory=dict)  # {N: Node}, by N
    config: str | None = None
    tools: str | None = None
    runner: str | None = None


def parse_machine(text):
    """The machine section -> Machine."""
    kv = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
    nodes = {}
    for key, value in kv.items():
        m = re.match(r"^node(\d+)$", key)
        if m:
            parts = dict(p.strip().split(" ", 1) for p in value.split(";") if " " in p.strip())
            nodes[int(m.group(1))] = Node(parts.get("cpus", ""),
                                          [_int(d) for d in parts.get("distances", "").split()])

    def number(key):
        return int(kv[key]) if kv.get(key, "").isdigit() else None
    return Machine(kv.get("release"), number("cpus"), kv.get("online"), number("nodes"),
                   dict(sorted(nodes.items())), kv.get("config"), kv.get("tools"), kv.get("runner"))


@dataclass(frozen=True)
class Skip:
    """A skip section: a step not run, and why."""
    step: str
    reason: str


def parse_skips(bodies):
    """The skip sections -> [Skip], one per section."""
    out = []
    for body in bodies:
        step, _, reason = body.strip().partition(":")
        out.append(Skip(step.strip(), reason.strip() or "no reason given"))
    return out


def badness(text, tree=None):
    """Lines of a kernel log that rcutorture's console-badness.sh flags, the
    script taken from TREE (the kernel tree) unless given another; None
    without a log or without the script."""
    script = os.path.join(tree or TREE, "tools/testing/selftests/rcutorture/bin/console-badness.sh")
    if text is None or not os.path.exists(script):
        return None
    with open(script) as f:
        return list(_badness(f.read(), text))


@functools.lru_cache(maxsize=256)
def _badness(script, text):
    """What SCRIPT, the text of console-badness.sh, flags in TEXT."""
    r = subprocess.run(["bash", "-c", script], input=text, capture_output=True, text=True)
    return tuple(r.stdout.splitlines())


def read_about(d):
    """D/about, what bin/describe.sh recorded of the run -> {key: value};
    {} for a folder without one."""
    out = {}
    for line in (_read(d, "about") or "").splitlines():
        key, _, value = line.partition(" ")
        out[key] = value
    return out


def recorded_badness(d):
    """The console scan bin/describe.sh recorded in D/badness, if it is a
    scan of D's console as it is now (its sha256 the same); else None."""
    body = _read(d, "badness")
    path = os.path.join(d, "console.log")
    if body is None or not os.path.exists(path):
        return None
    head, _, rest = body.partition("\n")
    with open(path, "rb") as f:
        if head != "sha256 " + hashlib.sha256(f.read()).hexdigest():
            return None
    return rest.splitlines()


def _int_or_none(text):
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def _read(d, name):
    p = os.path.join(d, name)
    if not os.path.exists(p):
        return None
    with open(p, errors="replace") as f:
        return f.read()


# guest/lib.sh: "evidence STEP TEST", what the threads of a kselftest program
# or a benchmark (STEP: its group) that was killed for its time were doing
# (guest/evidence.sh).
_EVIDENCE = re.compile(r"^evidence ([a-z]+) (\S+)$")
EVIDENCE_STEPS = ("kselftest", "resize", "numarace", "firstrun", "failfutex", "replace", "exitpi", "hash",
                  "block", "scale")


def evidence_sections(sections, steps=("kselftest", "resize")):
    """{test program: section name} for the evidence of STEPS."""
    out = {}
    for name, _ in sections:
        m = _EVIDENCE.match(name)
        if m and m.group(1) in steps:
            out.setdefault(m.group(2), name)
    return out


def with_evidence(where, failed, evidence):
    """A failed program's entry, naming the evidence its guest recorded."""
    name = evidence.get(failed.split()[0])
    return f"{failed} (evidence: {where}/{RESULTS}, section \"{name}\")" if name else failed


def _parsed(parser, text):
    return parser(text) if text is not None else None


# The sections that a run may write more than once.
REPEATED_SECTIONS = ("bench", "skip")

# The sections of kselftest runner TAP, one per step that runs the futex
# kselftests (guest/lib.sh kselftest()).
TAP_SECTIONS = ("kselftest", "resize", "numarace", "firstrun")


@dataclass
class Guest:
    """Everything one result folder reported (read_kernel()): a guest's or
    a native run's. A section the run did not write is None, or empty
    where it is a list or a dict, as the defaults are. Each parser's own
    record is described where it is parsed."""
    dir: str = ""  # the result folder
    end: str | None = None  # the end section: None where the run did not finish
    uname: str = ""  # uname -a
    cpus: str = ""  # the cpus line: "N cpus"
    accel: str = ""  # DIR/accel, bin/boot.sh's: "kvm", "tcg", "tcg (KVM unusable: why)", "tcg icount (...)"; "native"
    host_cpus: int | None = None  # bin/boot.sh: the host's CPUs; None for a native run
    machine: Machine | None = None
    skips: list = field(default_factory=list)  # [Skip]: the steps not run, and why
    kselftest: Kselftest | None = None  # the kselftest and resize steps' runner TAP, together
    numarace_kselftest: NumaRace | None = None  # futex_numa_race in that TAP
    numarace: NumaRace | None = None  # step numarace's
    firstrun: Kselftest | None = None  # step firstrun's TAP
    precheck: dict | None = None  # parse_precheck(): {kind: (waits, bucket)}
    precheck_all: Precheck | None = None
    sections: list = field(default_factory=list)  # every section's name, in order
    repeated: list = field(default_factory=list)  # sections a step writes once, written more than once
    console_booted: bool = False  # a QEMU guest's console, with the kernel's own boot line
    taps: dict = field(default_factory=dict)  # each kselftest step's own TAP: {step: Kselftest}
    plans: dict = field(default_factory=dict)  # what each kselftest step planned: {step: Plan}
    waiters: Waiters | None = None
    resize: list = field(default_factory=list)  # [ResizeTest] of the kselftest TAP
    resizebench: Resizebench | None = None
    badinput: Badinput | None = None
    failfutex: Failfutex | None = None
    soak: Soak | None = None
    replace: Replace | None = None
    exitpi: Exitpi | None = None
    icount: Icount | None = None
    bench: list = field(default_factory=list)  # [Bench], one per bench section
    badness: list | None = None  # the console's flagged lines; None without a console or a scan
    about: dict = field(default_factory=dict)  # read_about(): what bin/describe.sh recorded
    evidence: dict = field(default_factory=dict)  # {program: evidence section} of the kselftest and resize steps
    evidence_all: dict = field(default_factory=dict)  # {step: {program: evidence section}}


def read_kernel(d, tree=None):
    """Everything one result folder D reported, from its results.txt; a
    console that the run did not scan itself is scanned with the
    console-badness.sh of TREE, the kernel tree (build/tree, or $TREE,
    unless given)."""
    text = _read(d, RESULTS)
    secs = parse_sections(text or "")

    def get(name):
        return section(secs, name)
    # The resize step runs kselftest programs through the same runner.
    tap = [t for t in (get("kselftest"), get("resize")) if t is not None]
    ks = "".join(tap) if tap else None
    ff = get("failfutex")
    console = _read(d, "console.log")
    # The run's own scan of its console, else the tree's script on it now.
    scan = recorded_badness(d)
    machine = get("machine")
    out = Guest(
        dir=d,
        end=get("end"),
        uname=(get("uname") or "").strip(),
        cpus=(get("cpus") or "").strip(),
        accel=(_read(d, "accel") or "").strip(),
        host_cpus=_int_or_none(_read(d, "host_cpus")),
        machine=parse_machine(machine) if machine is not None else None,
        skips=parse_skips(sections_named(secs, "skip")),
        kselftest=_parsed(parse_kselftest, ks),
        numarace_kselftest=parse_numa_race(ks),
        numarace=_parsed(parse_numa_race, get("numarace")),
        firstrun=_parsed(parse_kselftest, get("firstrun")),
        precheck=_parsed(parse_precheck, get("precheck")),
        precheck_all=_parsed(parse_precheck_all, get("precheck")),
        sections=[name for name, _ in secs],
        repeated=sorted({n for n, _ in secs if n not in REPEATED_SECTIONS
                         and sum(1 for x, _ in secs if x == n) > 1}),
        console_booted=console is not None and "Linux version" in console,
        taps={name: parse_kselftest(body) for name, body in secs if name in TAP_SECTIONS},
        plans={name[5:]: parse_plan(body) for name, body in secs if name.startswith("plan ")},
        waiters=_parsed(parse_waiters, get("waiters")),
        resize=parse_resize(ks or ""),
        resizebench=(parse_resizebench(get("resizebench") or "", get("resizebench refstate"),
                                       get("resizebench retry"))
                     if any(get(n) is not None for n in
                            ("resizebench", "resizebench refstate", "resizebench retry"))
                     else None),
        badinput=_parsed(parse_badinput, get("badinput")),
        failfutex=(parse_failfutex(ff, get("failfutex tap"), get("failfutex sites"))
                   if ff is not None else None),
        soak=_parsed(parse_soak, get("soak")),
        replace=_parsed(parse_replace, get("replace")),
        exitpi=parse_exitpi(get("exitpi"), get("dmesg")) if get("exitpi") is not None else None,
        icount=_parsed(parse_icount, get("icount")),
        bench=[parse_bench(b) for b in sections_named(secs, "bench")],
        badness=(scan if scan is not None
                 else badness(console if console is not None else get("dmesg"), tree)),
        about=read_about(d),
        evidence=evidence_sections(secs),
        evidence_all={step: evidence_sections(secs, (step,)) for step in EVIDENCE_STEPS},
    )
    # A benchmark run killed for its time: what its threads were doing.
    for r in out.bench:
        r.evidence = out.evidence_all.get(r.group, {}).get(r.name)
    return out

