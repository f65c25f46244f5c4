// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrent first waiters on a FUTEX2_NUMA futex whose node is still
 * FUTEX_NO_NODE (guest step numarace; not part of make check).
 *
 * get_futex_key() replaces FUTEX_NO_NODE with the caller's node and stores
 * it with a plain put_user(). Two first waiters on different nodes can each
 * store their own node; the one whose store is overwritten is queued in a
 * hash bucket of a node that the futex no longer names, and a waker, which
 * reads the final node, never finds it. The series does not touch this
 * code; the program shows the lost wakeup on any kernel with FUTEX2_NUMA.
 *
 * Each round releases THREADS waiters at once on a fresh futex (value 0,
 * node FUTEX_NO_NODE), each waiting at most 3 s, and wakes them all every
 * millisecond for up to 1.5 s. A waiter that still times out was never
 * found. Prints one line per such round and a total; exits 1 if any
 * waiter was lost.
 *
 * Usage: futex_numa_race [THREADS [ROUNDS]]	(default 16 threads, 40 rounds)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#ifndef __NR_futex_wake
#define __NR_futex_wake		454
#endif
#ifndef __NR_futex_wait
#define __NR_futex_wait		455
#endif
#define FUTEX2_SIZE_U32		0x02
#define FUTEX2_NUMA		0x04
#define FUTEX2_PRIVATE		128
#define FLAGS			(FUTEX2_SIZE_U32 | FUTEX2_NUMA | FUTEX2_PRIVATE)
#define MASK			0xffffffffUL
#define MAX_THREADS		256

/* A FUTEX2_NUMA futex: the value, then the node. */
static struct {
	uint32_t val;
	int32_t node;
} __attribute__((aligned(8))) f;

static pthread_barrier_t start, stop;
static volatile int done[MAX_THREADS];
static int result[MAX_THREADS];

static void *waiter(void *arg)
{
	long i = (long)arg;
	struct timespec ts;

	pthread_barrier_wait(&start);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += 3;
	result[i] = syscall(__NR_futex_wait, &f, 0UL, MASK, FLAGS, &ts,
			    CLOCK_MONOTONIC) ? errno : 0;
	done[i] = 1;
	pthread_barrier_wait(&stop);
	return NULL;
}

static int all_done(int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!done[i])
			return 0;
	return 1;
}

/* One round: the number of waiters that timed out although woken for 1.5 s. */
static int round_lost(int n, int r)
{
	pthread_t t[MAX_THREADS];
	int i, k, lost = 0;

	f.val = 0;
	f.node = -1;	/* FUTEX_NO_NODE */
	memset((void *)done, 0, sizeof(done));
	pthread_barrier_init(&start, NULL, n + 1);
	pthread_barrier_init(&stop, NULL, n + 1);
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, waiter, (void *)(long)i)) {
			perror("pthread_create");
			exit(2);
		}
	pthread_barrier_wait(&start);
	for (k = 0; k < 1500 && !all_done(n); k++) {
		if (syscall(__NR_futex_wake, &f, MASK, n, FLAGS) < 0) {
			printf("error futex_wake: %s\n", strerror(errno));
			exit(2);
		}
		usleep(1000);
	}
	pthread_barrier_wait(&stop);
	for (i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		if (result[i] == ETIMEDOUT)
			lost++;
		else if (result[i] && result[i] != EAGAIN) {
			printf("error futex_wait: %s\n", strerror(result[i]));
			exit(2);
		}
	}
	pthread_barrier_destroy(&start);
	pthread_barrier_destroy(&stop);
	if (lost)
		printf("round %d: %d of %d waiters never woken (node now %d)\n",
		       r, lost, n, f.node);
	return lost;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 16;
	int rounds = argc > 2 ? atoi(argv[2]) : 40;
	int r, lost = 0, bad = 0, l;

	if (n < 1 || n > MAX_THREADS || rounds < 1) {
		fprintf(stderr, "usage: %s [THREADS (1-%d) [ROUNDS]]\n", argv[0], MAX_THREADS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (r = 0; r < rounds; r++) {
		l = round_lost(n, r);
		lost += l;
		bad += !!l;
	}
	printf("numarace threads=%d rounds=%d lost=%d in %d rounds\n", n, rounds, lost, bad);
	return lost ? 1 : 0;
}
