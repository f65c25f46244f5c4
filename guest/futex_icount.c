// SPDX-License-Identifier: GPL-2.0
/*
 * futex_icount - time loops of futex calls, in a guest whose clock counts
 * instructions.
 *
 * Usage: futex_icount [N]		(N: 100000 unless given)
 *
 * Under QEMU's -icount shift=0,sleep=off on one vCPU the guest clock
 * advances one nanosecond per instruction, so the CLOCK_MONOTONIC time of a
 * loop of calls is the instructions it took, user loop and syscall entry
 * included, the same from boot to boot. Each measurement prints its raw
 * totals REPS times, "NAME calls=C ns=T": C the calls (rounds, pairs)
 * timed, T the nanoseconds the loop took; the host takes the least and
 * divides. An untimed run of C/10 precedes them, so that page faults and
 * first touches fall outside the window. A mismatched wait expects 1 of a
 * word holding 0: EAGAIN at once. Private words lie in static memory,
 * shared ones in a MAP_SHARED anonymous page. C = N unless said:
 *
 * getppid		getppid(), the control: a syscall that touches no futex
 * wake-private		FUTEX_WAKE_PRIVATE nr 1, nobody waiting (returns 0)
 * wake-shared		FUTEX_WAKE of the shared word, nobody waiting (0)
 * wait-private		FUTEX_WAIT_PRIVATE, mismatched
 * wait-shared		FUTEX_WAIT of the shared word, mismatched
 * wait-bitset		FUTEX_WAIT_BITSET_PRIVATE, bitset MATCH_ANY, mismatched
 * futex2-wait		sys_futex_wait, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, mismatched
 * wait-requeue-pi	FUTEX_WAIT_REQUEUE_PI_PRIVATE to a second word, mismatched
 * waitv-1		sys_futex_waitv of one private word, mismatched
 * waitv-8		sys_futex_waitv of eight private words, the last mismatched
 * cmp-requeue-private	FUTEX_CMP_REQUEUE_PRIVATE A to B, 1 and 1, nobody waiting (0)
 * wake-op-private	FUTEX_WAKE_OP_PRIVATE of A and B, B's condition false (0)
 * lock-pi		FUTEX_LOCK_PI_PRIVATE of a free word + FUTEX_UNLOCK_PI_PRIVATE; C pairs
 * trylock-pi		the same with FUTEX_TRYLOCK_PI_PRIVATE; C pairs
 * trylock-pi-contended	FUTEX_TRYLOCK_PI_PRIVATE of a word a live thread owns (EAGAIN)
 * numa-wake		sys_futex_wake of a FUTEX2_NUMA private word, nobody waiting (0)
 * numa-wait		sys_futex_wait of that word, mismatched
 * wake1-private	FUTEX_WAKE_PRIVATE nr 1 waking one of C queued waiters (1);
 *			C = min(N/100, 1000)
 * wake1-shared		the same with FUTEX_WAKE, on the shared page
 * cmp-requeue-move	FUTEX_CMP_REQUEUE_PRIVATE of 8 queued waiters, A to B or
 *			back (8); C = N/10
 * pingpong		rounds of FUTEX_WAKE_PRIVATE, FUTEX_WAIT_PRIVATE between two
 *			threads, each blocking once a round; C = N/10
 * lock-pi-contended	rounds of FUTEX_UNLOCK_PI_PRIVATE handing a PI lock to a
 *			blocked thread and FUTEX_LOCK_PI_PRIVATE blocking until
 *			it comes back; C = N/10
 * uring-futex		IORING_OP_FUTEX_WAIT, mismatched, one io_uring_enter each;
 *			"skip uring-futex: why" where io_uring is off
 *
 * A helper thread stays blocked in read() for the whole run, so the
 * process always has two threads: since Linux 6.17 its private futexes
 * then hash in its private hash, which is what is measured. It waits
 * outside the futex code, as no waiter may be queued where a measurement
 * does not queue its own: a wake that finds a queued futex_q in its
 * bucket takes hb->lock and walks the chain, and which bucket a word
 * falls into depends on its address. For the same reason the program
 * runs with address space randomisation off (it re-executes itself under
 * ADDR_NO_RANDOMIZE), so that every boot lays out its words alike. The
 * threads that block for a measurement run SCHED_FIFO at one priority: a
 * thread woken by another does not preempt it, so on one CPU they take
 * turns exactly as the measurement says, in every boot. The NUMA
 * word's node starts as FUTEX_NO_NODE; the warm-up's first call stores
 * the caller's node in it, so the timed calls find a node, which hashes
 * them in that node's global hash, not the private one.
 *
 * Errors: one line "error NAME: what: strerror", exit 1, at the first.
 * Exits 0 when every measurement ran.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "futex2.h"
#include "uring.h"

#define REPS			5
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define FUTEX_NO_NODE		(~0U)
#define FUTEX2_U32_PRIVATE	(FUTEX_32 | FUTEX2_PRIVATE)
/*
 * The futex2 mask: all 32 bits, for the kernel refuses (EINVAL) a mask or
 * value wider than the futex.
 */
#define MASK32			0xffffffffUL
#define STACK_SIZE		(64 << 10)
#define MOVERS			8
#define NAP_TRIES		10000

/* Private words, each on a cache line of its own. */
enum {
	W_PRIV, W_PRIV2, W_PI, W_OWNED, W_PARK, W_NUMA, W_WAKE1, W_MOVE_A, W_MOVE_B,
	W_TURN, W_LOCK, W_STOP, W_V8, W_NR = W_V8 + 8
};
static _Alignas(64) uint32_t words[W_NR * 16];
#define WORD(i)			(&words[(i) * 16])

/* The measurement under way, for error lines. */
static const char *cur = "setup";

static void fail(const char *what, int err)
{
	printf("error %s: %s: %s\n", cur, what, strerror(err));
	exit(1);
}

static long futex(uint32_t *uaddr, int op, uint32_t val, unsigned long val2,
		  uint32_t *uaddr2, uint32_t val3)
{
	long ret = syscall(SYS_futex, uaddr, op, val, val2, uaddr2, val3);

	return ret == -1 ? -errno : ret;
}

static long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#define load(w)			__atomic_load_n((w), __ATOMIC_ACQUIRE)
#define store(w, val)		__atomic_store_n((w), (val), __ATOMIC_RELEASE)

/*
 * Let the work that earlier threads left behind finish before a timed loop
 * starts: the RCU callbacks and deferred frees of threads that exited, the
 * wake-ups of the ones just created. Under -icount with sleep=off an idle
 * guest skips ahead to its next timer at once, so this costs no host time.
 * Each repetition starts 0.7 ms later against the timer tick than the one
 * before (the tick is 4 ms at HZ=250), so that the repetitions do not all
 * catch the same number of ticks and the least of them catches fewest.
 */
static int repetition;

static void settle(void)
{
	usleep(100000 + 700 * repetition);
}

/* One more millisecond of waiting for other threads to get somewhere. */
static void nap(long tries)
{
	if (tries >= NAP_TRIES)
		fail("threads never got where they had to", ETIMEDOUT);
	usleep(1000);
}

/*
 * Wait until the kernel has @n waiters queued on @w. It counts them for us:
 * FUTEX_CMP_REQUEUE of the word onto itself, waking none and requeueing
 * all, returns how many it found and leaves them where they were.
 */
static void wait_queued(uint32_t *w, int priv, long n)
{
	long got, tries = 0;

	while ((got = futex(w, FUTEX_CMP_REQUEUE | priv, 0, INT_MAX, w, load(w))) != n) {
		if (got < 0)
			fail("FUTEX_CMP_REQUEUE counting waiters", -got);
		nap(tries++);
	}
}

static void spawn(pthread_t *t, long n, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	long i;
	int err;

	/* Small stacks: up to a thousand waiters at once in a small guest. */
	err = pthread_attr_init(&attr);
	if (!err)
		err = pthread_attr_setstacksize(&attr, STACK_SIZE);
	if (err)
		fail("pthread_attr", err);
	for (i = 0; i < n; i++) {
		err = pthread_create(&t[i], &attr, fn, arg);
		if (err)
			fail("pthread_create", err);
	}
	pthread_attr_destroy(&attr);
}

static void reap(const pthread_t *t, long n)
{
	long i;

	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

/* A blocking wait on @w while it holds @val; a wake, EAGAIN or EINTR are all fine. */
static void wait_while(uint32_t *w, uint32_t val, int priv)
{
	long ret;

	while (load(w) == val) {
		ret = futex(w, FUTEX_WAIT | priv, val, 0, NULL, 0);
		if (ret && ret != -EAGAIN && ret != -EINTR)
			fail("FUTEX_WAIT", -ret);
	}
}

/* A FUTEX_WAKE, FUTEX_LOCK_PI or FUTEX_UNLOCK_PI that must not fail. */
static void must(uint32_t *w, int op, int val)
{
	long ret = futex(w, op, val, 0, NULL, 0);

	if (ret < 0)
		fail((op & FUTEX_CMD_MASK) == FUTEX_WAKE ? "FUTEX_WAKE" : "FUTEX_(UN)LOCK_PI",
		     -ret);
}

/* One raw syscall with all six arguments, and the result it must return. */
struct call {
	long nr;
	long a[6];
	long expect;
};

#define CALL(nr, expect, a, b, c, d, e, f) \
	{ (nr), { (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f) }, (expect) }

struct bench {
	const char *name;
	long div, cap;		/* calls = N / div, at most cap where cap > 0 */
	long long (*run)(struct bench *b, long calls);
	int ncalls;		/* run_calls: one call an iteration, or a pair */
	struct call c[2];	/* run_queued: c[0] only */
	long waiters;		/* run_queued: that many waiters, or one a call */
};

#define ONE(name, c0)		{ name, 1, 0, run_calls, 1, { c0 }, 0 }
#define PAIR(name, c0, c1)	{ name, 1, 0, run_calls, 2, { c0, c1 }, 0 }
#define QUEUED(name, div, cap, waiters, c0) { name, div, cap, run_queued, 1, { c0 }, waiters }
#define RUN(name, div, fn)	{ name, div, 0, fn, 0, { }, 0 }

/* Fail, after a timed loop, when @bad of its @calls did not return what they must. */
static void check(long bad, long calls, long last, long expect)
{
	char what[128];

	if (!bad)
		return;
	snprintf(what, sizeof(what), "%ld of %ld calls returned other than %ld, last %ld",
		 bad, calls, expect, last);
	fail(what, last < 0 ? -last : 0);
}

/*
 * The loop every syscall measurement shares, so that the user-side cost is
 * the same for all and the getppid control subtracts it: the syscall(),
 * errno to a result, and one compare per call.
 */
static long long run_calls(struct bench *b, long calls)
{
	long i, ret, bad = 0, last = 0, expect = 0;
	long long t0 = now();
	const struct call *c;
	int k;

	for (i = 0; i < calls; i++) {
		for (k = 0; k < b->ncalls; k++) {
			c = &b->c[k];
			ret = syscall(c->nr, c->a[0], c->a[1], c->a[2], c->a[3], c->a[4], c->a[5]);
			if (ret == -1)
				ret = -errno;
			if (ret != c->expect) {
				bad++;
				last = ret;
				expect = c->expect;
			}
		}
	}
	t0 = now() - t0;
	check(bad, calls * b->ncalls, last, expect);
	return t0;
}

static void set_sched(int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	int err = pthread_setschedparam(pthread_self(), policy, &sp);

	if (err)
		fail(policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_OTHER", err);
}

/* A waiter of run_queued: on c[0]'s first word while it holds 0. */
static void *waiter(void *arg)
{
	const struct call *c = &((struct bench *)arg)->c[0];

	wait_while((uint32_t *)c->a[0], 0, c->a[1] & FUTEX_PRIVATE_FLAG);
	return NULL;
}

/*
 * Queue the waiters on the first word of c[0] (a FUTEX_WAKE or a
 * FUTEX_CMP_REQUEUE), then time @calls of it, swapping its two words each
 * call: a wake names one word twice, a requeue moves its waiters from A to
 * B and back. Once all are queued both words become 1, which a queued
 * waiter does not look at, and a woken one finds and exits on; val3 of a
 * requeue matches it. The waiters run SCHED_FIFO, the measuring thread at
 * a priority above theirs while it times: on one CPU no waiter it wakes
 * runs before the loop ends, and each joins the end of its priority's
 * run list, the same work for every wake (a woken SCHED_OTHER task would
 * be sorted into a tree of the others, at a cost that varies from boot to
 * boot).
 */
static long long run_queued(struct bench *b, long calls)
{
	const struct call *c = &b->c[0];
	uint32_t *w[2] = { (uint32_t *)c->a[0], (uint32_t *)c->a[4] };
	long i, ret, bad = 0, last = 0, nw = b->waiters ? b->waiters : calls;
	int priv = c->a[1] & FUTEX_PRIVATE_FLAG;
	pthread_t *t = calloc(nw, sizeof(*t));
	long long t0;

	if (!t)
		fail("calloc", ENOMEM);
	store(w[0], 0);
	store(w[1], 0);
	/* The waiters inherit it, and none preempts this thread as it starts. */
	set_sched(SCHED_FIFO, 1);
	spawn(t, nw, waiter, b);
	wait_queued(w[0], priv, nw);
	store(w[0], 1);
	store(w[1], 1);
	set_sched(SCHED_FIFO, 2);
	settle();
	t0 = now();
	for (i = 0; i < calls; i++) {
		ret = futex(w[i & 1], c->a[1], c->a[2], c->a[3], w[!(i & 1)], c->a[5]);
		if (ret != c->expect) {
			bad++;
			last = ret;
		}
	}
	t0 = now() - t0;
	set_sched(SCHED_OTHER, 0);
	/* Before the joins: a waiter left queued would never be joined. */
	check(bad, calls, last, c->expect);
	must(w[0], FUTEX_WAKE | priv, INT_MAX);
	must(w[1], FUTEX_WAKE | priv, INT_MAX);
	reap(t, nw);
	free(t);
	return t0;
}

/*
 * The ping-pong's turn word: 0 the main thread's turn, 1 the partner's.
 * Each waits while the turn is not its own and only then hands it over, so
 * a wake that finds nobody waiting loses nothing: the other sees the turn
 * before it would wait.
 */
static void *pong(void *arg)
{
	uint32_t *turn = WORD(W_TURN);
	long i, rounds = (long)arg;

	for (i = 0; i < rounds; i++) {
		wait_while(turn, 0, FUTEX_PRIVATE_FLAG);
		store(turn, 0);
		must(turn, FUTEX_WAKE_PRIVATE, 1);
	}
	return NULL;
}

static long long run_pingpong(struct bench *b, long calls)
{
	uint32_t *turn = WORD(W_TURN);
	long long t0;
	pthread_t t;
	long i;

	(void)b;
	store(turn, 0);
	/* The partner inherits it: neither preempts the other on a wake. */
	set_sched(SCHED_FIFO, 1);
	spawn(&t, 1, pong, (void *)calls);
	/* Its first wait: from there on every round is the same. */
	wait_queued(turn, FUTEX_PRIVATE_FLAG, 1);
	settle();
	t0 = now();
	for (i = 0; i < calls; i++) {
		store(turn, 1);
		must(turn, FUTEX_WAKE_PRIVATE, 1);
		wait_while(turn, 1, FUTEX_PRIVATE_FLAG);
	}
	t0 = now() - t0;
	/* Its last round handed the turn back, and it has returned or is about to. */
	reap(&t, 1);
	set_sched(SCHED_OTHER, 0);
	return t0;
}

/*
 * The partner of lock-pi-contended: lock, note the stop flag, unlock, until
 * the flag was set. The main thread sets it only while it holds the lock,
 * so the partner's next lock after the main thread's last unlock sees it,
 * and nothing locks the word after that: the partner's lock cannot block
 * for ever, and it exits.
 */
static void *pi_partner(void *arg)
{
	uint32_t *l = WORD(W_LOCK);
	uint32_t stop;

	(void)arg;
	do {
		must(l, FUTEX_LOCK_PI_PRIVATE, 0);
		stop = load(WORD(W_STOP));
		must(l, FUTEX_UNLOCK_PI_PRIVATE, 0);
	} while (!stop);
	return NULL;
}

/*
 * The main thread takes the lock before the partner exists, so the partner
 * cannot run first and loop alone: its first lock blocks. Each round the
 * main thread's unlock hands the lock to the blocked partner, and its lock
 * blocks until the partner unlocks, handing it back. Both run SCHED_FIFO
 * at one priority, so on one CPU the woken partner runs only once the
 * main thread blocks, and the partner's next lock blocks before the main
 * thread runs again: they alternate, round after round.
 */
static long long run_pi_contended(struct bench *b, long calls)
{
	uint32_t *l = WORD(W_LOCK);
	long i, tries = 0;
	long long t0;
	pthread_t t;

	(void)b;
	store(WORD(W_STOP), 0);
	store(l, 0);
	must(l, FUTEX_LOCK_PI_PRIVATE, 0);
	set_sched(SCHED_FIFO, 1);
	spawn(&t, 1, pi_partner, NULL);
	/* FUTEX_WAITERS: the partner is queued (requeue cannot count a PI waiter). */
	while (!(load(l) & FUTEX_WAITERS))
		nap(tries++);
	settle();
	t0 = now();
	for (i = 0; i < calls; i++) {
		must(l, FUTEX_UNLOCK_PI_PRIVATE, 0);
		must(l, FUTEX_LOCK_PI_PRIVATE, 0);
	}
	t0 = now() - t0;
	store(WORD(W_STOP), 1);
	must(l, FUTEX_UNLOCK_PI_PRIVATE, 0);
	reap(&t, 1);
	set_sched(SCHED_OTHER, 0);
	return t0;
}

/* An io_uring of one entry, its SQE filled once for all. */
static struct uring ring;

/* 0, or the errno of an io_uring_setup() that failed. */
static int uring_setup(void)
{
	int err = uring_init(&ring, 1);
	struct io_uring_sqe *sqe = ring.sqes;

	if (err && ring.fd >= 0)
		fail("mmap of the io_uring", err);
	if (err)
		return err;
	/* fd: futex2 flags; addr2: the value, mismatched; addr3: the mask. */
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = URING_OP_FUTEX_WAIT;
	sqe->fd = FUTEX2_U32_PRIVATE;
	sqe->addr = (uintptr_t)WORD(W_PRIV);
	sqe->addr2 = 1;
	sqe->addr3 = MASK32;
	return 0;
}

/*
 * Submit the SQE and wait for its completion in one io_uring_enter; the
 * mismatched wait completes inline, so its CQE is there when that returns.
 */
static long long run_uring(struct bench *b, long calls)
{
	long i, ret, bad = 0, last = 0;
	unsigned int head = *ring.cq_head;
	long long t0;

	(void)b;
	t0 = now();
	for (i = 0; i < calls; i++) {
		store(ring.sq_tail, *ring.sq_tail + 1);
		ret = syscall(SYS_io_uring_enter, ring.fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
		if (ret == 1) {
			ret = ring.cqes[head & ring.cq_mask].res;
			store(ring.cq_head, ++head);
		} else if (ret == -1) {
			ret = -errno;
		}
		if (ret != -EAGAIN) {
			bad++;
			last = ret;
		}
	}
	t0 = now() - t0;
	check(bad, calls, last, -EAGAIN);
	return t0;
}

static void measure(struct bench *b, long n)
{
	long calls = n / b->div;
	int rep;

	if (b->cap && calls > b->cap)
		calls = b->cap;
	if (calls < 1)
		calls = 1;
	cur = b->name;
	b->run(b, calls / 10 ? calls / 10 : 1);
	for (rep = 0; rep < REPS; rep++) {
		repetition = rep;
		settle();
		printf("%s calls=%ld ns=%lld\n", b->name, calls, b->run(b, calls));
	}
}

/* The helper's pipe: it reads until the main thread closes the write end. */
static int park[2];

/*
 * The helper that keeps the process two threads from start to end: it
 * owns trylock-pi-contended's PI word (a real FUTEX_LOCK_PI, so the word
 * holds a live TID), says so, and blocks in read() until the end.
 */
static void *parked(void *arg)
{
	char c = 0;

	(void)arg;
	must(WORD(W_OWNED), FUTEX_LOCK_PI_PRIVATE, 0);
	store(WORD(W_PARK), 1);
	while (read(park[0], &c, 1) > 0)
		;
	must(WORD(W_OWNED), FUTEX_UNLOCK_PI_PRIVATE, 0);
	return NULL;
}

/*
 * Run again under ADDR_NO_RANDOMIZE unless already: the words' addresses,
 * and with them their buckets, are then the same in every boot.
 */
static void no_randomize(char **argv)
{
	int pers = personality(0xffffffff);

	if (pers == -1 || (pers & ADDR_NO_RANDOMIZE))
		return;
	if (personality(pers | ADDR_NO_RANDOMIZE) == -1)
		fail("personality", errno);
	execv("/proc/self/exe", argv);
	fail("execv /proc/self/exe", errno);
}

/* Every measurement, in order, then the io_uring one where io_uring is there. */
static void measure_all(long n, uint32_t *shared)
{
	uint32_t *priv = WORD(W_PRIV), *priv2 = WORD(W_PRIV2), *pw = WORD(W_PI);
	uint32_t *owned = WORD(W_OWNED), *numa = WORD(W_NUMA), *wake1 = WORD(W_WAKE1);
	uint32_t *move_a = WORD(W_MOVE_A), *move_b = WORD(W_MOVE_B);
	static struct futex_waitv wv1[1], wv8[8];
	struct bench benches[] = {
		ONE("getppid", CALL(SYS_getppid, getppid(), 0, 0, 0, 0, 0, 0)),
		ONE("wake-private", CALL(SYS_futex, 0, priv, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0)),
		ONE("wake-shared", CALL(SYS_futex, 0, shared, FUTEX_WAKE, 1, 0, 0, 0)),
		ONE("wait-private", CALL(SYS_futex, -EAGAIN, priv, FUTEX_WAIT_PRIVATE, 1, 0, 0, 0)),
		ONE("wait-shared", CALL(SYS_futex, -EAGAIN, shared, FUTEX_WAIT, 1, 0, 0, 0)),
		ONE("wait-bitset", CALL(SYS_futex, -EAGAIN, priv, FUTEX_WAIT_BITSET_PRIVATE, 1,
					0, 0, FUTEX_BITSET_MATCH_ANY)),
		ONE("futex2-wait", CALL(SYS_futex_wait, -EAGAIN, priv, 1, MASK32,
					FUTEX2_U32_PRIVATE, 0, CLOCK_MONOTONIC)),
		ONE("wait-requeue-pi", CALL(SYS_futex, -EAGAIN, priv,
					    FUTEX_WAIT_REQUEUE_PI_PRIVATE, 1, 0, priv2, 0)),
		ONE("waitv-1", CALL(SYS_futex_waitv, -EAGAIN, wv1, 1, 0, 0, CLOCK_MONOTONIC, 0)),
		ONE("waitv-8", CALL(SYS_futex_waitv, -EAGAIN, wv8, 8, 0, 0, CLOCK_MONOTONIC, 0)),
		ONE("cmp-requeue-private", CALL(SYS_futex, 0, priv, FUTEX_CMP_REQUEUE_PRIVATE,
						1, 1, priv2, 0)),
		/* B stays 0, so the FUTEX_OP_CMP_EQ 1 never holds: B is not woken. */
		ONE("wake-op-private", CALL(SYS_futex, 0, priv, FUTEX_WAKE_OP_PRIVATE, 1, 1, priv2,
					    FUTEX_OP(FUTEX_OP_SET, 0, FUTEX_OP_CMP_EQ, 1))),
		PAIR("lock-pi", CALL(SYS_futex, 0, pw, FUTEX_LOCK_PI_PRIVATE, 0, 0, 0, 0),
		     CALL(SYS_futex, 0, pw, FUTEX_UNLOCK_PI_PRIVATE, 0, 0, 0, 0)),
		PAIR("trylock-pi", CALL(SYS_futex, 0, pw, FUTEX_TRYLOCK_PI_PRIVATE, 0, 0, 0, 0),
		     CALL(SYS_futex, 0, pw, FUTEX_UNLOCK_PI_PRIVATE, 0, 0, 0, 0)),
		ONE("trylock-pi-contended", CALL(SYS_futex, -EWOULDBLOCK, owned,
						 FUTEX_TRYLOCK_PI_PRIVATE, 0, 0, 0, 0)),
		ONE("numa-wake", CALL(SYS_futex_wake, 0, numa, MASK32, 1,
				      FUTEX2_U32_PRIVATE | FUTEX2_NUMA, 0, 0)),
		ONE("numa-wait", CALL(SYS_futex_wait, -EAGAIN, numa, 1, MASK32,
				      FUTEX2_U32_PRIVATE | FUTEX2_NUMA, 0, CLOCK_MONOTONIC)),
		QUEUED("wake1-private", 100, 1000, 0,
		       CALL(SYS_futex, 1, wake1, FUTEX_WAKE_PRIVATE, 1, 0, wake1, 0)),
		QUEUED("wake1-shared", 100, 1000, 0,
		       CALL(SYS_futex, 1, shared + 16, FUTEX_WAKE, 1, 0, shared + 16, 0)),
		QUEUED("cmp-requeue-move", 10, 0, MOVERS,
		       CALL(SYS_futex, MOVERS, move_a, FUTEX_CMP_REQUEUE_PRIVATE, 0, MOVERS,
			    move_b, 1)),
		RUN("pingpong", 10, run_pingpong),
		RUN("lock-pi-contended", 10, run_pi_contended),
	};
	struct bench uring = RUN("uring-futex", 1, run_uring);
	size_t i;
	int err;

	/* A FUTEX2_NUMA u32 futex is two: the value, then its node. */
	numa[1] = FUTEX_NO_NODE;
	wv1[0] = (struct futex_waitv){ 1, (uintptr_t)priv, FUTEX2_U32_PRIVATE, 0 };
	/*
	 * All eight words hold 0; the last entry expects 1. The kernel queues
	 * the entries in order and reads each value under its bucket lock, so
	 * the first seven are queued, then unqueued when the eighth mismatches:
	 * the whole setup and teardown of an eight-word wait, without sleeping.
	 */
	for (i = 0; i < 8; i++)
		wv8[i] = (struct futex_waitv){ i == 7, (uintptr_t)WORD(W_V8 + i),
					       FUTEX2_U32_PRIVATE, 0 };

	for (i = 0; i < ARRAY_SIZE(benches); i++)
		measure(&benches[i], n);

	cur = uring.name;
	err = uring_setup();
	if (err == ENOSYS || err == EPERM)
		printf("skip uring-futex: io_uring_setup: %s\n", strerror(err));
	else if (err)
		fail("io_uring_setup", err);
	else
		measure(&uring, n);
}

int main(int argc, char **argv)
{
	long n = 100000;
	uint32_t *shared;
	pthread_t helper;
	char *end = "";
	long tries;

	if (argc == 2)
		n = strtol(argv[1], &end, 10);
	if (argc > 2 || n <= 0 || *end) {
		fprintf(stderr, "usage: %s [N]\n", argv[0]);
		return 2;
	}
	no_randomize(argv);
	/* A line at a time: a guest that dies still leaves what it printed. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	shared = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	if (shared == MAP_FAILED)
		fail("mmap", errno);

	if (pipe(park))
		fail("pipe", errno);
	spawn(&helper, 1, parked, NULL);
	for (tries = 0; !load(WORD(W_PARK)); tries++)
		nap(tries);

	measure_all(n, shared);

	cur = "teardown";
	close(park[1]);
	reap(&helper, 1);
	return 0;
}
