// SPDX-License-Identifier: GPL-2.0
/*
 * futex_aborted - abort waits in every way, then check that wakes with
 * nobody waiting skip the hash bucket lock and a real waiter is still woken.
 *
 * Usage: futex_aborted private|shared N EVENT
 *
 * EVENT names a kretprobe event on futex_hash() that records the
 * hb->waiters of the bucket it returns, filtered to this program and a
 * non-zero count: exactly the futex operations whose futex_wake() would
 * take hb->lock. The program counts its events in the trace buffer around
 * its own wakes. Phases, each on the same futex words:
 *
 *  1. N rounds of waits that end without blocking: a value mismatch, a
 *     FUTEX_WAITV whose second word mismatches (the first was queued), an
 *     expired timeout, a FUTEX_CMP_REQUEUE with a stale value, PI locks
 *     refused with EDEADLK and ESRCH, and, shared only, a requeue-PI wait
 *     whose target aliases its own futex (EINVAL).
 *  2. N wakes on each word with nobody waiting: every one must return 0
 *     and see hb->waiters == 0, so no event (busy=0).
 *  3. One thread waits for real: a wake must find and wake it, having seen
 *     its count (waiter_busy >= 1).
 *
 * Prints one line: KIND rounds=N aborted=A wakes=W busy=B woken=1
 * waiter_busy=C busy_missed=M waiter_missed=L, each counted as it happened
 * (A the waits that ended without blocking, W the wakes that returned 0, M
 * and L the probe's misses in the two windows, from kprobe_profile: calls
 * of futex_hash() that returned without an event, so B and C may be short
 * by that many);
 * exits 1 when a call does not return what it must.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
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
#include "futex2.h"

#define TRACEFS "/sys/kernel/tracing"

static const char *event;
static int private_flag;
/* The futex words: a plain one, a PI one, and an alias of the plain one. */
static uint32_t *word, *word2, *pi, *alias;

static void fail(const char *what)
{
	fprintf(stderr, "futex_aborted: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long futex(uint32_t *uaddr, int op, uint32_t val, void *timeout,
		  uint32_t *uaddr2, uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op | private_flag, val, timeout,
		       uaddr2, val3);
}

/* expect(ret, err, what): the call failed with @err, or fail. */
static void expect(long ret, int err, const char *what)
{
	if (ret != -1 || errno != err) {
		if (ret != -1)
			errno = 0;
		fail(what);
	}
}

static void tracefs_write(const char *file, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		fail(path);
}

/* The probe's misses so far, from kprobe_profile: "NAME HITS MISSES". */
static long probe_missed(void)
{
	char name[160];
	unsigned long hits, missed;
	FILE *f = fopen(TRACEFS "/kprobe_profile", "r");

	if (!f)
		fail("kprobe_profile");
	while (fscanf(f, "%159s %lu %lu", name, &hits, &missed) == 3) {
		if (!strcmp(name, event)) {
			fclose(f);
			return missed;
		}
	}
	fclose(f);
	errno = ENOENT;
	fail("kprobe_profile has no line for the event");
	return -1;
}

/* Start a window: an empty trace buffer and the event enabled. */
static void probe_start(void)
{
	char file[192];

	tracefs_write("trace", "");
	snprintf(file, sizeof(file), "events/kprobes/%s/enable", event);
	tracefs_write(file, "1\n");
}

/* End a window: how many events the filter let into the buffer. */
static long probe_stop(void)
{
	char file[192], line[512], tag[160];
	long hits = 0;
	FILE *f;

	snprintf(file, sizeof(file), "events/kprobes/%s/enable", event);
	tracefs_write(file, "0\n");
	f = fopen(TRACEFS "/trace", "r");
	if (!f)
		fail("trace");
	snprintf(tag, sizeof(tag), " %s:", event);
	while (fgets(line, sizeof(line), f))
		hits += line[0] != '#' && strstr(line, tag);
	fclose(f);
	return hits;
}

static void map_words(int shared)
{
	int flags = MAP_ANONYMOUS | MAP_PRIVATE;
	char *page, *alias_page;
	int fd;

	if (!shared) {
		page = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE, flags, -1, 0);
		if (page == MAP_FAILED)
			fail("mmap");
		word = (uint32_t *)page;
		return;
	}
	/* Two mappings of one page: a second address for the same futex. */
	fd = memfd_create("futex_aborted", 0);
	if (fd < 0 || ftruncate(fd, getpagesize()))
		fail("memfd");
	page = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	alias_page = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED || alias_page == MAP_FAILED)
		fail("mmap");
	word = (uint32_t *)page;
	alias = (uint32_t *)alias_page;
}

/* One round of waits that all end before or instead of blocking. */
static int abort_round(void)
{
	struct timespec zero = { 0, 0 };
	struct futex_waitv wv[2];
	int n = 0, i;

	*word = 0;
	*word2 = 1;
	expect(futex(word, FUTEX_WAIT, 1, NULL, NULL, 0), EAGAIN, "mismatched wait");
	n++;

	for (i = 0; i < 2; i++) {
		wv[i].uaddr = (uintptr_t)(i ? word2 : word);
		wv[i].val = 0;
		wv[i].flags = FUTEX_32 | private_flag;
		wv[i].__reserved = 0;
	}
	expect(syscall(SYS_futex_waitv, wv, 2, 0, NULL, 0), EAGAIN, "futex_waitv");
	n++;

	expect(futex(word, FUTEX_WAIT, 0, &zero, NULL, 0), ETIMEDOUT, "expired wait");
	n++;

	expect(futex(word, FUTEX_CMP_REQUEUE, 1, (void *)1, word2, 1), EAGAIN,
	       "stale requeue");
	n++;

	*pi = gettid();
	expect(futex(pi, FUTEX_LOCK_PI, 0, NULL, NULL, 0), EDEADLK, "own PI lock");
	n++;

	/* A TID that does not exist: pid_max is below 2^22. */
	*pi = 0x3ffffff;
	expect(futex(pi, FUTEX_LOCK_PI, 0, NULL, NULL, 0), ESRCH, "orphan PI lock");
	n++;
	*pi = 0;

	if (alias) {
		expect(futex(word, FUTEX_WAIT_REQUEUE_PI, 0, NULL, alias, 0),
		       EINVAL, "requeue-PI wait on an alias of itself");
		n++;
	}
	return n;
}

static void *waiter(void *arg)
{
	(void)arg;
	if (futex(word, FUTEX_WAIT, 0, NULL, NULL, 0))
		fail("real wait");
	return NULL;
}

int main(int argc, char **argv)
{
	long i, n, busy, waiter_busy, woken = 0, aborted = 0, wakes = 0;
	long missed, busy_missed, waiter_missed;
	uint32_t *words[3];
	pthread_t thread;
	int w;

	if (argc != 4 || (strcmp(argv[1], "private") && strcmp(argv[1], "shared"))) {
		fprintf(stderr, "usage: %s private|shared N EVENT\n", argv[0]);
		return 2;
	}
	n = atol(argv[2]);
	event = argv[3];
	if (!strcmp(argv[1], "private")) {
		private_flag = FUTEX_PRIVATE_FLAG;
		/* A private hash of its own, as a threaded process gets. */
		if (prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, 16, 0, 0))
			fail("PR_FUTEX_HASH_SET_SLOTS");
	}
	map_words(!private_flag);
	word2 = word + 16;
	pi = word + 32;
	words[0] = word;
	words[1] = word2;
	words[2] = pi;

	for (i = 0; i < n; i++)
		aborted += abort_round();

	*word = 0;
	missed = probe_missed();
	probe_start();
	for (i = 0; i < n; i++) {
		for (w = 0; w < 3; w++) {
			if (futex(words[w], FUTEX_WAKE, 1, NULL, NULL, 0))
				fail("wake with nobody waiting");
			wakes++;
		}
	}
	busy = probe_stop();
	busy_missed = probe_missed() - missed;

	if (pthread_create(&thread, NULL, waiter, NULL))
		fail("pthread_create");
	probe_start();
	while (!woken) {
		woken = futex(word, FUTEX_WAKE, 1, NULL, NULL, 0);
		if (woken < 0)
			fail("wake");
		if (!woken)
			usleep(1000);
	}
	waiter_busy = probe_stop();
	waiter_missed = probe_missed() - missed - busy_missed;
	pthread_join(thread, NULL);

	printf("%s rounds=%ld aborted=%ld wakes=%ld busy=%ld woken=%ld waiter_busy=%ld "
	       "busy_missed=%ld waiter_missed=%ld\n",
	       argv[1], n, aborted, wakes, busy, woken, waiter_busy, busy_missed, waiter_missed);
	return 0;
}
