# SPDX-License-Identifier: GPL-2.0
# The pipeline, one stage per script in bin/:
#   deps -> base -> tree -> build -> tools -> initramfs -> boot -> compare
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
#		DIR=results/check (the default)
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
# Settings are environment or make variables, each defined in
# configs/settings and checked before any stage runs (bin/lib.sh). The
# guest runs themselves (kernel, vCPUs, topology, steps) are
# configs/scenarios.

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

deps:
	bin/deps.sh

base: deps
	bin/base.sh

tree: base
	bin/tree.sh

build: tree
	bin/build.sh base build/tree-base futex
	bin/build.sh patched build/tree futex

tools: tree
	bin/tools.sh

initramfs: tools
	bin/initramfs.sh

boot: build initramfs
	for s in base patched base-many patched-many; do \
		bin/scenario.sh $$s $(RUN_DIR)/$$s || exit 1; \
	done
	for k in base patched; do \
		bin/scenario.sh icount $(RUN_DIR)/icount-$$k $$k || exit 1; \
	done
	ln -sfn $(abspath $(RUN_DIR)) results/latest

# Two result folders, or the newest make run.
compare:
	bin/compare.py $(or $(and $(BASE),$(PATCHED),$(BASE) $(PATCHED)),results/latest)

native: tools
	bin/scenario.sh native $(NATIVE_DIR)

# The paths that block, base against patched, in guests of COST_VCPUS
# (the host's cores unless set): no vCPU waits for a host core.
cost: build initramfs
	for s in base-cost patched-cost; do \
		bin/scenario.sh $$s $(RUN_DIR)/$$s || exit 1; \
	done
	bin/compare.py $(RUN_DIR)/base-cost $(RUN_DIR)/patched-cost -o $(RUN_DIR)/cost

# Instructions per futex call: base, the kernel after each patch, and the
# last one again, which must count alike (bin/icount.sh).
icount: tree initramfs
	bin/icount.sh $(RUN_DIR)/icount

pack: tools
	bin/pack.sh

run: boot
	bin/compare.py --fail-on-regression $(RUN_DIR)

selftest:
	tests/selftest.sh

check:
	tests/check.sh

recheck:
	python3 bin/verdicts.py $(or $(DIR),results/check)

# The patched debug kernel, at VCPUS and at MANY_VCPUS: under fault
# injection (fail_futex) the futex kselftests, the malformed calls and
# stress-ng's futex stressor for SOAK_SECS/5, then a soak of SOAK_SECS
# (default 300) under stress-ng's futex stressor and perf bench futex wake,
# wake-parallel, requeue and lock-pi, then every private futex operation
# during 200 replacements of the hash (step replace). make check soaks
# for 30 s, and runs step replace in the mutant scenario.
soak: tools initramfs
	bin/build.sh patched-debug build/tree debug
	bin/scenario.sh soak $(RUN_DIR)/soak
	bin/scenario.sh soak-many $(RUN_DIR)/soak-many
	python3 bin/verdicts.py --soak $(RUN_DIR)/soak $(RUN_DIR)/soak-many

# The patched kernel with KASAN (and the debug checks) and with KCSAN, each
# running the futex kselftests and the malformed calls; not part of make
# check (two more kernel builds). SANITIZERS picks them.
SANITIZERS ?= $(shell bin/settings.sh value SANITIZERS)
sanitize: tools initramfs
	for s in $(SANITIZERS); do \
		bin/build.sh patched-$$s build/tree $$s && \
		bin/scenario.sh sanitize $(RUN_DIR)/$$s patched-$$s || exit 1; \
	done
	python3 bin/verdicts.py --sanitize $(addprefix $(RUN_DIR)/,$(SANITIZERS))

# The patched kernel once per deliberate bug of tests/mutants/ (MUTANTS
# picks some), each booted with the quick futex kselftests and the guest
# checks, and once unmutated in the same scenario (the control), also in
# each flavour that a mutant is built in (its Flavour: line); every
# mutant must be caught by the check its patch names (Caught-by:), or its
# patch says why it cannot be here (Not-caught-here:), and the controls
# must pass every check. make check runs one of them, and the control.
MUTANTS ?= $(basename $(notdir $(wildcard tests/mutants/*.patch)))
MUTANT_FLAVOURS = $(sort $(foreach m,$(MUTANTS),$(shell sed -n '/^diff --git/q; s/^Flavour: //p' tests/mutants/$(m).patch)))
mutants: tools initramfs
	bin/build.sh patched build/tree futex
	bin/scenario.sh mutant $(RUN_DIR)/mutant-control patched
	for f in $(MUTANT_FLAVOURS); do \
		bin/build.sh patched-$$f build/tree $$f && \
		bin/scenario.sh mutant $(RUN_DIR)/mutant-control-$$f patched-$$f || \
			echo "error: the $$f control: no complete guest run, judged below"; \
	done
	for m in $(MUTANTS); do \
		bin/mutant.sh $$m $(RUN_DIR)/mutants/$$m || \
			echo "error: mutant $$m: no complete guest run, judged below"; \
	done
	python3 bin/verdicts.py --mutants $(RUN_DIR)/mutants $(RUN_DIR)/mutant-control

# A hash reference put with curr->pi_lock held, in exit_pi_state_list(),
# must take no sleeping lock: the debug kernel of the stable patches alone
# (the control) and of each bug of tests/lockcheck/, each forced into that
# put (tests/lockcheck/probe.patch), run step exitpi; lockdep must report
# every bug (Caught-by:) and nothing on the control.
lockcheck: tools initramfs
	bin/lockcheck.sh $(RUN_DIR)/lockcheck
	python3 bin/verdicts.py --lockcheck $(RUN_DIR)/lockcheck

# Whether the first futex kselftest after boot hangs: each kernel booted
# BOOTS times, base and patched in turn, runs
# futex_numa_mpol first, then the futex kselftests in make check's order.
# A guest that fails is counted, and the next one boots.
boots: build initramfs
	for i in $$(seq "$$(bin/settings.sh value BOOTS)"); do \
		for k in base patched; do \
			bin/scenario.sh boots $(RUN_DIR)/boots/$$k-$$i $$k || \
				echo "error: boot $$i of $$k failed"; \
		done; \
	done
	python3 bin/verdicts.py --boots $(RUN_DIR)/boots

export:
	bin/export.sh

clean:
	rm -rf build/out build/initramfs build/obj build/tree/.obj build/tree-base/.obj

distclean:
	rm -rf build results
