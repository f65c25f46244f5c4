#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of bin/vcpus.py, on what a real guest's monitor printed
(tests/data/vcpus/README), and on monitors that answer, and do not, over
a real unix socket (tests/fake_monitor.py)."""

import contextlib
import io
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fake_monitor  # noqa: E402
import fixtures  # noqa: E402,F401  (puts bin/ on the path)
import vcpus  # noqa: E402

DATA = os.path.join(HERE, "data", "vcpus")
MAP = os.path.join(DATA, "System.map")
with open(os.path.join(DATA, "registers.txt"), encoding="ascii") as _f:
    REGISTERS = _f.read()


class Parse(unittest.TestCase):
    def test_every_vcpu(self):
        cpus = vcpus.parse(REGISTERS)
        self.assertEqual(sorted(cpus), list(range(18)))
        self.assertEqual(cpus[1], (0xFFFFFFFF81059559, 0, False, True))
        self.assertEqual(cpus[0][3], False)
        self.assertEqual(cpus[6][1], 3)

    def test_halted(self):
        text = REGISTERS.replace("HLT=0", "HLT=1", 1)
        self.assertTrue(vcpus.parse(text)[0][2])
        self.assertFalse(vcpus.parse(text)[1][2])


class Where(unittest.TestCase):
    def setUp(self):
        self.addrs, self.names, self.jiffies = vcpus.read_map(MAP)

    def test_kernel_symbol(self):
        self.assertEqual(vcpus.where((0xFFFFFFFF81059559, 0, False, False), self.addrs, self.names),
                         "read_hpet+0x89")

    def test_irqs_off(self):
        self.assertEqual(vcpus.where((0xFFFFFFFF81059559, 0, False, True), self.addrs, self.names),
                         "read_hpet+0x89 irqs off")

    def test_user_and_halted(self):
        self.assertEqual(vcpus.where((0x7F39D36F9829, 3, False, False), self.addrs, self.names), "user")
        self.assertEqual(vcpus.where((0xFFFFFFFF81059559, 0, True, False), self.addrs, self.names), "halted")
        self.assertEqual(vcpus.where((0xFFFFFFFF81059559, 0, True, True), self.addrs, self.names),
                         "halted irqs off")

    def test_jiffies_address(self):
        self.assertEqual(self.jiffies, 0xFFFFFFFF8180B200)
        self.assertNotIn("jiffies_64", self.names)

    def test_before_any_symbol(self):
        self.assertEqual(vcpus.symbol(self.addrs, self.names, 0x1000), "0x1000")
        self.assertEqual(vcpus.symbol([], [], 0xFFFFFFFF81059559), "0xffffffff81059559")

    def test_report_joins_samples(self):
        one = vcpus.parse(REGISTERS)
        two = dict(one)
        del two[17]
        lines = vcpus.report([one, two], self.addrs, self.names)
        self.assertEqual(len(lines), 18)
        self.assertEqual(lines[1], "CPU 1: read_hpet+0x89 irqs off, read_hpet+0x89 irqs off")
        self.assertEqual(lines[6], "CPU 6: user, user")
        self.assertEqual(lines[17], "CPU 17: read_hpet+0x89 irqs off, ?")


class Ticks(unittest.TestCase):
    def test_word(self):
        self.assertEqual(vcpus.word("ffffffff8180b200: 0x00000000fffb6c20\n"), 0xFFFB6C20)
        self.assertIsNone(vcpus.word(REGISTERS))

    def test_standing_still(self):
        self.assertEqual(vcpus.ticks([7, 7, 7]), "jiffies: 7, 7, 7: the tick stands still")

    def test_advancing(self):
        self.assertEqual(vcpus.ticks([7, 8, 9]), "jiffies: 7, 8, 9")

    def test_unread_is_no_verdict(self):
        self.assertEqual(vcpus.ticks([7, None, 7]), "jiffies: 7, ?, 7")
        self.assertEqual(vcpus.ticks([7]), "jiffies: 7")


class Main(unittest.TestCase):
    def run_main(self, answer, samples="2"):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "monitor.sock")
            srv = fake_monitor.listen(path)
            fake_monitor.serve(srv, answer)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = vcpus.main(["vcpus.py", path, MAP, samples])
            srv.close()
        return rc, out.getvalue().splitlines()

    def test_answering_monitor(self):
        # The fake monitor gives every command the same answer: the
        # registers, and what "x /1gx" prints.
        rc, lines = self.run_main(REGISTERS + "ffffffff8180b200: 0x00000000fffb6c20\n")
        self.assertEqual(rc, 0)
        self.assertEqual(len(lines), 20)
        self.assertIn("CPU 0: x64_sys_call+0x520, x64_sys_call+0x520", lines)
        self.assertEqual(lines[-1], "jiffies: 4294667296, 4294667296: the tick stands still")

    def test_silent_monitor(self):
        saved = vcpus.TIMEOUT
        vcpus.TIMEOUT = 0.5
        try:
            rc, lines = self.run_main(None)
        finally:
            vcpus.TIMEOUT = saved
        self.assertEqual(rc, 1)
        self.assertEqual(len(lines), 1)
        self.assertTrue(lines[0].startswith("vcpus: QEMU's monitor did not answer:"))

    def test_no_monitor(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = vcpus.main(["vcpus.py", "/nonexistent/monitor.sock", MAP])
        self.assertEqual(rc, 1)
        self.assertIn("did not answer", out.getvalue())


if __name__ == "__main__":
    unittest.main()
