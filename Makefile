# SPDX-License-Identifier: GPL-2.0
# The pipeline, one stage per script in bin/:
#   deps -> base -> tree -> tools -> initramfs -> build -> boot -> compare
#
#   make run	apply, build, boot base and patched, kselftest futex,
#		private hash replacement under load (also with MANY_VCPUS
#		on an SNC-like topology), perf bench futex hash, the
#		blocking paths, scaling curves, instructions per futex
#		call (icount); print the comparison, plots; exit non-zero
#		when a patched guest fails a kselftest, a blocking path
#		fails, or is slower in guests with no more vCPUs than host
#		CPUs, or a path pays more instructions than
#		configs/icount-paths allows (bin/compare.py
#		--fail-on-regression)
#   make selftest	the harness's own tests: unit tests, the judge's
#		mutation check, shellcheck, bad input against fakes; no
#		kernel, a few minutes
#   make check	make selftest and the series' tests: a debug kernel
#		at every patch, guests booted and judged (what .ci/run
#		runs)
#   make recheck	judge make check's result folder again from what it
#		records, no kernel tree needed: make recheck
#		DIR=dir (make check's, $RESULTS/check, unless set)
#   make native	the same measurements on this machine's own kernel, as
#		root, into results/native-<release>-<date>/
#   make compare	compare two result folders, QEMU or native:
#		make compare BASE=dir PATCHED=dir (results/latest unless set)
#   make cost	the paths that block, base against patched, in guests
#		with no more vCPUs than host cores
#   make icount	instructions per futex call at every patch boundary (one
#		vCPU, QEMU -icount); exit non-zero where a path pays more
#		than configs/icount-paths allows
#   make pack	the tools as one tarball, for a machine that cannot build
#		them (guest/native.sh inside runs them)
#   make export	regenerate series/ and fixes/ from build/tree's commits
#   make boots	boot each kernel BOOTS times: futex_numa_mpol first, then
#		the futex kselftests (not part of make check)
#   make mutants	the patched kernel with each deliberate bug of
#		tests/mutants/: the tests must catch it
#   make lockcheck	the stable patches alone, and each bug of
#		tests/lockcheck/ in their place, on debug kernels that
#		force exit_pi_state_list()'s retry: lockdep must catch the
#		bugs and nothing else
#
#   make help	the targets, and the settings of configs/settings
#
#   make soak	the patched debug kernel under fault injection, a soak and
#		the replacement stress, at VCPUS and MANY_VCPUS
#   make sanitize	the patched kernel with each of SANITIZERS
#
# Settings are environment or make variables, each defined in
# configs/settings and checked before any stage runs (bin/lib.sh). What
# each target builds, boots, compares and judges is its plan,
# configs/plans/TARGET (bin/plan.sh --dry-run TARGET prints it); the
# kernels are configs/kernels, the guest runs configs/scenarios.

SHELL := /bin/bash
MAKEFLAGS += --no-print-directory
.SILENT:
export STAGE_T0 := $(shell date +%s)
export $(shell sed -n 's/^\([A-Z_]*\)\t.*/\1/p' configs/settings)

ifndef RUN_DIR
RUN_DIR := results/run-$(shell date +%Y%m%d-%H%M%S)
endif
ifndef NATIVE_DIR
NATIVE_DIR := results/native-$(shell uname -r)-$(shell date +%Y%m%d-%H%M%S)
endif
.PHONY: all help run selftest check recheck native cost icount pack soak sanitize boots mutants lockcheck deps base tree build tools initramfs boot compare export clean distclean

all: run

help:
	sed -n '2,/^$$/{/^$$/q; s/^# \{0,1\}//p}' Makefile
	echo
	bin/settings.sh help

# Each target is its plan, configs/plans/TARGET: the stages it needs
# first (deps, base, tree, tools, initramfs) are plans it names.
deps base tree tools initramfs pack:
	bin/plan.sh $@

build:
	bin/plan.sh build

boot cost run soak sanitize mutants lockcheck boots:
	bin/plan.sh $@ $(RUN_DIR)

icount:
	bin/plan.sh icount $(RUN_DIR)/icount

native:
	bin/plan.sh native $(NATIVE_DIR)

# Two result folders, or the newest make run.
compare:
	bin/compare.py $(or $(and $(BASE),$(PATCHED),$(BASE) $(PATCHED)),results/latest)

selftest:
	tests/selftest.sh

check:
	tests/check.sh

recheck:
	python3 bin/verdicts.py $(or $(DIR),$(or $(RESULTS),results)/check)

export:
	bin/export.sh

clean:
	rm -rf build/out build/initramfs build/obj build/tree/.obj build/tree-base/.obj

distclean:
	rm -rf build results
