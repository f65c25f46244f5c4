// SPDX-License-Identifier: GPL-2.0
/*
 * futex_hold - how long a replacement of the private futex hash holds the
 * lock of a bucket that has N waiters queued in it.
 *
 * Usage: futex_hold N...
 *
 * For each N, in order: N IORING_OP_FUTEX_WAIT requests wait on one
 * private word, so that all of them are in one bucket whatever the size of
 * the hash, and the hash is replaced REPS times, 32 and 16 slots in turn,
 * each PR_FUTEX_HASH_SET_SLOTS timed alone in the CPU time of the thread
 * that issues it and does the replacement: the time it spends asleep (for
 * an RCU grace period, say) does not count. A replacement moves the
 * futex_q of a bucket to the new hash under that bucket's lock, so what
 * the N waiters add to a replacement's time, against N = 0, is time that
 * one bucket's lock is held. io_uring lets one thread queue that many: a
 * request waits without a task of its own.
 *
 * Output, per N: "hold waiters=N cpu_ns=T1,T2,...", the time of each
 * replacement, then the waiters are woken and their ring closed. Under
 * QEMU's -icount shift=0,sleep=off on one vCPU (step hold) the guest clock
 * advances one nanosecond per instruction, so the times are instructions,
 * the same from boot to boot but for the timer ticks that fall into one;
 * the least of the REPS is the one to read.
 *
 * A second thread stays blocked in read() throughout, so the process has
 * two threads, and its private futexes hash in its private hash.
 * Errors: "error: what: strerror", exit 1; "skip: why" where the kernel
 * has no private hash or no io_uring futex operations.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/io_uring.h>
#include "futex2.h"
#include "uring.h"

#define REPS		5
/* Submissions per io_uring_enter(), and the ring's size. */
#define BATCH		4096

static uint32_t word;
static int park[2];

static void fail(const char *what, int err)
{
	printf("error: %s: %s\n", what, strerror(err));
	exit(1);
}

static long long cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *parked(void *arg)
{
	char c;

	(void)arg;
	while (read(park[0], &c, 1) > 0)
		;
	return NULL;
}

/* Queue @n waits for @word to leave 0 on @u; a completion means one was refused. */
static void queue_waiters(struct uring *u, long n)
{
	unsigned int tail = *u->sq_tail;
	long done, i, batch;

	for (done = 0; done < n; done += batch) {
		batch = n - done < BATCH ? n - done : BATCH;
		for (i = 0; i < batch; i++) {
			struct io_uring_sqe *sqe = &u->sqes[(tail + i) & u->sq_mask];

			memset(sqe, 0, sizeof(*sqe));
			sqe->opcode = URING_OP_FUTEX_WAIT;
			sqe->fd = FUTEX_32 | FUTEX2_PRIVATE;
			sqe->addr = (uintptr_t)&word;
			sqe->addr2 = 0;
			sqe->addr3 = FUTEX_BITSET_MATCH_ANY;
		}
		tail += batch;
		__atomic_store_n(u->sq_tail, tail, __ATOMIC_RELEASE);
		if (syscall(SYS_io_uring_enter, u->fd, batch, 0, 0, NULL, 0) != batch)
			fail("io_uring_enter", errno);
	}
	if (__atomic_load_n(u->cq_tail, __ATOMIC_ACQUIRE) != *u->cq_head)
		fail("a wait completed before its wake", -u->cqes[*u->cq_head & u->cq_mask].res);
}

/* N waiters, REPS replacements, each timed; the waiters woken. */
static void measure(long n)
{
	long long t[REPS];
	struct uring u;
	int i, err;

	err = uring_init(&u, BATCH);
	if (err)
		fail("io_uring_setup", err);
	queue_waiters(&u, n);
	for (i = 0; i < REPS; i++) {
		t[i] = cpu_now();
		if (prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, i & 1 ? 16 : 32, 0, 0))
			fail("PR_FUTEX_HASH_SET_SLOTS", errno);
		t[i] = cpu_now() - t[i];
	}
	printf("hold waiters=%ld cpu_ns=", n);
	for (i = 0; i < REPS; i++)
		printf("%lld%s", t[i], i < REPS - 1 ? "," : "\n");
	if (syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0) != n)
		fail("FUTEX_WAKE_PRIVATE woke another count", errno);
	close(u.fd);
}

int main(int argc, char **argv)
{
	struct uring probe;
	pthread_t helper;
	int i, err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return fprintf(stderr, "usage: %s N...\n", argv[0]), 2;
	if (pipe(park))
		fail("pipe", errno);
	err = pthread_create(&helper, NULL, parked, NULL);
	if (err)
		fail("pthread_create", err);
	if (prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, 16, 0, 0))
		return printf("skip: PR_FUTEX_HASH_SET_SLOTS: %s\n", strerror(errno)), 0;
	err = uring_init(&probe, 1);
	if (err)
		return printf("skip: io_uring_setup: %s\n", strerror(err)), 0;
	close(probe.fd);
	for (i = 1; i < argc; i++)
		measure(atol(argv[i]));
	close(park[1]);
	pthread_join(helper, NULL);
	return 0;
}
