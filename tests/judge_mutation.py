#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mutation check of the judge: every condition of bin/verdicts.py that
decides a verdict is edited in a copy, one edit at a time, and the unit
tests of tests/test_verdicts.py must fail on each copy.

The edits, made on the syntax tree:
  cond		the condition of each verdict() call, replaced by True and
		by its negation;
  and		each operand of an "and" in such a condition, in a return
		value or in an if statement, replaced by True (the operand
		dropped);
  if		the test of each if statement inside a function, negated.

An edit that cannot change any verdict (an equivalent mutant) is listed
in EQUIVALENT below with why; it must still exist, so the list cannot go
stale. Prints one line per surviving edit and ends with the counts.

Usage: tests/judge_mutation.py [-v]
"""

import ast
import contextlib
import functools
import io
import multiprocessing
import os
import re
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
JUDGE = os.path.join(HERE, "..", "bin", "verdicts.py")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "bin"))

# (function, edit kind, the source of the edited expression): edits that
# change no verdict, and why.
EQUIVALENT = {
}


class Site:
    """One edit: WHERE (function name), KIND, the expression's source, and
    the function that applies it to a copy of the tree."""

    def __init__(self, where, kind, text, apply):
        self.where, self.kind, self.text, self.apply = where, kind, text, apply

    def __str__(self):
        return f"{self.where}: {self.kind}: {self.text}"


def _functions(tree):
    """(function name, node) for every function of the module, nested ones
    named by their outer function."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.Lambda)) and hasattr(node, "name"):
            yield node.name, node


@functools.lru_cache(maxsize=None)
def _source():
    with open(JUDGE) as f:
        return f.read()


def _path(tree, target):
    """The chain of (parent, field, index) from TREE down to TARGET."""
    def walk(node, trail):
        if node is target:
            return trail
        for field, value in ast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for i, child in enumerate(items):
                if isinstance(child, ast.AST):
                    found = walk(child, trail + [(field, i if isinstance(value, list) else None)])
                    if found is not None:
                        return found
        return None
    return walk(tree, [])


def _replace(tree, trail, make):
    """A copy of TREE, the judge's syntax tree, with the node at TRAIL
    replaced by MAKE(old node). The copy is parsed again from the judge's
    source: 0.04 s, where a deep copy of the tree took 0.11 s."""
    new = ast.parse(_source(), JUDGE)
    node = new
    for field, i in trail[:-1]:
        node = getattr(node, field) if i is None else getattr(node, field)[i]
    field, i = trail[-1]
    old = getattr(node, field) if i is None else getattr(node, field)[i]
    if i is None:
        setattr(node, field, make(old))
    else:
        getattr(node, field)[i] = make(old)
    return ast.fix_missing_locations(new)


def _true(_):
    return ast.Constant(True)


def _negate(node):
    return ast.UnaryOp(ast.Not(), node)


def _is_verdict(node):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "verdict"


def sites(tree):
    """Every edit of the judge's conditions."""
    out = []
    for name, fn in _functions(tree):
        conds, ands = [], []
        for node in ast.walk(fn):
            if _is_verdict(node) and len(node.args) > 1:
                conds.append(node.args[1])
            elif isinstance(node, ast.If):
                out.append(Site(name, "if", ast.unparse(node.test),
                                lambda t, n=node.test: _replace(t, _path(t, n), _negate)))
                ands.append(node.test)
            elif isinstance(node, ast.Return) and node.value is not None:
                ands.append(node.value)
        for cond in conds:
            for kind, make in (("cond=True", _true), ("cond negated", _negate)):
                if kind == "cond=True" and isinstance(cond, ast.Constant) and cond.value is True:
                    continue    # True already
                out.append(Site(name, kind, ast.unparse(cond),
                                lambda t, n=cond, m=make: _replace(t, _path(t, n), m)))
        for top in conds + ands:
            for node in ast.walk(top):
                if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
                    for operand in node.values:
                        out.append(Site(name, "and-operand=True", ast.unparse(operand),
                                        lambda t, n=operand: _replace(t, _path(t, n), _true)))
    # An operand reached from two tops (an if's test that returns) once.
    seen, unique = set(), []
    for s in out:
        if str(s) not in seen:
            seen.add(str(s))
            unique.append(s)
    return unique


# Run first: it fails on every negated verdict, so most edits stop there.
FIRST = "test_verdicts.Guests.test_pass"

# The unit tests of this process, and for each the judge's functions that
# behave otherwise in it than in FIRST: an edit in such a function is
# tried on those tests first. After them, the test that caught an edit
# last comes first, as neighbouring edits are mostly caught by the same
# test. The order decides only how soon an edit is caught, never whether.
_order = []
_differ = {}


def _tests(suite):
    """The test cases of SUITE, flattened."""
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _tests(t)
        else:
            yield t


def _run(test):
    """Whether TEST passes."""
    result = unittest.TestResult()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        unittest.TestSuite([test]).run(result)
    return result.wasSuccessful()


# The folders each test makes, named in what the judge returns.
_TMP = re.compile(re.escape(tempfile.gettempdir()) + r"/tmp\w+")


def _behaviour(i):
    """Whether test I of _order passes, and {judge function: what it
    returned, and the verdicts given while it ran} while it runs."""
    out = {}

    def hook(frame, event, arg):
        if frame.f_code.co_filename != JUDGE:
            return
        if event == "return":
            out.setdefault(frame.f_code.co_name, []).append(_TMP.sub("", repr(arg)))
        elif event == "call" and frame.f_code.co_name == "verdict":
            given = (frame.f_locals["key"], bool(frame.f_locals["ok"]))
            while frame is not None and frame.f_code.co_filename == JUDGE:
                out.setdefault(frame.f_code.co_name, []).append(given)
                frame = frame.f_back
    sys.setprofile(hook)
    try:
        passed = _run(_order[i])
    finally:
        sys.setprofile(None)
    return passed, out


def _learn(context):
    """Fill _order and _differ, on the judge as it is, in processes of
    CONTEXT, one per core; the tests that fail on it."""
    import test_verdicts
    tests = sorted(_tests(unittest.defaultTestLoader.loadTestsFromModule(test_verdicts)),
                   key=lambda t: t.id() != FIRST)
    _order.extend(tests)
    with context.Pool(os.cpu_count()) as pool:
        runs = pool.map(_behaviour, range(len(tests)), chunksize=4)
    first = runs[0][1]
    for t, (_, r) in zip(tests[1:], runs[1:]):
        _differ[t.id()] = {f for f in r if r[f] != first.get(f)}
    return [t.id() for t, (passed, _) in zip(tests, runs) if not passed]


def tests_fail(mod, where=None):
    """Whether test_verdicts fails with MOD as the judge: its tests one at
    a time, stopping at the first that fails; those in which WHERE, the
    edited function, behaves otherwise than in FIRST before the others."""
    import test_verdicts
    saved = sys.modules.get("verdicts"), test_verdicts.verdicts
    sys.modules["verdicts"], test_verdicts.verdicts = mod, mod
    try:
        for test in sorted(_order, key=lambda t: where not in _differ.get(t.id(), (where,))):
            if not _run(test):
                _order.remove(test)
                _order.insert(0, test)
                return True
        return False
    finally:
        sys.modules["verdicts"], test_verdicts.verdicts = saved


def load(tree, name="verdicts"):
    """A module of the edited TREE, in place of the judge."""
    mod = types.ModuleType(name)
    mod.__file__ = JUDGE
    exec(compile(tree, JUDGE, "exec"), mod.__dict__)
    return mod


def _caught(job):
    """Whether the unit tests fail on edit I of TREE (JOB: (tree, i))."""
    tree, i = job
    site = sites(tree)[i]
    try:
        mod = load(site.apply(tree))
    except Exception:  # an edit that does not even load is caught
        return True
    return tests_fail(mod, site.where)


def main(argv):
    verbose = "-v" in argv
    with open(JUDGE) as f:
        tree = ast.parse(f.read(), JUDGE)
    import test_verdicts
    test_verdicts.verdicts = sys.modules["verdicts"] = load(tree)
    context = multiprocessing.get_context("fork")
    failed = _learn(context)
    if failed:
        print(f"error: judge_mutation: {len(failed)} unit tests fail on the judge itself: "
              f"{' '.join(failed[:4])}{' ...' if len(failed) > 4 else ''}")
        return 1
    all_sites = sites(tree)
    keys = {(s.where, s.kind, s.text) for s in all_sites}
    stale = [k for k in EQUIVALENT if k not in keys]
    survived, equivalent = [], []
    # One process per core, forked after _learn() so that each has what
    # it learnt, and the unit tests' parsed data cached.
    with context.Pool(os.cpu_count()) as pool:
        caught_all = pool.map(_caught, [(tree, i) for i in range(len(all_sites))], chunksize=1)
    for s, caught in zip(all_sites, caught_all):
        key = (s.where, s.kind, s.text)
        if key in EQUIVALENT:
            equivalent.append(s)
            if caught:
                stale.append(key)
        elif not caught:
            survived.append(s)
        if verbose:
            print(f"{'caught' if caught else 'SURVIVED'}: {s}")
    for s in survived:
        print(f"survived: {s}")
    for k in stale:
        print(f"stale EQUIVALENT entry: {k}")
    print(f"{len(all_sites) - len(survived) - len(equivalent)} caught, {len(survived)} survived, "
          f"{len(equivalent)} equivalent of {len(all_sites)} edits")
    return 1 if survived or stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
