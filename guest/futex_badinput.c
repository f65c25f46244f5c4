// SPDX-License-Identifier: GPL-2.0
/*
 * futex_badinput - issue a corpus of malformed futex calls and print what
 * each returned, one line per call, so that two kernels can be compared
 * line by line.
 *
 * Usage: futex_badinput
 *
 * sys_futex: every operation (and three that do not exist), with and
 * without FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME, against a valid
 * word, NULL, an unaligned, an unmapped, a PROT_NONE, a read-only, a
 * kernel and a non-canonical address, with a value that matches, one that
 * does not and ~0, and with no timeout, an expired one, a negative one and
 * one with an invalid tv_nsec. futex_waitv, futex_wait, futex_wake and
 * futex_requeue (futex2): bad vectors, counts, flags, clocks, sizes and
 * addresses. Nothing blocks: a call that would (a matching wait without
 * timeout) is issued with a mismatching value instead, and an alarm
 * interrupts anything that still does.
 *
 * Each line: "N CALL ARGS -> RET ERRNO". Prints "total N" at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "futex2.h"

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2		13
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static long page;
static uint32_t *valid, *valid2;
static unsigned long n;

struct addr {
	const char *name;
	uintptr_t addr;
};

static struct addr addrs[8];

static const struct { const char *name; int op; } ops[] = {
	{ "WAIT", FUTEX_WAIT }, { "WAKE", FUTEX_WAKE }, { "FD", 2 },
	{ "REQUEUE", FUTEX_REQUEUE }, { "CMP_REQUEUE", FUTEX_CMP_REQUEUE },
	{ "WAKE_OP", FUTEX_WAKE_OP }, { "LOCK_PI", FUTEX_LOCK_PI },
	{ "UNLOCK_PI", FUTEX_UNLOCK_PI }, { "TRYLOCK_PI", FUTEX_TRYLOCK_PI },
	{ "WAIT_BITSET", FUTEX_WAIT_BITSET }, { "WAKE_BITSET", FUTEX_WAKE_BITSET },
	{ "WAIT_REQUEUE_PI", FUTEX_WAIT_REQUEUE_PI },
	{ "CMP_REQUEUE_PI", FUTEX_CMP_REQUEUE_PI }, { "LOCK_PI2", FUTEX_LOCK_PI2 },
	{ "OP14", 14 }, { "OP15", 15 },
};

static const struct { const char *name; int flags; } opflags[] = {
	{ "", 0 }, { "|PRIVATE", FUTEX_PRIVATE_FLAG },
	{ "|CLOCK_RT", FUTEX_CLOCK_REALTIME },
	{ "|PRIVATE|CLOCK_RT", FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME },
};

static const struct { const char *name; uint32_t val; } vals[] = {
	{ "match", 0 }, { "mismatch", 1 }, { "~0", ~0U },
};

enum { TO_NONE, TO_ZERO, TO_NEG, TO_BADNSEC, TO_NR };
static const char * const tonames[] = { "none", "zero", "negative", "bad_nsec" };

static struct timespec *timeout(int kind, struct timespec *ts)
{
	switch (kind) {
	case TO_ZERO:
		ts->tv_sec = 0;
		ts->tv_nsec = 0;
		return ts;
	case TO_NEG:
		ts->tv_sec = -1;
		ts->tv_nsec = 0;
		return ts;
	case TO_BADNSEC:
		ts->tv_sec = 0;
		ts->tv_nsec = 1000000000;
		return ts;
	default:
		return NULL;
	}
}

/* A call that blocks after all is interrupted by SIGALRM: EINTR. */
#define GUARDED(call) ({ long __ret; alarm(2); __ret = (call); alarm(0); __ret; })

/*
 * The requeue operations and FUTEX_WAKE_OP take a number (val2) where the
 * others take the timeout pointer.
 */
static const long val2s[TO_NR] = { 0, 1, -1, 0x7fffffff };

static int val2_op(int op)
{
	return op == FUTEX_REQUEUE || op == FUTEX_CMP_REQUEUE ||
	       op == FUTEX_CMP_REQUEUE_PI || op == FUTEX_WAKE_OP;
}

static void report(const char *call, long ret)
{
	const char *name = ret < 0 ? strerrorname_np(errno) : "-";

	printf("%lu %s -> %ld %s\n", n++, call, ret, name ? name : "?");
}

/* The valid words start at 0 and end up there again for the next call. */
static void reset(void)
{
	*valid = 0;
	*valid2 = 0;
}

static void sys_futex_corpus(void)
{
	unsigned int o, f, a, v, t;
	struct timespec ts;
	const char *vname;
	char call[256];
	long ret;

	for (o = 0; o < ARRAY_SIZE(ops); o++)
	for (f = 0; f < ARRAY_SIZE(opflags); f++)
	for (a = 0; a < ARRAY_SIZE(addrs); a++)
	for (v = 0; v < ARRAY_SIZE(vals); v++)
	for (t = 0; t < TO_NR; t++) {
		uint32_t val = vals[v].val;
		int op = ops[o].op | opflags[f].flags;

		/*
		 * A matching wait without timeout would block: mismatch it
		 * (the valid and the read-only words read 0).
		 */
		vname = vals[v].name;
		if ((a == 0 || a == 5) && t == TO_NONE && val == 0 &&
		    (ops[o].op == FUTEX_WAIT || ops[o].op == FUTEX_WAIT_BITSET ||
		     ops[o].op == FUTEX_WAIT_REQUEUE_PI)) {
			val = 1;
			vname = "mismatch(instead of match)";
		}
		reset();
		/* uaddr2 is the second valid word, val3 a bitset/op/cmpval */
		if (val2_op(ops[o].op)) {
			snprintf(call, sizeof(call), "futex(%s%s, %s, %s, val2=%ld)",
				 ops[o].name, opflags[f].name, addrs[a].name,
				 vname, val2s[t]);
			ret = GUARDED(syscall(SYS_futex, addrs[a].addr, op, val, val2s[t],
					      valid2, 1));
		} else {
			snprintf(call, sizeof(call), "futex(%s%s, %s, %s, timeout=%s)",
				 ops[o].name, opflags[f].name, addrs[a].name,
				 vname, tonames[t]);
			ret = GUARDED(syscall(SYS_futex, addrs[a].addr, op, val,
					      timeout(t, &ts), valid2, 1));
		}
		report(call, ret);
	}
	reset();
}

static void waitv_corpus(void)
{
	struct futex_waitv w[2];
	struct timespec ts;
	unsigned int a, c;
	char call[256];
	long ret;
	static const struct { const char *name; int clock; } clocks[] = {
		{ "MONOTONIC", CLOCK_MONOTONIC }, { "REALTIME", CLOCK_REALTIME },
		{ "BOOTTIME", CLOCK_BOOTTIME }, { "-1", -1 },
	};

	for (a = 0; a < ARRAY_SIZE(addrs); a++)
	for (c = 0; c < ARRAY_SIZE(clocks); c++) {
		memset(w, 0, sizeof(w));
		w[0].uaddr = (uintptr_t)valid;
		w[0].val = 1;	/* mismatch: never blocks */
		w[0].flags = FUTEX2_SIZE_U32 | FUTEX2_PRIVATE;
		w[1].uaddr = addrs[a].addr;
		w[1].val = 1;
		w[1].flags = FUTEX2_SIZE_U32;
		reset();
		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(call, sizeof(call), "futex_waitv([valid, %s], clock=%s)",
			 addrs[a].name, clocks[c].name);
		ret = GUARDED(syscall(SYS_futex_waitv, w, 2, 0, &ts, clocks[c].clock));
		report(call, ret);
	}

	memset(w, 0, sizeof(w));
	w[0].uaddr = (uintptr_t)valid;
	w[0].val = 1;
	w[0].flags = FUTEX2_SIZE_U32;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	report("futex_waitv(NULL, 1)", GUARDED(syscall(SYS_futex_waitv, NULL, 1, 0, &ts, CLOCK_MONOTONIC)));
	report("futex_waitv(w, 0)", GUARDED(syscall(SYS_futex_waitv, w, 0, 0, &ts, CLOCK_MONOTONIC)));
	report("futex_waitv(w, 129)", GUARDED(syscall(SYS_futex_waitv, w, 129, 0, &ts, CLOCK_MONOTONIC)));
	report("futex_waitv(w, 1, flags=1)", GUARDED(syscall(SYS_futex_waitv, w, 1, 1, &ts, CLOCK_MONOTONIC)));
	report("futex_waitv(w, 1, timeout=bad address)", GUARDED(syscall(SYS_futex_waitv, w, 1, 0, (void *)addrs[3].addr, CLOCK_MONOTONIC)));
	report("futex_waitv(unmapped, 1)", GUARDED(syscall(SYS_futex_waitv, (void *)addrs[3].addr, 1, 0, &ts, CLOCK_MONOTONIC)));
	w[0].__reserved = 1;
	report("futex_waitv(reserved=1)", GUARDED(syscall(SYS_futex_waitv, w, 1, 0, &ts, CLOCK_MONOTONIC)));
	w[0].__reserved = 0;
	w[0].flags = 0x80;
	report("futex_waitv(flags=0x80)", GUARDED(syscall(SYS_futex_waitv, w, 1, 0, &ts, CLOCK_MONOTONIC)));
	w[0].flags = 0x3;	/* FUTEX2_SIZE_U64 */
	report("futex_waitv(size=u64)", GUARDED(syscall(SYS_futex_waitv, w, 1, 0, &ts, CLOCK_MONOTONIC)));
	w[0].flags = FUTEX2_SIZE_U32;
	w[0].val = 1ULL << 32;
	report("futex_waitv(val>u32)", GUARDED(syscall(SYS_futex_waitv, w, 1, 0, &ts, CLOCK_MONOTONIC)));
	reset();
}

static void futex2_corpus(void)
{
	static const struct { const char *name; unsigned int flags; } f2[] = {
		{ "u32", FUTEX2_SIZE_U32 }, { "u32|private", FUTEX2_SIZE_U32 | FUTEX2_PRIVATE },
		{ "u8", 0 }, { "u64", 3 }, { "u32|numa", FUTEX2_SIZE_U32 | FUTEX2_NUMA },
		{ "u32|0x1000", FUTEX2_SIZE_U32 | 0x1000 },
	};
	static const struct { const char *name; unsigned long mask; } masks[] = {
		{ "any", ~0UL }, { "0", 0 }, { "1", 1 },
	};
	struct futex_waitv rq[2];
	struct timespec ts;
	unsigned int a, f, m;
	char call[256];

	for (a = 0; a < ARRAY_SIZE(addrs); a++)
	for (f = 0; f < ARRAY_SIZE(f2); f++)
	for (m = 0; m < ARRAY_SIZE(masks); m++) {
		reset();
		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(call, sizeof(call), "futex_wait(%s, val=1, mask=%s, %s)",
			 addrs[a].name, masks[m].name, f2[f].name);
		report(call, GUARDED(syscall(SYS_futex_wait, addrs[a].addr, 1, masks[m].mask,
				     f2[f].flags, &ts, CLOCK_MONOTONIC)));
		snprintf(call, sizeof(call), "futex_wake(%s, mask=%s, nr=1, %s)",
			 addrs[a].name, masks[m].name, f2[f].name);
		report(call, GUARDED(syscall(SYS_futex_wake, addrs[a].addr, masks[m].mask, 1,
				     f2[f].flags)));
	}
	for (a = 0; a < ARRAY_SIZE(addrs); a++)
	for (f = 0; f < ARRAY_SIZE(f2); f++) {
		memset(rq, 0, sizeof(rq));
		rq[0].uaddr = addrs[a].addr;
		rq[0].val = 1;
		rq[0].flags = f2[f].flags;
		rq[1].uaddr = (uintptr_t)valid2;
		rq[1].flags = f2[f].flags;
		reset();
		snprintf(call, sizeof(call), "futex_requeue([%s, valid], %s)",
			 addrs[a].name, f2[f].name);
		report(call, GUARDED(syscall(SYS_futex_requeue, rq, 0, 1, 1)));
	}
	report("futex_requeue(NULL)", GUARDED(syscall(SYS_futex_requeue, NULL, 0, 1, 1)));
	report("futex_requeue(flags=1)", GUARDED(syscall(SYS_futex_requeue, rq, 1, 1, 1)));
	report("futex_requeue(nr_wake=-1)", GUARDED(syscall(SYS_futex_requeue, rq, 0, -1, 1)));
	reset();
}

static void on_alarm(int sig)
{
	(void)sig;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	char *m;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page = sysconf(_SC_PAGESIZE);
	/* valid, unaligned, PROT_NONE, unmapped and read-only pages */
	m = mmap(NULL, 5 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	valid = (uint32_t *)m;
	valid2 = valid + 1;
	mprotect(m + 2 * page, page, PROT_NONE);
	munmap(m + 3 * page, page);
	mprotect(m + 4 * page, page, PROT_READ);

	addrs[0] = (struct addr){ "valid", (uintptr_t)valid };
	addrs[1] = (struct addr){ "NULL", 0 };
	addrs[2] = (struct addr){ "unaligned", (uintptr_t)m + page + 1 };
	addrs[3] = (struct addr){ "unmapped", (uintptr_t)m + 3 * page };
	addrs[4] = (struct addr){ "prot_none", (uintptr_t)m + 2 * page };
	addrs[5] = (struct addr){ "read_only", (uintptr_t)m + 4 * page };
	addrs[6] = (struct addr){ "kernel", 0xffffffff81000000UL };
	addrs[7] = (struct addr){ "non_canonical", 0x8000000000000000UL };

	/* Anything that blocks after all is interrupted (EINTR) and reported. */
	sigaction(SIGALRM, &sa, NULL);

	sys_futex_corpus();
	waitv_corpus();
	futex2_corpus();
	printf("total %lu\n", n);
	return 0;
}
