#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mutation check of the judge: every condition of bin/verdicts.py and
bin/judge/ that decides a verdict is edited in a copy, one edit at a time,
and the unit tests of tests/test_verdicts.py must fail on each copy.

The edits, made on the syntax tree of each module:
  cond		the condition of each verdict() call (j.verdict()), replaced
		by True and by its negation;
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
BIN = os.path.join(HERE, "..", "bin")
sys.path.insert(0, HERE)
sys.path.insert(0, BIN)
# The judge's modules, each after those it imports.
MODULES = {name: os.path.join(BIN, *name.split(".")) + ".py" for name in
           ("judge.core", "judge.kselftest", "judge.series", "judge.stress", "judge.boots",
            "judge.mutants", "verdicts")}
FILES = set(MODULES.values())

# (function, edit kind, the source of the edited expression): edits that
# change no verdict, and why.
EQUIVALENT = {
}


class Site:
    """One edit: in MODULE, WHERE (function name), KIND, the expression's
    source, and the function that applies it to a copy of the module's
    tree."""

    def __init__(self, module, where, kind, text, apply):
        self.module, self.where, self.kind, self.text, self.apply = module, where, kind, text, apply

    def __str__(self):
        return f"{self.module}: {self.where}: {self.kind}: {self.text}"


def _functions(tree):
    """(function name, node) for every function of the module, nested ones
    named by their outer function."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.Lambda)) and hasattr(node, "name"):
            yield node.name, node


@functools.lru_cache(maxsize=None)
def _source(module):
    with open(MODULES[module]) as f:
        return f.read()


@functools.lru_cache(maxsize=None)
def _tree(module):
    """MODULE's syntax tree, as it is: edits are made on copies."""
    return ast.parse(_source(module), MODULES[module])


@functools.lru_cache(maxsize=None)
def _code(module):
    return compile(_tree(module), MODULES[module], "exec")


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


def _replace(module, trail, make):
    """A copy of MODULE's syntax tree with the node at TRAIL replaced by
    MAKE(old node). The copy is parsed again from the module's source:
    faster than a deep copy of the tree."""
    new = ast.parse(_source(module), MODULES[module])
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
    """A call of the judge's verdict(): j.verdict(...)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "verdict"


def sites(module):
    """Every edit of MODULE's conditions."""
    tree = _tree(module)
    out = []
    for name, fn in _functions(tree):
        conds, ands = [], []
        for node in ast.walk(fn):
            if _is_verdict(node) and len(node.args) > 1:
                conds.append(node.args[1])
            elif isinstance(node, ast.If):
                out.append(Site(module, name, "if", ast.unparse(node.test),
                                lambda n=node.test: _replace(module, _path(tree, n), _negate)))
                ands.append(node.test)
            elif isinstance(node, ast.Return) and node.value is not None:
                ands.append(node.value)
        for cond in conds:
            for kind, make in (("cond=True", _true), ("cond negated", _negate)):
                if kind == "cond=True" and isinstance(cond, ast.Constant) and cond.value is True:
                    continue    # True already
                out.append(Site(module, name, kind, ast.unparse(cond),
                                lambda n=cond, m=make: _replace(module, _path(tree, n), m)))
        for top in conds + ands:
            for node in ast.walk(top):
                if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
                    for operand in node.values:
                        out.append(Site(module, name, "and-operand=True", ast.unparse(operand),
                                        lambda n=operand: _replace(module, _path(tree, n), _true)))
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
        if frame.f_code.co_filename not in FILES:
            return
        if event == "return":
            out.setdefault(frame.f_code.co_name, []).append(_TMP.sub("", repr(arg)))
        elif event == "call" and frame.f_code.co_name == "verdict":
            given = (frame.f_locals["key"], bool(frame.f_locals["ok"]))
            while frame is not None and frame.f_code.co_filename in FILES:
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


def _swap(mods):
    """Put MODS ({module name: module}) in place of the judge's modules,
    for the imports of the next modules loaded and for the unit tests'
    own names of them; what was in place before, to swap back."""
    import test_verdicts
    old = {name: sys.modules.get(name) for name in mods}
    names = {name: [g for g, v in vars(test_verdicts).items() if v is old[name]] for name in mods}
    package = sys.modules["judge"]
    for name, mod in mods.items():
        sys.modules[name] = mod
        if name.startswith("judge."):
            setattr(package, name.split(".", 1)[1], mod)
        for g in names[name] if old[name] is not None else ():
            setattr(test_verdicts, g, mod)
    return old


def tests_fail(mods, where=None):
    """Whether test_verdicts fails with MODS (load()) as the judge: its
    tests one at a time, stopping at the first that fails; those in which
    WHERE, the edited function, behaves otherwise than in FIRST before the
    others."""
    saved = _swap(mods)
    try:
        for test in sorted(_order, key=lambda t: where not in _differ.get(t.id(), (where,))):
            if not _run(test):
                _order.remove(test)
                _order.insert(0, test)
                return True
        return False
    finally:
        _swap(saved)


def load(module=None, tree=None):
    """The judge's modules, each run afresh after those it imports, and
    MODULE's from the edited TREE: {module name: module}."""
    mods = {}
    saved = {}
    try:
        for name, path in MODULES.items():
            mod = types.ModuleType(name)
            mod.__file__ = path
            mod.__package__ = name.rpartition(".")[0]
            saved.update(_swap({name: mod}))
            exec(compile(tree, path, "exec") if name == module else _code(name), mod.__dict__)
            mods[name] = mod
    finally:
        _swap(saved)
    return mods


def _caught(job):
    """Whether the unit tests fail on edit I of MODULE (JOB: (module, i))."""
    module, i = job
    site = sites(module)[i]
    try:
        mods = load(module, site.apply())
    except Exception:  # an edit that does not even load is caught
        return True
    return tests_fail(mods, site.where)


def main(argv):
    verbose = "-v" in argv
    _swap(load())
    context = multiprocessing.get_context("fork")
    failed = _learn(context)
    if failed:
        print(f"error: judge_mutation: {len(failed)} unit tests fail on the judge itself: "
              f"{' '.join(failed[:4])}{' ...' if len(failed) > 4 else ''}")
        return 1
    jobs = [(module, i) for module in MODULES for i in range(len(sites(module)))]
    all_sites = [sites(module)[i] for module, i in jobs]
    keys = {(s.where, s.kind, s.text) for s in all_sites}
    stale = [k for k in EQUIVALENT if k not in keys]
    survived, equivalent = [], []
    # One process per core, forked after _learn() so that each has what
    # it learnt, and the unit tests' parsed data cached.
    with context.Pool(os.cpu_count()) as pool:
        caught_all = pool.map(_caught, jobs, chunksize=1)
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
