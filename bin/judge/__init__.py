# SPDX-License-Identifier: GPL-2.0
"""The judge of the guests' results, one module per family of checks:

  core		the Judge (the verdicts of one run, its plan, what it reads)
  kselftest	the kselftest programs: plans, results, the console
  series	what the series changes: refused waits, waiter counts,
		malformed calls, the stable patches, the native mode
  stress	fault injection, the soak, the replacement stress, sanitizers
  boots		make boots
  mutants	make mutants, make lockcheck, and make check's mutant

bin/verdicts.py is its command line.
"""
