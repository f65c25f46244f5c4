#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of bin/plan.py: every plan of configs/plans/ expands, each
list stands for what it says, and a plan that boots a kernel before
building it, names what does not exist or includes itself is refused."""

import contextlib
import os
import re
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures  # noqa: E402,F401  (puts bin/ on the path)
import plan  # noqa: E402

# A series of four commits; the second changes tools/ alone.
SERIES = "1 c1\n2 c2 same\n3 c3\n4 c4\n"


@contextlib.contextmanager
def env(**values):
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update({k: v for k, v in values.items() if v is not None})
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class Plans(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.saved = plan.PLANS, plan.OUT
        plan.PLANS, plan.OUT = os.path.join(self.tmp, "plans"), os.path.join(self.tmp, "out")
        os.makedirs(plan.PLANS)
        self.env = env(PLAN_SERIES=SERIES, BOOTS="2", SANITIZERS="kasan kcsan", MUTANTS=None, TREE="/tree")
        self.env.__enter__()

    def tearDown(self):
        self.env.__exit__(None, None, None)
        plan.PLANS, plan.OUT = self.saved
        shutil.rmtree(self.tmp)

    def write(self, name, text):
        with open(os.path.join(plan.PLANS, name), "w") as f:
            f.write(text)

    def steps(self, text, dry_run=False):
        self.write("p", text)
        return plan.plan_steps("p", "/r", dry_run)

    def assertRefused(self, text, what):
        with self.assertRaises(plan.PlanError) as e:
            self.steps(text)
        self.assertIn(what, str(e.exception))

    def test_every_plan_expands(self):
        """Each plan of configs/plans/, on a series, without one (a dry run
        before the tree exists) and with every kernel missing."""
        plan.PLANS = self.saved[0]
        names = sorted(n for n in os.listdir(plan.PLANS) if n != "README")
        self.assertIn("check", names)
        for series in (SERIES, None):
            with env(PLAN_SERIES=series):
                for name in names:
                    steps = plan.plan_steps(name, "/r", dry_run=True)
                    self.assertTrue(steps, name)
                    self.assertTrue(all(k in plan.ARITY or k in ("same", "clean", "start") for _, k, _, _ in steps))

    def folders(self, name):
        """The result folders plan NAME writes below its own."""
        plan.PLANS = self.saved[0]
        steps = plan.plan_steps(name, "/r", dry_run=True)
        return sorted(os.path.relpath(p, "/r") for _, k, _, a in steps if k == "clean" for p in a)

    def test_judge_reads_what_check_writes(self):
        """make check's judge reads the folders that plan check writes,
        each of them."""
        import verdicts
        self.assertEqual(self.folders("check"), sorted(verdicts.check_folders()))

    def test_compare_reads_what_boot_writes(self):
        """The comparison's pairs of guests, and its icount guests, are
        the folders plan boot writes."""
        import compare_kernels
        self.assertEqual(self.folders("boot"),
                         sorted({n for pair in compare_kernels.PAIRS for n in pair} | set(compare_kernels.ICOUNT)))

    def test_each_patch(self):
        """{PATCHES}: each commit but the last; one of tools/ alone builds
        nothing and says so."""
        steps = self.steps("build\tpatch-{PATCHES}-debug\tsmall\nbuild\tpatched-debug\n")
        self.assertEqual([(k, a[0], a[1]) for _, k, _, a in steps],
                         [("build", "patch-1-debug", "c1"), ("same", "patch-2-debug", "c2"),
                          ("build", "patch-3-debug", "c3"), ("build", "patched-debug", "patched")])
        self.assertEqual(steps[0][3][3:5], ["debug", "small"])
        self.assertIn("patch 2 is patch 1's", steps[1][2])

    def test_lists_vary_first_fastest(self):
        steps = self.steps("build\tbase\nbuild\tpatched\n-boot\tboots\tboots/{base,patched}-{BOOT_NUMBERS}\t"
                           "{base,patched}\njudge\t--boots\tboots\n")
        boots = [(a[1], a[2]) for _, k, _, a in steps if k == "boot"]
        self.assertEqual(boots, [("/r/boots/base-1", "base"), ("/r/boots/patched-1", "patched"),
                                 ("/r/boots/base-2", "base"), ("/r/boots/patched-2", "patched")])
        self.assertTrue(all(go for go, k, _, _ in steps if k == "boot"))
        # After the builds, before the first boot.
        self.assertEqual(steps[2][1:], ("clean", "the plan's result folders are emptied", ["/r/boots"]))

    def test_words_of_a_comparison(self):
        steps = self.steps("build\tpatched-{SANITIZERS}\njudge\t--sanitize\t{SANITIZERS}\n")
        self.assertEqual([a[0] for _, k, _, a in steps if k == "build"], ["patched-kasan", "patched-kcsan"])
        self.assertEqual(steps[-1][3], ["--sanitize", "/r/kasan", "/r/kcsan"])

    def test_boot_before_its_build(self):
        self.assertRefused("boot\tbase\tbase\nbuild\tbase\n", "boot base needs kernel base")
        steps = self.steps("boot\tbase\tbase\n", dry_run=True)
        self.assertIn("not built yet", steps[-1][2])
        os.makedirs(os.path.join(plan.OUT, "base"))
        open(os.path.join(plan.OUT, "base", "bzImage"), "w").close()
        self.assertEqual(self.steps("boot\tbase\tbase\n")[-1][3], ["base", "/r/base"])

    def test_clean_keeps_the_plan_folder(self):
        steps = self.steps("build\tpatched\nboot\tpatched\tpatched\nmutant\tb\tmutants/b\n"
                           "compare\t--icount\t-o\t.\tpatched\nboot\tpatched\t..\tpatched\n"
                           "boot\tpatched\t../x\tpatched\n")
        self.assertEqual(steps[1][3], ["/r/patched", "/r/mutants"])

    def test_refused(self):
        self.assertRefused("reboot\tbase\n", "no step 'reboot'")
        self.assertRefused("boot\tbase\n", "boot takes 2 to 3 words")
        self.assertRefused("build\tnope\n", "no kernel 'nope'")
        self.assertRefused("build\tpatched\nboot\tnope\tx\tpatched\n", "no scenario 'nope'")
        self.assertRefused("build\t{NOPE_X}\n", "{NOPE_X}: no such setting or list")
        self.assertRefused("build\tpatched\tdebug\n", "is no kernel of configs/kernels built beside")
        self.assertRefused("plan\tp\n", "includes itself")
        self.assertRefused("build\tpatch-9\n", "has no patch 9")
        with self.assertRaises(plan.PlanError):
            plan.plan_steps("nope", "/r")

    def test_stages(self):
        """A stage's command and words, its name in what it does; one
        started in the background, then joined."""
        with env(PLAN_PATCH_FILES="/s/0001-a.patch\n/s/0002-b.patch"):
            steps = self.steps("stage\tdeps\tcheck\n&stage\tselftest\n-stage\tcheckpatch\t{PATCH_FILES}\n"
                               "join\tselftest\n")
        self.assertEqual([(go, k) for go, k, _, _ in steps],
                         [(False, "stage"), (False, "start"), (True, "stage"), (True, "stage"),
                          (False, "join")])
        self.assertEqual(steps[0][3], ["deps", os.path.join(plan.TOP, "bin/deps.sh"), "check"])
        self.assertEqual(steps[2][2], "checkpatch --strict: 0001-a.patch")
        self.assertEqual(steps[3][3][-2:], ["checkpatch", "/s/0002-b.patch"])
        self.assertEqual(steps[4][2:], ("make selftest runs to its end", ["selftest"]))
        with env(PLAN_PATCH_FILES=None):
            self.assertEqual(self.steps("stage\tcheckpatch\t{PATCH_FILES}\n")[0][3][-1], "PATCH")

    def test_clean_after_the_stages(self):
        """A plan's folders, which may depend on the series the stages
        make, are emptied after them: a run that stops in a stage leaves
        the last results."""
        steps = self.steps("stage\ttree\nbuild\tpatch-{KERNEL_PATCHES}\n"
                           "boot\ticount\tpatch-{KERNEL_PATCHES}\tpatch-{KERNEL_PATCHES}\n")
        self.assertEqual([k for _, k, _, _ in steps], ["stage", "build", "build", "clean", "boot", "boot"])
        self.assertEqual(steps[3][3], ["/r/patch-1", "/r/patch-3"])

    def test_join_says_what_it_joins(self):
        steps = self.steps("&stage\tcheckpatch\tx/0001-a.patch\njoin\tcheckpatch\n")
        self.assertEqual(steps[1][2], "checkpatch --strict: 0001-a.patch")

    def test_stages_refused(self):
        self.assertRefused("&stage\tselftest\n&stage\tselftest\njoin\tselftest\n", "started again")
        with env(PLAN_PATCH_FILES="a.patch b.patch"):
            self.assertRefused("&stage\tcheckpatch\t{PATCH_FILES}\njoin\tcheckpatch\n", "started again")
        self.assertRefused("-&stage\tselftest\njoin\tselftest\n", "not both")
        self.assertRefused("&-stage\tselftest\njoin\tselftest\n", "not both")
        self.assertRefused("stage\tnope\n", "no stage 'nope'")
        self.assertRefused("&stage\tselftest\n", "no step joins selftest")
        self.assertRefused("join\tselftest\n", "no earlier step starts it")
        self.assertRefused("&build\tbase\n", "only a stage starts in the background")

    def test_every_stage_has_its_command(self):
        for name, row in plan.stages().items():
            cmd = row["command"].split()
            self.assertTrue(os.access(os.path.join(plan.TOP, cmd[0]), os.X_OK), name)
            if cmd[0] == "tests/checks.sh":
                with open(os.path.join(plan.TOP, cmd[0])) as f:
                    self.assertRegex(f.read(), rf"\n\t{re.escape(cmd[1])}\)\t", name)

    def test_a_plan_is_included_once(self):
        self.write("a", "stage\tdeps\n")
        self.write("b", "plan\ta\nstage\tbase\n")
        steps = self.steps("plan\ta\nplan\tb\nplan\ta\n")
        self.assertEqual([a[0] for _, _, _, a in steps], ["deps", "base"])

    def test_mutants_and_their_flavours(self):
        """MUTANTS picks some, and is read only by a plan that names it."""
        with env(MUTANTS="b-unlock-keeps-waiter-count i-old-hash-freed-while-held"):
            self.assertEqual(plan.mutant_flavours(), ["kasan"])
        with env(MUTANTS="no-such-mutant"):
            self.assertRefused("-mutant\t{MUTANTS}\tmutants/{MUTANTS}\n", "no tests/mutants/no-such-mutant.patch")
            self.assertTrue(self.steps("build\tpatched\n"))

    def test_kernel_patches(self):
        """{KERNEL_PATCHES}: each commit that changes the kernel but the last
        that does; every kernel a boot names was built."""
        with env(PLAN_SERIES="1 c1\n2 c2 same\n3 c3\n4 c4 same\n"):
            steps = self.steps("build\tpatch-{KERNEL_PATCHES}\nboot\ticount\tpatch-{KERNEL_PATCHES}\t"
                               "patch-{KERNEL_PATCHES}\nbuild\tpatched\n")
            self.assertEqual([(k, a[0]) for _, k, _, a in steps if k != "clean"],
                             [("build", "patch-1"), ("boot", "icount"), ("build", "patched")])
            self.assertRefused("build\tpatch-{PATCHES}\nboot\ticount\tx\tpatch-2\n", "needs kernel patch-2")


if __name__ == "__main__":
    unittest.main()
