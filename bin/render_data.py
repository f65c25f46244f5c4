#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Render compare_kernels.summarize()'s dict as data files: summary.json
(the dict itself) and summary.tsv, one row per measurement and kernel,
which holds the data behind every plot of render_plot."""

import dataclasses
import json

from compare_kernels import KERNELS

COLUMNS = ("metric", "key", "threads", "kernel", "value", "unit", "min", "max",
           "ratio", "ratio_lo", "ratio_hi", "verdict", "note", "delta")


def _row(metric, key, kernel, value, **more):
    """One TSV row as a dict of COLUMNS; a column not given is empty."""
    return {"metric": metric, "key": key, "kernel": kernel, "value": value, **more}


def kselftest_rows(s):
    for kernel, k in s["kselftest"].items():
        for what in ("programs", "subtests"):
            for v in ("pass", "fail", "skip"):
                yield _row(f"kselftest_{what}", v, kernel, k[what][v])
        yield _row("accelerator", "", kernel, k["accel"])


def guest_rows(s):
    """The precheck and waiter counts of each kernel."""
    for kernel, kinds in s["precheck"].items():
        for kind, v in sorted(kinds.items()):
            yield _row("precheck_bucket", kind, kernel, v["bucket"], note=f"of {v['waits']}")
    for kernel, kinds in s["waiters"].items():
        for kind, v in sorted(kinds.items()):
            yield _row("idle_wakes_seeing_waiters", kind, kernel, v["busy"], note=f"of {v['wakes']}")


def resize_rows(s):
    """resizebench's runs of every guest: seconds (empty where it never
    completed) and ops/s after."""
    for pair in s["resize"]:
        for r in pair["bench"]:
            for role, kernel in zip(KERNELS, pair["kernels"]):
                v = r[role]
                if v:
                    yield _row(f"resize_{r['mode']}_seconds", f"{pair['cpus']} vCPUs", kernel,
                               v["seconds"] if v["done"] else "", unit="s", threads=r["threads"])
                    yield _row(f"resize_{r['mode']}_ops", f"{pair['cpus']} vCPUs", kernel,
                               round(v["ops_per_s"]), unit="ops/s", threads=r["threads"])


def replacement_rows(s):
    """SET_SLOTS latency per vCPU count and thread count: the replacement
    plot's data; a run that never completed has its limit, noted."""
    for pair in s["replacement"]:
        for r in pair["rows"]:
            for kernel in KERNELS:
                v = r[kernel]
                if v:
                    yield _row("replacement", f"{pair['cpus']} vCPUs", kernel, v["seconds"], unit="s",
                               threads=r["threads"], note="" if v["done"] else "not done")


def _ratio(row):
    """The patched kernel's row's ratio columns: the ratio, its interval
    and, in the block group, the row's verdict."""
    out = {"verdict": row["verdict"]} if "verdict" in row else {}
    if row["ratio"] is not None:
        out.update({k: f"{row[k]:.4f}" for k in ("ratio", "ratio_lo", "ratio_hi")})
    return out


def metric_rows(metric, key, row, threads=""):
    """Each kernel's median, min and max of one benchmark row, or why it
    has none; the ratio, its interval and the verdict on the patched
    kernel's row."""
    for kernel in KERNELS:
        side, more = row[kernel], _ratio(row) if kernel == "patched" else {}
        if side and side["median"] is not None:
            yield _row(metric, key, kernel, side["median"], unit=row["unit"], threads=threads,
                       min=side["min"], max=side["max"], **more)
        elif row["not_run"].get(kernel):
            yield _row(metric, key, kernel, "", threads=threads, note="not run: " + row["not_run"][kernel],
                       **more)
        elif side:
            yield _row(metric, key, kernel, "", threads=threads,
                       note=f"no result: {side['failed']} runs failed", **more)


def bench_rows(s):
    """The hash, block and scale groups; the scale rows are the scale plots' data."""
    for group in ("hash", "block"):
        for name, row in s[group].items():
            yield from metric_rows(group, name, row)
    for op, rows in s["scale"].items():
        for threads, row in rows.items():
            yield from metric_rows("scale", op, row, "" if threads is None else threads)


def icount_rows(s):
    """Instructions per call, per path and kernel: the delta from the
    kernel before it (delta), and on the last kernel's row the verdict
    and the whole series' delta."""
    ic = s.get("icount")
    for r in ic["rows"] if ic else ():
        for label in ic["kernels"]:
            last = label == ic["kernels"][-1]
            step = r["steps"][label]
            more = {"verdict": r["verdict"], "note": f"series delta {r['delta']:+.1f}"
                    if r["delta"] is not None else ""} if last else {}
            yield _row("icount", r["path"], label, "" if r["values"][label] is None else r["values"][label],
                       unit="instructions", delta="" if step is None else step, **more)


def skip_rows(s):
    for x in s["skipped"]:
        yield _row("skipped", x["step"], x["kernel"], "", note=x["reason"])


def rows(s):
    """Every TSV row of summary S, as dicts of COLUMNS."""
    for part in (kselftest_rows, guest_rows, resize_rows, replacement_rows, bench_rows, skip_rows):
        if "kselftest" in s:
            yield from part(s)
    yield from icount_rows(s)


def _cell(v):
    """A TSV cell: a float with six significant digits, else as it is."""
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def tsv(s):
    """summary.tsv's text: a header line, then one line per row."""
    lines = ["\t".join(COLUMNS)]
    lines += ["\t".join(_cell(r.get(c, "")) for c in COLUMNS) for r in rows(s)]
    return "\n".join(lines) + "\n"


def _plain(o):
    """JSON for what the summary holds besides plain data (Kselftest)."""
    if dataclasses.is_dataclass(o):
        return dataclasses.asdict(o)
    raise TypeError(f"{type(o).__name__} is not JSON serializable")


def write(s, json_path, tsv_path):
    """Write summary.json and summary.tsv."""
    with open(json_path, "w") as f:
        json.dump(s, f, indent=1, default=_plain)
    with open(tsv_path, "w") as f:
        f.write(tsv(s))
