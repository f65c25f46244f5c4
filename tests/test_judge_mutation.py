#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tests/judge_mutation.py: an edit that no unit test
catches survives, whatever order the tests run in."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge_mutation as jm  # noqa: E402


class TestsFail(unittest.TestCase):
    """tests_fail() with only the passing make check as unit test."""

    @classmethod
    def setUpClass(cls):
        import test_verdicts
        cls.first = [t for t in jm._tests(unittest.defaultTestLoader.loadTestsFromModule(test_verdicts))
                     if t.id() == jm.FIRST]

    def setUp(self):
        self.saved = jm._order[:], dict(jm._differ)
        jm._order[:] = self.first
        jm._differ.clear()

    def tearDown(self):
        jm._order[:], differ = self.saved
        jm._differ.clear()
        jm._differ.update(differ)

    def edit(self, kind):
        site = next(s for s in jm.sites("judge.stress") if s.where == "check_soak" and s.kind == kind)
        return jm.load("judge.stress", site.apply()), site.where

    def test_judge_as_it_is_passes(self):
        self.assertFalse(jm.tests_fail(jm.load(), "check_soak"))

    def test_negated_verdict_is_caught(self):
        self.assertTrue(jm.tests_fail(*self.edit("cond negated")))

    def test_verdict_made_true_survives_a_passing_run(self):
        """Only a test that feeds check_soak a bad soak catches this edit:
        without one it must survive, not count as caught."""
        self.assertFalse(jm.tests_fail(*self.edit("cond=True")))


if __name__ == "__main__":
    unittest.main()
