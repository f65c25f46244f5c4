# SPDX-License-Identifier: GPL-2.0
"""Result folders for the unit tests: results.txt written from sections,
and sections of an existing one replaced."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bin"))
import parse_results  # noqa: E402


def format_sections(sections):
    """[(name, body)] -> results.txt's text."""
    return "".join(f"==> {name} <==\n{body}" + ("" if body.endswith("\n") or not body else "\n")
                   for name, body in sections)


def write_results(d, sections, accel=None, console=None):
    """A result folder D: results.txt of SECTIONS, accel and console.log."""
    os.makedirs(d, exist_ok=True)
    files = {parse_results.RESULTS: format_sections(sections), "accel": accel, "console.log": console}
    for name, text in files.items():
        if text is not None:
            replace_file(os.path.join(d, name), text)


def read_sections(d):
    with open(os.path.join(d, parse_results.RESULTS)) as f:
        return parse_results.parse_sections(f.read())


def get_section(d, name):
    """The body of section NAME of D's results.txt."""
    return parse_results.section(read_sections(d), name)


def set_section(d, name, body):
    """Replace section NAME of D's results.txt (added before end where it
    has none; removed where BODY is None)."""
    secs = read_sections(d)
    if body is not None and not any(n == name for n, _ in secs):
        at = next((i for i, (n, _) in enumerate(secs) if n == "end"), len(secs))
        secs.insert(at, (name, body))
    secs = [(n, body if n == name else b) for n, b in secs if n != name or body is not None]
    replace_file(os.path.join(d, parse_results.RESULTS), format_sections(secs))


def replace_file(path, text):
    """Write PATH anew, as a new file: a copy of a folder made of hard
    links (tests/test_verdicts.py) keeps its original."""
    with open(path + ".new", "w") as f:
        f.write(text)
    os.replace(path + ".new", path)


def append_file(path, text):
    """Add TEXT at the end of PATH, as a new file (see replace_file)."""
    with open(path) as f:
        old = f.read()
    replace_file(path, old + text)


# What the benchmark programs print (real output of this machine's tools).
OUTPUT = {
    "perf bench futex wake": "[Run 10]: Wokeup 4 of 4 threads in 0.1870 ms\n"
                             "Wokeup 4 of 4 threads in {ms} ms (+-47.71%)\n",
    "perf bench futex wake-parallel": "Avg per-thread latency (waking 1/4 threads) in {ms} ms (+-49.88%)\n",
    "perf bench futex requeue": "[Run 1]: Requeued 4 of 4 threads in 0.0040 ms\n"
                                "Requeued 4 of 4 threads in {ms} ms (+-4.17%)\n",
    "perf bench futex lock-pi": "Averaged {ops} operations/sec (+- 0.00%), total secs = 1\n",
    "sysbench mutex run": "    total time:                          {s}s\n"
                          "    total number of events:              2\n",
    "sysbench threads run": "    total time:                          1.0004s\n"
                            "    total number of events:              {events}\n",
    "pi_stress --quiet --duration 3": "Total inversion performed: {inversions}\n"
                                      "Test Duration: 0 days, 0 hours, 0 minutes, 3 seconds\n",
}
BLOCK = {"perf-wake": "perf bench futex wake", "perf-wake-parallel": "perf bench futex wake-parallel",
         "perf-requeue": "perf bench futex requeue", "perf-lock-pi": "perf bench futex lock-pi",
         "sysbench-mutex": "sysbench mutex run", "sysbench-threads": "sysbench threads run",
         "pi_stress": "pi_stress --quiet --duration 3"}
HASH = "Futex hashing: auto resized to 32 buckets\nAveraged {ops} operations/sec (+- 0.61%), total secs = 5\n"
SNC = "".join(f"node{i}: cpus {3 * i}-{3 * i + 2}; distances "
              + " ".join("10" if i == j else "12" if i // 3 == j // 3 else "21" for j in range(6)) + "\n"
              for i in range(6))


def bench(group, name, run, runs, threads, command, output, rc=0):
    """One bench section, as FORMAT.md gives it."""
    return ("bench", f"# bench group={group} name={name} run={run} runs={runs} threads={threads}\n"
                     f"$ {command}\n{output}# rc {rc}\n")


def machine(runner, cpus=18, nodes=SNC, count=6):
    return ("machine", f"release: 7.3.4+\ncpus: {cpus}\nonline: 0-{cpus - 1}\nnodes: {count}\n{nodes}"
                       f"config: sha256 abc\ntools: 0123abcd\nrunner: {runner}\n")


def bench_sections(speed, runs=2):
    """Bench sections of every program at SPEED (1: base); each run a bit apart."""
    out = []
    for i in range(1, runs + 1):
        f = speed * (1 + (i - 1) / 100)
        values = {"ms": f"{0.3 / f:.4f}", "ops": int(1000 * f), "s": f"{0.35 / f:.4f}",
                  "events": int(2000 * f), "inversions": int(45900 * f)}
        out.append(bench("hash", "wait-b2", i, runs, "-", "perf bench futex hash -r 5 -b 2",
                         HASH.format(**values)))
        for name, command in BLOCK.items():
            out.append(bench("block", name, i, runs, "-", command, OUTPUT[command].format(**values)))
        for threads in (1, 2, 4):
            out.append(bench("scale", "wake", i, runs, threads, f"perf bench futex hash -O wake -t {threads}",
                             HASH.format(ops=int(1000 * f * threads))))
    return out


def synthetic_kernel(d, speed, runner="qemu", skip=None):
    """A result folder with a machine section, bench sections of every
    program, a resizebench section and optionally a skip section."""
    secs = [machine(runner), ("uname", "Linux (none) 7.3.4+ x86_64\n"), ("cpus", "18 cpus\n")]
    secs += bench_sections(speed)
    secs.append(("resizebench", "".join(
        f"mode=set threads={t} cpus=18 slots=256 done={int(speed > 1 or t < 64)} "
        f"seconds={0.5 if speed > 1 or t < 64 else 15.0:.4f} ops_per_s={1000 * speed:.0f}\n"
        for t in (16, 64, 256))))
    if skip:
        secs.append(("skip", skip + "\n"))
    secs += [("dmesg", "[    1.0] futex: fine\n"), ("end", "done\n")]
    write_results(d, secs, accel="native" if runner == "native" else "kvm",
                  console=None if runner == "native" else "[    0.0] Linux version 7.3.4+\n")
