#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where each vCPU of a running guest is, from QEMU's monitor.

Usage: bin/vcpus.py MONITOR SYSTEM_MAP [SAMPLES]

bin/boot.sh runs this on a guest that is still running at its deadline,
before it stops QEMU. MONITOR is the guest's monitor socket; SYSTEM_MAP
the kernel's System.map, whose addresses are the running kernel's: the
harness's kernels are not relocatable (tinyconfig). It asks the monitor
for every vCPU's registers SAMPLES times (3), a second apart, and prints
one line per vCPU: its instruction pointer in each sample, as the
kernel's symbol+offset, "user" or "halted", with "irqs off" where the
vCPU ran kernel code, or halted, with interrupts disabled. A vCPU halted in every
sample is idle; one at the same kernel symbols in every sample spins
there. A last line gives jiffies in each sample: where it stands still,
no vCPU takes the tick, and every wait that counts jiffies, or reads a
clock that follows them (the timekeeper's, until it switches to a
clocksource of its own: the console's "Switched to clocksource"), waits
for ever. A monitor that does not answer means QEMU itself is stuck, and
says so, exit status 1.
"""

import bisect
import re
import socket
import sys
import time

PROMPT = b"(qemu) "
TIMEOUT = 10
CPU = re.compile(r"^CPU#(\d+)")
# EIP where the vCPU is not in 64-bit mode (firmware, early boot).
RIP = re.compile(r"^[ER]IP=([0-9a-f]+) [ER]FL=([0-9a-f]+) .*CPL=(\d)(?: .*HLT=(\d))?")
# RFLAGS.IF: the vCPU takes interrupts.
IF = 0x200
# What "x /1gx ADDR" answers: the address and the 8 bytes there.
WORD = re.compile(r"^[0-9a-f]+: 0x([0-9a-f]+)$", re.M)


def read_map(path):
    """The text symbols of System.map, as sorted (addresses, names), and
    the address of jiffies_64 (None where it lacks it)."""
    syms, jiffies = [], None
    with open(path, encoding="ascii", errors="replace") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 3 and fields[2] == "jiffies_64":
                jiffies = int(fields[0], 16)
            if len(fields) >= 3 and fields[1] in ("t", "T", "w", "W"):
                try:
                    syms.append((int(fields[0], 16), fields[2]))
                except ValueError:
                    continue
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms], jiffies


def symbol(addrs, names, rip):
    """RIP as name+0xoffset, or its address where no symbol precedes it."""
    i = bisect.bisect_right(addrs, rip) - 1
    if i < 0:
        return f"{rip:#x}"
    return f"{names[i]}+{rip - addrs[i]:#x}"


def parse(text):
    """{cpu: (rip, cpl, halted, irqs off)} from the text of "info
    registers -a"."""
    cpus = {}
    cpu = None
    for line in text.splitlines():
        m = CPU.match(line)
        if m:
            cpu = int(m.group(1))
            continue
        m = RIP.match(line)
        if m and cpu is not None:
            cpus[cpu] = (int(m.group(1), 16), int(m.group(3)), m.group(4) == "1",
                         not int(m.group(2), 16) & IF)
    return cpus


def where(state, addrs, names):
    """One sample of one vCPU, in words."""
    rip, cpl, halted, irqs_off = state
    off = " irqs off" if irqs_off else ""
    if halted:
        # With interrupts off, nothing wakes it.
        return "halted" + off
    if cpl != 0:
        return "user"
    return symbol(addrs, names, rip) + off


class Monitor:
    """QEMU's human monitor on a unix socket."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(TIMEOUT)
        try:
            self.sock.connect(path)
            self.until_prompt()
        except BaseException:
            self.sock.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.sock.close()

    def until_prompt(self):
        data = b""
        while not data.endswith(PROMPT):
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("the monitor closed")
            data += chunk
        return data[: -len(PROMPT)].decode(errors="replace").replace("\r", "")

    def ask(self, command):
        self.sock.sendall(command.encode() + b"\n")
        return self.until_prompt()


def report(samples, addrs, names):
    """The lines to print: one per vCPU, its samples joined."""
    cpus = sorted(set().union(*samples))
    lines = []
    for cpu in cpus:
        seen = [where(s[cpu], addrs, names) if cpu in s else "?" for s in samples]
        lines.append(f"CPU {cpu}: " + ", ".join(seen))
    return lines


def word(text):
    """The value "x /1gx" answered, or None."""
    m = WORD.search(text)
    return int(m.group(1), 16) if m else None


def ticks(values):
    """The line on jiffies, from its value in each sample."""
    seen = ", ".join("?" if v is None else str(v) for v in values)
    if len(values) > 1 and None not in values and len(set(values)) == 1:
        return f"jiffies: {seen}: the tick stands still"
    return f"jiffies: {seen}"


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[2])
    count = int(argv[3]) if len(argv) == 4 else 3
    try:
        addrs, names, jiffies = read_map(argv[2])
    except OSError as e:
        print(f"vcpus: no symbols ({e}), addresses only")
        addrs, names, jiffies = [], [], None
    samples, values = [], []
    try:
        with Monitor(argv[1]) as mon:
            for i in range(count):
                if i:
                    time.sleep(1)
                samples.append(parse(mon.ask("info registers -a")))
                if jiffies is not None:
                    values.append(word(mon.ask(f"x /1gx {jiffies:#x}")))
    except (OSError, EOFError) as e:
        print(f"vcpus: QEMU's monitor did not answer: {e}")
        return 1
    print(f"vcpus: {count} samples a second apart, each vCPU's instruction pointer")
    for line in report(samples, addrs, names):
        print(line)
    if values:
        print(ticks(values))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
