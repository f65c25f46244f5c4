# SPDX-License-Identifier: GPL-2.0
"""make boots: each kernel booted BOOTS times, futex_numa_mpol first after
boot, then the futex kselftests; every boot reports, the first program
passes, no program hangs (on base, but the replacement tests that the
series makes pass, as in make check)."""

import os
import re

import parse_results
from judge.core import guest_problems, keys, planned
from judge.kselftest import RESIZE_PROGRAMS, case_problems, plan_problems
from parse_results import with_evidence


def boot_runs(d):
    """{kernel: [(boot number, folder)]} of make boots' DIR/KERNEL-N."""
    runs = {}
    for name in sorted(os.listdir(d)):
        m = re.match(r"^(.+)-(\d+)$", name)
        if m:
            runs.setdefault(m.group(1), []).append((int(m.group(2)), os.path.join(d, name)))
    return runs


@keys("{name}.boots.reported", "{name}.boots.first", "{name}.boots.hung")
def check_boots(j, kernel, dirs):
    """One kernel's boots: each reported, futex_numa_mpol run first after
    boot passed, and no kselftest after it hung (was stopped for its time);
    on base the replacement tests may, whose SET_SLOTS does not return
    there under load (the bug the series fixes)."""
    allowed = RESIZE_PROGRAMS if kernel == "base" else ()
    first, hung, failed, bad = [], [], {}, []
    for i, path in sorted(dirs):
        kn = j.read(path)
        fr = kn.firstrun or parse_results.parse_kselftest("")
        ks = kn.kselftest
        incomplete = plan_problems(kn, "firstrun") + plan_problems(kn, "kselftest") + guest_problems(kn)
        if ks is None or incomplete:
            bad.append(f"boot {i}: no complete results: " + "; ".join(incomplete[:3]))
            continue
        where = os.path.basename(path)
        if fr.programs["pass"] != 1 or case_problems(fr):
            ev = kn.evidence_all["firstrun"]
            first += [f"boot {i}: " + with_evidence(where, f, ev)
                      for f in fr.failed or ["futex_numa_mpol did not run"]]
        hung += [f"boot {i}: " + with_evidence(where, t, kn.evidence) for t in ks.timeouts if t not in allowed]
        for f in ks.failed:
            failed.setdefault(f.split()[0], []).append(i)
    n = len(dirs)
    ran = n - len(bad)
    j.verdict(f"{kernel}.boots.reported", not bad, f"{kernel}: {ran} of {n} boots reported their results",
              "; ".join(bad))
    j.verdict(f"{kernel}.boots.first", not first and ran > 0, f"{kernel}: futex_numa_mpol, first after boot, "
              f"passed in {ran - len(first)} of {ran} boots", "; ".join(first))
    j.verdict(f"{kernel}.boots.hung", not hung and ran > 0, f"{kernel}: no futex kselftest after it hung"
              + (f" but {', '.join(allowed)}" if allowed else "") + f", in {ran} boots ({len(hung)} hangs)",
              "; ".join(hung[:10]))
    for t, boots_failed in sorted(failed.items()):
        print(f"# {kernel}: {t} failed in {len(boots_failed)} of {ran} boots")


def boots(j, d):
    """make boots: DIR/KERNEL-N, one folder per boot; the exit status."""
    runs = boot_runs(d)
    plan = [x for kernel in runs for x in planned(check_boots, kernel)]
    return j.run(plan, lambda: [check_boots(j, kernel, dirs) for kernel, dirs in sorted(runs.items())])
