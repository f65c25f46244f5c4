#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of facts that live in one place and are named in others:
each step that configs/scenarios names is a script of guest/steps/, the
native mode's default steps are scenario native's, and each section that
a guest step writes by name is documented in guest/FORMAT.md."""

import glob
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixtures  # noqa: E402,F401  (puts bin/ on the path)
import verdicts  # noqa: E402

TOP = os.path.dirname(HERE)
GUEST = os.path.join(TOP, "guest")


def scenarios():
    """{NAME: [STEP, ...]} of configs/scenarios."""
    out = {}
    with open(verdicts.SCENARIOS) as f:
        for line in f:
            w = line.split()
            if len(w) >= 6 and not w[0].startswith("#"):
                out[w[0]] = w[4].split(",")
    return out


# A line of shell, not a comment, that writes a section named by a literal.
SECTION = re.compile(r'^(?!\s*#)(?:.*[\s|;{])?section\s+(?:"([a-z][a-z ]*)"|([a-z]+))\s*(?:[<|]|$)')


def sections_written(paths):
    """The sections that the shell scripts PATHS write by a literal name."""
    names = set()
    for path in paths:
        with open(path) as f:
            for line in f:
                m = SECTION.match(line)
                if m:
                    names.add(m.group(1) or m.group(2))
    return names


class Layout(unittest.TestCase):
    def test_every_scenario_step_exists(self):
        missing = [(name, step) for name, steps in scenarios().items() for step in steps
                   if not os.path.isfile(os.path.join(GUEST, "steps", step + ".sh"))]
        self.assertEqual(missing, [])

    def test_native_defaults_are_scenario_native(self):
        with open(os.path.join(GUEST, "native.sh")) as f:
            m = re.search(r"^steps=\$\{2:-([a-z0-9_,]+)\}$", f.read(), re.M)
        self.assertIsNotNone(m, "guest/native.sh has no default steps line")
        self.assertEqual(m.group(1).split(","), scenarios()["native"])

    def test_sections_documented(self):
        scripts = glob.glob(os.path.join(GUEST, "steps", "*.sh")) + \
            [os.path.join(GUEST, n) for n in ("lib.sh", "run.sh")]
        names = sections_written(scripts)
        self.assertIn("starve", names)
        with open(os.path.join(GUEST, "FORMAT.md")) as f:
            doc = f.read()
        self.assertEqual(sorted(n for n in names if f"`{n}`" not in doc), [])

    def test_section_pattern(self):
        """The pattern reads a literal name, and neither a comment nor a
        name held in a variable."""
        self.assertEqual(SECTION.match('\t"$B" 2>&1 | section starve').group(2), "starve")
        self.assertEqual(SECTION.match('section "resizebench retry" <"$f"').group(1),
                         "resizebench retry")
        self.assertIsNone(SECTION.match("# the section records what it saw"))
        self.assertIsNone(SECTION.match('\tsection "$name" <"$tap"'))


if __name__ == "__main__":
    unittest.main()
