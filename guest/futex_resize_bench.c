// SPDX-License-Identifier: GPL-2.0
/*
 * futex_resize_bench - how long a private futex hash replacement takes
 * under load, and what the load gets done meanwhile.
 *
 * Usage: futex_resize_bench ramp|set|shrink|retry THREADS SECONDS [TRIGGER]
 *
 * The load: THREADS threads issue FUTEX_WAKE_PRIVATE on their own word,
 * nobody waiting, each from the moment it exists (no start barrier), as in
 * the report that found the FR_ATOMIC phase unbounded.
 *
 *   ramp	create the threads one by one; report the time from the last
 *		creation until PR_FUTEX_HASH_GET_SLOTS shows the size that
 *		auto-scaling picks, then the load's ops/s over SECONDS.
 *   set	create the threads, wait until all run, then report how long
 *		PR_FUTEX_HASH_SET_SLOTS(256) takes, from the creation of the
 *		thread that issues it until the main thread sees it returned,
 *		and how long the call itself took in that thread (syscall=),
 *		then ops/s over SECONDS; ops_during= is the load's ops/s
 *		while the call was in flight (until the deadline if it never
 *		returned).
 *   shrink	the same for PR_FUTEX_HASH_SET_SLOTS(16), once the hash was
 *		set to 256 slots before the threads were created.
 *   retry	create the threads, let them run for SECONDS, then pause them
 *		(no futex operation, no reference held) and, RETRY_AFTER_S
 *		later, create one more thread, which asks for the automatic
 *		size again; report the size before the pause and the time from
 *		that creation until the size is reached, the main thread
 *		issuing one FUTEX_WAKE_PRIVATE per poll (the operation that
 *		installs a replacement that is ready). A kernel that leaves
 *		no automatic replacement pending under the load reports the
 *		automatic size before the pause already.
 *
 * TRIGGER, a tracefs trigger file holding the paused hist trigger
 * "hist:keys=state", is resumed for the SECONDS of steady state only.
 *
 * A replacement that has not happened after DEADLINE_S is reported as not
 * done; the load stops after SECONDS either way, so the program ends.
 * Prints one line of key=value pairs; times in seconds.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include "futex2.h"

#define DEADLINE_S	10.0
/* The pause before the thread that asks for the automatic size again */
#define RETRY_AFTER_S	2
#define SET_SLOTS	256
#define SHRINK_SLOTS	16

/* One futex word and its thread's operation count per cache line. */
struct word {
	uint32_t val;
	long ops;
} __attribute__((aligned(64)));

static struct word *words;
static atomic_int running, stop, paused;
static atomic_llong set_done;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *load(void *arg)
{
	struct word *w = arg;

	atomic_fetch_add(&running, 1);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (atomic_load_explicit(&paused, memory_order_relaxed)) {
			usleep(1000);
			continue;
		}
		syscall(SYS_futex, &w->val, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		__atomic_store_n(&w->ops, w->ops + 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static double set_call;
static int set_to;

static void *set_slots(void *arg)
{
	double t = now();

	(void)arg;
	prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, set_to, 0, 0);
	set_call = now() - t;
	atomic_store(&set_done, (long long)(now() * 1e9));
	return NULL;
}

static long total_ops(int n)
{
	long sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += __atomic_load_n(&words[i].ops, __ATOMIC_RELAXED);
	return sum;
}

/* Resume ("cont") or pause the hist trigger in @file, if any. */
static void hist(const char *file, const char *cmd)
{
	FILE *f;

	if (!file)
		return;
	f = fopen(file, "a");
	if (!f || fprintf(f, "hist:keys=state:%s\n", cmd) < 0 || fclose(f))
		perror(file);
}

/*
 * The size futex_hash_allocate_default() picks when the last of @threads new
 * threads is created: it counts the threads before that clone, the main
 * thread and @threads - 1.
 */
static int auto_slots(int threads)
{
	int cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n = threads < cpus ? threads : cpus;
	int slots = 16;

	while (slots < 4 * n)
		slots *= 2;
	return slots;
}

/* Wait until @done() or the deadline; the seconds it took, or -1. */
static double wait_for(int (*done)(void), double start)
{
	while (!done()) {
		if (now() - start > DEADLINE_S)
			return -1;
		usleep(1000);
	}
	return now() - start;
}

static int want;

static int slots_reached(void)
{
	return prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0) == want;
}

static int set_returned(void)
{
	return atomic_load(&set_done) != 0;
}

static int slots_reached_after_op(void)
{
	syscall(SYS_futex, &words[0].val, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	return slots_reached();
}

static void *idle(void *arg)
{
	return arg;
}

/* Mode retry, once the @n threads run: see the top of the file. */
static int retry(int n, int secs)
{
	pthread_t extra;
	double took;
	int before;

	want = auto_slots(n);
	sleep(secs);
	before = prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0);
	atomic_store(&paused, 1);
	sleep(RETRY_AFTER_S);
	if (pthread_create(&extra, NULL, idle, NULL))
		return 1;
	pthread_join(extra, NULL);
	took = wait_for(slots_reached_after_op, now());
	printf("mode=retry threads=%d cpus=%ld slots=%d before=%d done=%d seconds=%.4f\n",
	       n, sysconf(_SC_NPROCESSORS_ONLN), want, before, took >= 0,
	       took >= 0 ? took : DEADLINE_S);
	return 0;
}

int main(int argc, char **argv)
{
	double start, took, steady, during = 0;
	pthread_t *t, setter;
	long before;
	int i, n, secs, ramp;

	if ((argc != 4 && argc != 5) ||
	    (strcmp(argv[1], "ramp") && strcmp(argv[1], "set") && strcmp(argv[1], "shrink") &&
	     strcmp(argv[1], "retry"))) {
		fprintf(stderr, "usage: %s ramp|set|shrink|retry THREADS SECONDS [TRIGGER]\n",
			argv[0]);
		return 2;
	}
	ramp = !strcmp(argv[1], "ramp");
	set_to = SET_SLOTS;
	if (!strcmp(argv[1], "shrink")) {
		/* Nothing runs yet: this replacement completes on any kernel. */
		if (prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, SET_SLOTS, 0, 0)) {
			perror("PR_FUTEX_HASH_SET_SLOTS");
			return 1;
		}
		set_to = SHRINK_SLOTS;
	}
	n = atoi(argv[2]);
	secs = atoi(argv[3]);
	words = aligned_alloc(64, n * sizeof(*words));
	t = calloc(n, sizeof(*t));
	if (!words || !t || n < 1)
		return 1;
	memset(words, 0, n * sizeof(*words));

	for (i = 0; i < n; i++) {
		if (pthread_create(&t[i], NULL, load, &words[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	if (!strcmp(argv[1], "retry")) {
		int rc = retry(n, secs);

		atomic_store(&stop, 1);
		for (i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		return rc;
	}
	if (ramp) {
		want = auto_slots(n);
		took = wait_for(slots_reached, now());
	} else {
		while (atomic_load(&running) < n)
			usleep(1000);
		before = total_ops(n);
		start = now();
		if (pthread_create(&setter, NULL, set_slots, NULL))
			return 1;
		took = wait_for(set_returned, start);
		during = (total_ops(n) - before) / (now() - start);
		want = set_to;
	}

	/* Steady state: the load's throughput after the replacement. */
	hist(argv[4], "cont");
	before = total_ops(n);
	steady = now();
	sleep(secs);
	steady = now() - steady;
	before = total_ops(n) - before;
	hist(argv[4], "pause");
	atomic_store(&stop, 1);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	if (!ramp)
		pthread_join(setter, NULL);

	printf("mode=%s threads=%d cpus=%ld slots=%d done=%d seconds=%.4f ops_per_s=%.0f",
	       argv[1], n, sysconf(_SC_NPROCESSORS_ONLN), want, took >= 0,
	       took >= 0 ? took : DEADLINE_S, before / steady);
	if (!ramp)
		printf(" syscall=%.4f ops_during=%.0f", set_call, during);
	printf("\n");
	return 0;
}
