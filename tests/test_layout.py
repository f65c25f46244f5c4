#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of facts that live in one place and are named in others:
each step that configs/scenarios names is a script of guest/steps/, the
native mode's default steps are scenario native's, and each section that
a guest step writes by name is documented in guest/FORMAT.md; the
settings are configs/settings alone, which doc/running.md's table shows."""

import glob
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixtures  # noqa: E402,F401  (puts bin/ on the path)
from judge import mutants  # noqa: E402

TOP = os.path.dirname(HERE)
GUEST = os.path.join(TOP, "guest")


def scenarios():
    """{NAME: [STEP, ...]} of configs/scenarios."""
    out = {}
    with open(mutants.SCENARIOS) as f:
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

    def test_plan_knows_the_judges_last_verdict(self):
        """bin/plan.sh tells a judge that finished from one that crashed by
        its last verdict's words: the words the judge prints."""
        import contextlib
        import io
        from judge.core import Judge
        with open(os.path.join(TOP, "bin", "plan.sh")) as f:
            m = re.search(r"grep -q '\^\\\(not \\\)\\\?ok ([^']*)'", f.read())
        self.assertIsNotNone(m, "bin/plan.sh's test of the judge's last line")
        # Words of that verdict alone, not any "ok " line.
        self.assertGreaterEqual(len(m.group(1).split()), 3, m.group(1))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            Judge().check_plan([])
        self.assertTrue(out.getvalue().startswith("ok " + m.group(1)), out.getvalue())

    def test_judge_knows_the_snc_layout(self):
        """The distances the judge wants the SNC-like guest to see are those
        bin/boot.sh gives it (numa_node() and topology())."""
        from judge import series
        script = ("eval \"$(sed -n '/^numa_node()/,/^}/p; /^topology()/,/^}/p' bin/boot.sh)\"; "
                  "VCPUS=18 TOPOLOGY=snc3 MEM=2048 topology")
        out = subprocess.run(["bash", "-c", script], cwd=TOP, capture_output=True, text=True, check=True).stdout
        n = series.SNC_SOCKETS * series.SNC_NODES
        dist = [[series.SNC_LOCAL if i == j else None for j in range(n)] for i in range(n)]
        for i, j, d in re.findall(r"^-numa dist,src=(\d+),dst=(\d+),val=(\d+)$", out, re.M):
            dist[int(i)][int(j)] = dist[int(j)][int(i)] = int(d)
        self.assertEqual(out.count("-numa node,"), n)
        self.assertEqual(dist, series.snc_distances(n))

    def test_judge_knows_the_soaks_benchmarks(self):
        """The perf benchmarks the soak's verdict wants are those the
        soak step runs."""
        from judge import stress
        with open(os.path.join(GUEST, "steps", "soak.sh")) as f:
            m = re.search(r"for b in ([a-z -]+); do\n[^\n]*perf bench futex", f.read())
        self.assertIsNotNone(m, "guest/steps/soak.sh's loop over perf bench futex")
        self.assertEqual(tuple(m.group(1).split()), stress.SOAK_PERF)

    def test_section_pattern(self):
        """The pattern reads a literal name, and neither a comment nor a
        name held in a variable."""
        self.assertEqual(SECTION.match('\t"$B" 2>&1 | section starve').group(2), "starve")
        self.assertEqual(SECTION.match('section "resizebench retry" <"$f"').group(1),
                         "resizebench retry")
        self.assertIsNone(SECTION.match("# the section records what it saw"))
        self.assertIsNone(SECTION.match('\tsection "$name" <"$tap"'))


SETTINGS = os.path.join(TOP, "configs", "settings")


def settings_rows():
    """[[NAME, DEFAULT, TAKES, WHERE, WHAT], ...] of configs/settings."""
    with open(SETTINGS) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("#")]


def lib_sh(env):
    """bin/lib.sh sourced with ENV added: (status, its error line)."""
    p = subprocess.run(["bash", "-c", '. "$1"', "sh", os.path.join(TOP, "bin", "lib.sh")],
                       env={**{k: v for k, v in os.environ.items()
                               if k not in {r[0] for r in settings_rows()}}, **env},
                       capture_output=True, text=True)
    return p.returncode, p.stderr.strip()


class Settings(unittest.TestCase):
    def test_rows_are_whole(self):
        for row in settings_rows():
            self.assertEqual(len(row), 5, row)
            self.assertRegex(row[0], r"^[A-Z_]+$")
            self.assertIn(row[3], ("host", "guest"), row)
            self.assertRegex(row[2], r"^(-|\d+-\d+|[a-z0-9]+(\|[a-z0-9]+)+|/.+/)$", row)

    def test_each_default_is_taken(self):
        """A literal default, set explicitly, passes its own check."""
        for name, default, _, _, _ in settings_rows():
            if not default.startswith("(") and default not in ("cores", "cores+1"):
                self.assertEqual(lib_sh({name: default}), (0, ""), name)

    def test_a_bad_value_is_refused_by_name(self):
        rc, err = lib_sh({"RUNS": "0"})
        self.assertEqual(rc, 1)
        self.assertTrue(err.startswith("error: RUNS=0: repetitions of perf bench"), err)

    def test_guest_settings_reach_the_guest_with_defaults(self):
        p = subprocess.run(["bash", "-c", '. "$1"; guest_settings', "sh", os.path.join(TOP, "bin", "lib.sh")],
                           env={"PATH": os.environ["PATH"], "RUNS": "7"}, capture_output=True, text=True)
        self.assertEqual(p.stdout.split(), ["runs=7", "bench_secs=5", "scale_runs=3", "scale_secs=2",
                                            "kst_timeout=300", "soak_secs=300"])

    def test_doc_table_is_the_table(self):
        table = subprocess.run([os.path.join(TOP, "bin", "settings.sh"), "markdown"],
                               capture_output=True, text=True, check=True).stdout
        with open(os.path.join(TOP, "doc", "running.md")) as f:
            doc = f.read()
        m = re.search(r"<!-- bin/settings.sh markdown -->\n(.*?)<!-- end -->\n", doc, re.S)
        self.assertIsNotNone(m, "doc/running.md has no settings table")
        self.assertEqual(m.group(1), table)

    def test_no_default_outside_the_table(self):
        """No script gives a setting whose default is a value a default of
        its own (one in brackets is the code's, which the table describes)."""
        valued = [r for r in settings_rows() if not r[1].startswith("(")]
        names = "|".join(r[0] for r in valued)
        lower = "|".join(r[0].lower() for r in valued if r[3] == "guest")
        pattern = re.compile(r"\$\{(%s):-[^}]|\$\{(%s):-[^}]|^(%s) \?=" % (names, lower, names))
        found = []
        for path in glob.glob(os.path.join(TOP, "bin", "*.*")) + glob.glob(os.path.join(TOP, "bin", "judge", "*.py")) + \
                glob.glob(os.path.join(GUEST, "*.sh")) + \
                [os.path.join(TOP, "Makefile")]:
            with open(path, errors="replace") as f:
                found += [f"{os.path.relpath(path, TOP)}: {line.strip()}" for line in f
                          if pattern.search(line) and "settings.sh value" not in line]
        self.assertEqual(found, [])


if __name__ == "__main__":
    unittest.main()
