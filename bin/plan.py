#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A plan of configs/plans/, expanded into the steps bin/plan.sh carries
out, one per line, in the order they run.

Usage: bin/plan.py [--dry-run] PLAN DIR

A plan's line is a step and its words:
  stage NAME [ARG...]	a stage of configs/stages (deps, base, tree, tools,
			initramfs, ...) or a check that needs no kernel
			build; its command gets the ARGs
  &stage NAME [ARG...]	the same, started in the background
  join NAME		wait for the stage NAME started in the background;
			make check's TAP lines take in its own
  build KERNEL [BESIDE]	build KERNEL of configs/kernels; with BESIDE, a
			flavour of kernel/futex/ alone built beside it at
			the same commit (small)
  boot SCENARIO DIR [KERNEL]
			one run of configs/scenarios into DIR
  mutant MUTANT DIR [FLAVOUR [SCENARIO]]
			the patched kernel with a bug of tests/mutants/
  lockcheck DIR		make lockcheck's kernels and guests
  compare ARG...	bin/compare.py
  judge ARG...		bin/verdicts.py
  latest		results/latest names this plan's folder
  plan NAME		the steps of another plan, here, unless an earlier
			line has included it already
The folders the steps write are emptied before the first step that writes
results (a "clean" step). A step
that starts with "-" does not stop the plan when it fails: what it
leaves is judged by a later step. Every DIR, and each word of compare and
judge that is not an option, is a path below the plan's folder, unless
it is an absolute one ({TREE}).

A word {NAME} stands for each word of NAME's value: a setting of
configs/settings, TREE (the series' tree, as bin/lib.sh names it), a
list written out ({base,patched}), or one of
  PATCHES	each commit of the series but the last, by number
		(bin/lib.sh's series_kernels, given as PLAN_SERIES; without
		it, the placeholder N)
  KERNEL_PATCHES
		each commit that changes the kernel, but the last that does
		(whose kernel the patched one is)
  BOOT_NUMBERS	1 to BOOTS
  MUTANTS	tests/mutants/'s patches, unless the setting names some
  MUTANT_FLAVOURS
		the flavours those patches name (Flavour:)
  PATCH_FILES	fixes/ and series/ patches, in order (bin/lib.sh's
		fixes_patches and series_patches, given as
		PLAN_PATCH_FILES; without it, the placeholder PATCH)
A build, boot, mutant or lockcheck step is repeated for each value, its
lists varying in the order they appear, the first fastest; in compare and
judge the word becomes all its values. A build of a PATCHES kernel whose
commit changes only tools/ and Documentation/ is a "same" step, which
builds nothing.

Each step is printed as tab-separated words: whether it stops the plan
(stop or go), its kind, what it does in words, then its command's
arguments. A kernel that a boot needs must be built by an earlier step or
be in build/out already; with --dry-run, a step says so instead.

A plan is expanded before the series' tree exists, where it starts with
the stages that make it; bin/plan.sh expands it again after a stage that
changed the tree's series, so that {PATCHES} are the commits the tree
then holds.
"""

import glob
import itertools
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = os.path.join(TOP, "configs")
PLANS = os.path.join(CONFIGS, "plans")
MUTANTS = os.path.join(TOP, "tests", "mutants")
OUT = os.environ.get("OUT", os.path.join(TOP, "build", "out"))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))

# How many words each kind takes, at least and at most (None: any).
ARITY = {"stage": (1, None), "join": (1, 1), "build": (1, 2), "boot": (2, 3), "mutant": (2, 4), "lockcheck": (1, 1),
         "compare": (0, None), "judge": (0, None), "latest": (0, 0), "plan": (1, 1)}
_VAR = re.compile(r"\{([A-Za-z_]+|[^{}]*,[^{}]*)\}")


class PlanError(Exception):
    pass


def table(path, fields):
    """The rows of a tab-separated table of configs/, as dicts of FIELDS."""
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            w = re.split(r"\t+", line.rstrip("\n"))
            if len(w) < len(fields) - 1:
                raise PlanError(f"{os.path.relpath(path, TOP)}: a short line: {line.strip()}")
            rows.append(dict(zip(fields, w + [""])))
    return rows


def kernels():
    """configs/kernels: {NAME: row}."""
    return {r["name"]: r for r in table(os.path.join(CONFIGS, "kernels"),
                                        ("name", "commit", "flavour", "worktree", "what"))}


def stages():
    """configs/stages: {NAME: row}."""
    return {r["name"]: r for r in table(os.path.join(CONFIGS, "stages"),
                                        ("name", "command", "what"))}


def scenarios():
    """configs/scenarios: {NAME: (KERNEL, STEPS)}."""
    out = {}
    with open(os.path.join(CONFIGS, "scenarios")) as f:
        for line in f:
            w = line.split()
            if len(w) >= 6 and not w[0].startswith("#"):
                out[w[0]] = (w[1], w[4])
    return out


def series():
    """PLAN_SERIES (bin/lib.sh's series_kernels): [(number, commit,
    whether it changes the kernel)], or None where it is not given."""
    text = os.environ.get("PLAN_SERIES")
    if text is None:
        return None
    rows = [line.split() for line in text.splitlines() if line.strip()]
    return [(int(w[0]), w[1], len(w) < 3) for w in rows]


def patches(kernels_only=False):
    """Each commit of the series but the last, by number ("N" without the
    series); with KERNELS_ONLY, each that changes the kernel but the last
    that does, whose kernel is the patched one."""
    s = series()
    if s is None:
        return ["N"]
    if kernels_only:
        return [str(i) for i, _, changes in s if changes][:-1]
    return [str(i) for i, _, _ in s[:-1]]


def mutants():
    """The names of MUTANTS, or of every patch of tests/mutants/."""
    names = os.environ.get("MUTANTS", "").split() or \
        sorted(os.path.basename(p)[:-6] for p in glob.glob(os.path.join(MUTANTS, "*.patch")))
    for name in names:
        if not os.path.isfile(os.path.join(MUTANTS, name + ".patch")):
            raise PlanError(f"MUTANTS: no tests/mutants/{name}.patch")
    return names


def mutant_flavours():
    """The flavours that the patches of MUTANTS name (Flavour:)."""
    flavours = set()
    for name in mutants():
        with open(os.path.join(MUTANTS, name + ".patch")) as f:
            for line in f:
                if line.startswith("diff --git"):
                    break
                if line.startswith("Flavour:"):
                    flavours.add(line.split(":", 1)[1].strip())
    return sorted(flavours)


def patch_files():
    """PLAN_PATCH_FILES, or the placeholder PATCH."""
    text = os.environ.get("PLAN_PATCH_FILES")
    return text.split() if text is not None else ["PATCH"]


def boot_numbers():
    boots = os.environ.get("BOOTS", "")
    if not boots.isdigit():
        raise PlanError("{BOOT_NUMBERS}: BOOTS is not set")
    return [str(i) for i in range(1, int(boots) + 1)]


# The lists a plan's words can name besides the settings, each worked out
# when a plan names it.
LISTS = {"PATCHES": patches, "KERNEL_PATCHES": lambda: patches(True), "MUTANTS": mutants,
         "MUTANT_FLAVOURS": mutant_flavours, "BOOT_NUMBERS": boot_numbers,
         "PATCH_FILES": patch_files}


def values(var, known):
    """The values of {VAR}; KNOWN keeps the lists worked out."""
    if "," in var:
        return [v for v in var.split(",")]
    if var in LISTS:
        if var not in known:
            known[var] = LISTS[var]()
        return known[var]
    if var in os.environ:
        return os.environ[var].split()
    raise PlanError(f"{{{var}}}: no such setting or list")


def read_plan(name, seen=(), done=None):
    """The lines of plan NAME, plans it includes in place, each once:
    [(go, words)]; a step started in the background has go "&"."""
    path = os.path.join(PLANS, name)
    if not os.path.isfile(path):
        raise PlanError(f"no plan '{name}' in {os.path.relpath(PLANS, TOP)}")
    if name in seen:
        raise PlanError(f"plan {name} includes itself")
    done = set() if done is None else done
    done.add(name)
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            kind = w[0].lstrip("-&")
            prefix = w[0][:len(w[0]) - len(kind)]
            if prefix not in ("", "-", "&"):
                raise PlanError(f"plan {name}:{n}: a step starts with '-' or '&', not both")
            go = "&" if prefix == "&" else prefix == "-"
            if go == "&" and kind != "stage":
                raise PlanError(f"plan {name}:{n}: only a stage starts in the background")
            lo, hi = ARITY.get(kind, (None, None))
            if lo is None:
                raise PlanError(f"plan {name}:{n}: no step '{kind}'")
            if len(w) - 1 < lo or (hi is not None and len(w) - 1 > hi):
                raise PlanError(f"plan {name}:{n}: {kind} takes {lo} to {hi if hi is not None else 'any'} words")
            if kind == "plan":
                if w[1] in seen + (name,):
                    raise PlanError(f"plan {w[1]} includes itself")
                if w[1] not in done:
                    out += read_plan(w[1], seen + (name,), done)
            else:
                out.append((go, [kind] + w[1:]))
    return out


def expand(words, known):
    """The lines that WORDS stands for, each list replaced by one value."""
    found = []
    for w in words:
        for var in _VAR.findall(w):
            if var not in found:
                found.append(var)
    if not found:
        return [words]
    # The first list varies fastest.
    combos = itertools.product(*[values(v, known) for v in reversed(found)])
    out = []
    for combo in combos:
        pick = dict(zip(reversed(found), combo))
        out.append([_VAR.sub(lambda m: pick[m.group(1)], w) for w in words])
    return out


def expand_words(words, known):
    """WORDS with each word that names lists replaced by all its values."""
    out = []
    for w in words:
        out += [x[0] for x in expand([w], known)]
    return out


def kernel_row(name, table_):
    """NAME's row of configs/kernels, and the patch number of a patch-N row."""
    if name in table_:
        return table_[name], None
    for pattern, row in table_.items():
        if "*" in pattern:
            m = re.fullmatch(re.escape(pattern).replace(r"\*", r"(\d+|N)"), name)
            if m:
                return row, m.group(1)
    raise PlanError(f"no kernel '{name}' in configs/kernels")


def build_step(name, beside, table_, s):
    """The build step of kernel NAME: ("build", what, name, commit,
    worktree, flavour, beside flavour, what of that), or ("same", what,
    name, commit) for a patch that changes no kernel."""
    row, patch = kernel_row(name, table_)
    by = None
    if beside is not None:
        by = table_.get(beside)
        if by is None or by["commit"] != "-":
            raise PlanError(f"{name}: {beside} is no kernel of configs/kernels built beside another")
    commit = row["commit"]
    if patch is not None:
        if s is not None:
            i = int(patch)
            if not 1 <= i <= len(s):
                raise PlanError(f"{name}: the series has no patch {i}")
            _, commit, changes = s[i - 1]
            if not changes:
                return ("same", f"{row['flavour']} kernel after patch {i} is patch {i - 1}'s "
                        f"(tools/, Documentation/ only)", name, commit)
        else:
            commit = "patch-" + patch
    elif commit in ("*", "-"):
        raise PlanError(f"configs/kernels: {name} has no commit of its own")
    worktree = os.path.join(BUILD, row["worktree"])
    at = f"after patch {patch}" if patch else f"at {commit}"
    what = f"{row['flavour']} kernel {name} builds {at}: {row['what']}"
    return ("build", what, name, commit, worktree, row["flavour"], by["flavour"] if by else "-",
            f"kernel/futex/ builds {at} in flavour {by['flavour']}: {by['what']}" if by else "-")


def stage_step(plan, go, words, table_, started):
    """The step of stage WORDS[0] with its arguments: (go, "stage" or
    "start", what, [name, command words..., arguments...])."""
    row = table_.get(words[0])
    if row is None:
        raise PlanError(f"plan {plan}: no stage '{words[0]}' in configs/stages")
    what = row["what"].replace("{1}", os.path.basename(words[1]) if len(words) > 1 else "")
    cmd = row["command"].split()
    cmd[0] = os.path.join(TOP, cmd[0])
    if go == "&":
        if words[0] in started:
            raise PlanError(f"plan {plan}: {words[0]} is started again before it is joined")
        started[words[0]] = what
        return (False, "start", f"{words[0]} starts in the background: {what}",
                [words[0]] + cmd + words[1:])
    return (go, "stage", what, [words[0]] + cmd + words[1:])


def plan_steps(name, d, dry_run=False):
    """The steps of plan NAME into folder D: [(go, kind, what, args)]; with
    DRY_RUN, a kernel not built yet is said, not an error."""
    known = {}
    table_ = kernels()
    stage_table = stages()
    started = {}
    scen = scenarios()
    s = series()
    built, steps = set(), []

    def path(x):
        return os.path.normpath(os.path.join(d, x))

    def have(kernel, why):
        """"" or, in a dry run, why KERNEL is missing."""
        if kernel in built or os.path.isfile(os.path.join(OUT, kernel, "bzImage")):
            return ""
        missing = f"{why} needs kernel {kernel}, which the plan does not build before it " \
                  f"and {os.path.relpath(OUT, TOP)} does not hold"
        if not dry_run:
            raise PlanError(missing)
        return f" (not built yet: {missing})"

    for go, words in read_plan(name):
        kind = words[0]
        if kind in ("compare", "judge"):
            words = expand_words(words[1:], known)
            what = "the results compare" if kind == "compare" else "the results are judged"
            steps.append((go, kind, f"{what}: {' '.join(words)}",
                          [w if w.startswith("-") else path(w) for w in words]))
            continue
        if kind == "latest":
            steps.append((go, kind, "results/latest is this run's folder", [d]))
            continue
        if kind == "join":
            if words[1] not in started:
                raise PlanError(f"plan {name}: join {words[1]}: no earlier step starts it")
            steps.append((False, kind, started.pop(words[1]), [words[1]]))
            continue
        for w in expand(words[1:], known):
            if kind == "stage":
                steps.append(stage_step(name, go, w, stage_table, started))
            elif kind == "build":
                step = build_step(w[0], w[1] if len(w) > 1 else None, table_, s)
                if step[0] == "build":
                    built.add(w[0])
                steps.append((go, step[0], step[1], list(step[2:])))
            elif kind == "boot":
                if w[0] not in scen:
                    raise PlanError(f"plan {name}: no scenario '{w[0]}' in configs/scenarios")
                kernel = w[2] if len(w) > 2 else scen[w[0]][0]
                if kernel == "*":
                    raise PlanError(f"plan {name}: scenario {w[0]} needs a kernel")
                what = (f"{kernel} boots in scenario {w[0]} ({scen[w[0]][1]})" + have(kernel, f"boot {w[0]}")
                        if kernel != "-" else f"this machine's kernel runs scenario {w[0]} ({scen[w[0]][1]})")
                steps.append((go, kind, what, [w[0], path(w[1])] + w[2:]))
            elif kind == "mutant":
                steps.append((go, kind, f"the patched kernel with mutant {w[0]} builds and boots",
                              [w[0], path(w[1])] + w[2:]))
            elif kind == "lockcheck":
                steps.append((go, kind, "debug kernels forced to put a hash reference under pi_lock, "
                              "the stable patches and tests/lockcheck/'s bugs, boot", [path(w[0])]))
    if started:
        raise PlanError(f"plan {name}: no step joins {', '.join(sorted(started))}")
    # Before the first step that writes results, the folders the steps
    # write are emptied: a result folder holds one run's results, and a
    # folder of several (mutants/, boots/) only this run's. Not before the
    # stages: a run that stops in one leaves the last results to judge
    # again, and the folders may depend on the series they make.
    out = []
    for _, kind, _, args in steps:
        if kind in ("boot", "mutant"):
            out.append(args[1])
        elif kind == "lockcheck":
            out.append(args[0])
        elif kind == "compare" and "-o" in args[:-1]:
            out.append(args[args.index("-o") + 1])
    clean, top = [], os.path.normpath(d)
    for p in out:
        if p == top:
            continue
        p = p if os.path.dirname(p) == top else os.path.dirname(p)
        # Only what lies below the plan's folder.
        if os.path.commonpath([p, top]) == top and p != top and p not in clean:
            clean.append(p)
    if not clean:
        return steps
    at = next(i for i, s in enumerate(steps) if s[1] not in ("stage", "start", "join", "build", "same"))
    return steps[:at] + [(False, "clean", "the plan's result folders are emptied", clean)] + steps[at:]


def main(argv):
    dry_run = argv[1:2] == ["--dry-run"]
    argv = argv[:1] + argv[1 + dry_run:]
    if len(argv) != 3:
        print("usage: bin/plan.py [--dry-run] PLAN DIR", file=sys.stderr)
        return 2
    try:
        steps = plan_steps(argv[1], argv[2], dry_run)
    except (PlanError, OSError, ValueError) as e:
        print(f"error: plan: {e}", file=sys.stderr)
        return 1
    for go, kind, what, args in steps:
        print("\t".join(["go" if go else "stop", kind, what] + [str(a) for a in args]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
