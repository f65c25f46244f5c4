// SPDX-License-Identifier: GPL-2.0
/*
 * futex_replace - every kind of private futex operation at once while the
 * private hash is replaced without pause.
 *
 * Usage: futex_replace [REPLACEMENTS]
 *
 * Lanes of threads run until a replacer thread has issued REPLACEMENTS
 * (default 200) PR_FUTEX_HASH_SET_SLOTS calls, cycling through four sizes,
 * and signalled one lane thread after each:
 *  - five ping-pong lanes, two threads that hand a counter back and forth,
 *    each waiting for its own word to change: FUTEX_WAIT and FUTEX_WAKE;
 *    FUTEX_WAKE_OP; FUTEX_CMP_REQUEUE onto a second word, then a wake of
 *    it; futex_waitv(); futex_wait() and futex_wake();
 *  - an io_uring ping-pong lane: IORING_OP_FUTEX_WAIT and
 *    IORING_OP_FUTEX_WAITV in turn, woken by IORING_OP_FUTEX_WAKE one way
 *    and by futex_wake() the other;
 *  - a PI lane, three threads taking one PI futex in turn, each checking
 *    that it is alone inside;
 *  - a requeue-PI lane, two threads in FUTEX_WAIT_REQUEUE_PI with a
 *    timeout of 5 us, and one that requeues them to a PI futex with
 *    FUTEX_CMP_REQUEUE_PI, holding it every other time;
 *  - a thread that forks children without pause, each of which runs a
 *    ping-pong lane, a futex_waitv lane, an io_uring lane and a PI lane of
 *    its own while it replaces its hash a few times and then switches to
 *    the global hash.
 * The counts decide, not a clock. Once the replacements are done every
 * thread is told to stop and must end on its own. A thread that sleeps in
 * a futex call although the kernel should have woken it is reported:
 *  - a ping-pong thread asleep in the wait for a value of its word that
 *    its partner has replaced, after the partner's wake had returned;
 *  - a PI waiter asleep in FUTEX_LOCK_PI when every other thread that
 *    takes the lock has ended.
 * Its partner, which waits for it, counts as stuck with it. A thread that
 * neither ends nor matches either description keeps the program running:
 * the caller's deadline ends it, with the evidence it gathers.
 *
 * Output: a line per thread found asleep ("lost: ...") or per PI waiter
 * that found another inside ("exclusion: ..."), then
 *   replacements=R set_slots_errors=E rounds=N pi=P rqpi=Q rqpi_timeouts=T
 *   forks=F children_failed=C signals=S lost=L exclusion=X errors=Y
 * and exit 1 where any of children_failed, lost, exclusion or errors is
 * not 0; or "skip: why" where the kernel has no private hash to replace.
 * A lost wakeup in a child shows as its exit status 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/io_uring.h>
#include "futex2.h"
#include "uring.h"

#define STOP		UINT32_MAX	/* a ping-pong word's last value */
#define RQPI_TIMEOUT_NS	5000
#define CHILD_SETS	4		/* a child's replacements before the global hash */

enum kind { WAKE, WAKE_OP, REQUEUE, WAITV, FUTEX2, URING, PI, RQPI, FORKER, NKINDS };
static const char * const kind_name[] = {
	"wake", "wake_op", "requeue", "waitv", "futex2", "uring", "pi", "rqpi", "fork",
};

/* Hash sizes the replacer cycles through. */
static const int sizes[] = { 16, 2, 256, 4 };

/*
 * One side of a ping-pong lane: @word is changed by the partner only, to
 * ever larger values; @waiting is the value this side last waited to see
 * replaced, @in_wait whether that wait has not returned yet, @woken the
 * last value the partner stored and then returned from waking.
 */
struct side {
	_Atomic uint32_t word, aux, waiting, in_wait, woken;
};

struct worker {
	pthread_t pt;
	struct run *run;
	enum kind kind;
	int lane, k;			/* lane index, side or rank in it */
	_Atomic int tid, done, pi_waiting, stuck;
	struct uring ring;		/* io_uring lanes: one request at a time */
};

struct lane {
	enum kind kind;
	struct side s[2];
	_Atomic uint32_t pi;		/* PI lanes: the lock; RQPI: the target */
	_Atomic uint32_t cond;		/* RQPI: the word waited on */
	_Atomic int owner;		/* PI lanes: who is inside */
	atomic_long events;		/* PI lanes: acquisitions and releases */
};

struct run {
	struct lane *lanes;
	struct worker *w;
	int nlanes, nworkers;
	atomic_int stop;
	atomic_long rounds, pi, rqpi, rqpi_timeouts, forks, children_failed;
	atomic_long exclusion, errors, signals;
};

static atomic_long sig_seen;

static long sys_futex(void *uaddr, int op, uint32_t val, void *t, void *uaddr2, uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op | FUTEX_PRIVATE_FLAG, val, t, uaddr2, val3);
}

static void note_error(struct run *run, const char *what)
{
	if (atomic_fetch_add(&run->errors, 1) < 8)
		fprintf(stdout, "error: %s: %s\n", what, strerror(errno));
}

/*
 * Submit @sqe on @u and wait for its completion, through signals: its
 * result, or -1 with errno set.
 */
static int uring_call(struct uring *u, const struct io_uring_sqe *sqe)
{
	unsigned int tail = *u->sq_tail, head = *u->cq_head;
	int res;

	u->sqes[tail & u->sq_mask] = *sqe;
	/* The kernel reads the entry after it sees the tail. */
	__atomic_store_n(u->sq_tail, tail + 1, __ATOMIC_RELEASE);
	/* It writes a completion before the tail that shows it. */
	while (__atomic_load_n(u->cq_tail, __ATOMIC_ACQUIRE) == head) {
		/* Submit the entry if the kernel has not taken it yet. */
		if (syscall(SYS_io_uring_enter, u->fd,
			    __atomic_load_n(u->sq_head, __ATOMIC_ACQUIRE) != tail + 1, 1,
			    IORING_ENTER_GETEVENTS, NULL, 0) < 0 && errno != EINTR)
			return -1;
	}
	res = u->cqes[head & u->cq_mask].res;
	__atomic_store_n(u->cq_head, head + 1, __ATOMIC_RELEASE);
	if (res < 0) {
		errno = -res;
		return -1;
	}
	return res;
}

/* IORING_OP_FUTEX_WAIT while @s->word holds @old, or _WAITV as pp_wait(). */
static int uring_wait(struct worker *w, struct side *s, const struct futex_waitv *wv,
		      uint32_t old)
{
	struct io_uring_sqe sqe = {
		.opcode = URING_OP_FUTEX_WAITV,
		.addr = (uintptr_t)wv,
		.len = 2,
	};

	if (old & 1)
		return uring_call(&w->ring, &sqe);
	sqe = (struct io_uring_sqe) {
		.opcode = URING_OP_FUTEX_WAIT,
		.fd = FUTEX_32 | FUTEX2_PRIVATE,
		.addr = (uintptr_t)&s->word,
		.addr2 = old,
		.addr3 = FUTEX_BITSET_MATCH_ANY,
	};
	return uring_call(&w->ring, &sqe);
}

/* IORING_OP_FUTEX_WAKE of one waiter of @s->word: how many it woke. */
static int uring_wake(struct worker *w, struct side *s)
{
	struct io_uring_sqe sqe = {
		.opcode = URING_OP_FUTEX_WAKE,
		.fd = FUTEX_32 | FUTEX2_PRIVATE,
		.addr = (uintptr_t)&s->word,
		.addr2 = 1,
		.addr3 = FUTEX_BITSET_MATCH_ANY,
	};

	return uring_call(&w->ring, &sqe);
}

/* Wait while @s->word holds @old, by the operation of @w's kind. */
static void pp_wait(struct worker *w, struct side *s, uint32_t old)
{
	struct futex_waitv wv[2] = {
		{ .uaddr = (uintptr_t)&s->word, .val = old, .flags = FUTEX_32 | FUTEX2_PRIVATE },
		{ .uaddr = (uintptr_t)&s->aux, .val = 0, .flags = FUTEX_32 | FUTEX2_PRIVATE },
	};
	long ret;

	atomic_store(&s->waiting, old);
	atomic_store(&s->in_wait, 1);
	while (atomic_load(&s->word) == old) {
		if (w->kind == WAITV)
			ret = syscall(SYS_futex_waitv, wv, 2, 0, NULL, CLOCK_MONOTONIC);
		else if (w->kind == FUTEX2)
			ret = syscall(SYS_futex_wait, &s->word, old, FUTEX_BITSET_MATCH_ANY,
				      FUTEX_32 | FUTEX2_PRIVATE, NULL, CLOCK_MONOTONIC);
		else if (w->kind == URING)
			ret = uring_wait(w, s, wv, old);
		else
			ret = sys_futex(&s->word, FUTEX_WAIT, old, NULL, NULL, 0);
		if (ret < 0 && errno != EAGAIN && errno != EINTR)
			note_error(w->run, kind_name[w->kind]);
	}
	atomic_store(&s->in_wait, 0);
}

/*
 * Store @new in @s->word and wake its waiter by the operation of @w's
 * kind; an io_uring lane's side 1 wakes by futex_wake().
 */
static void pp_kick(struct worker *w, struct side *s, uint32_t new)
{
	enum kind kind = w->kind;
	long ret;

	atomic_store(&s->word, new);
	if (kind == URING && w->k == 1)
		kind = FUTEX2;
	switch (kind) {
	case URING:
		ret = uring_wake(w, s);
		break;
	case WAKE_OP:
		ret = sys_futex(&s->word, FUTEX_WAKE_OP, 1, (void *)1L, &s->aux,
				FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_LT, 0));
		break;
	case REQUEUE:
		ret = sys_futex(&s->word, FUTEX_CMP_REQUEUE, 0, (void *)1L, &s->aux, new);
		if (ret >= 0)
			ret = sys_futex(&s->aux, FUTEX_WAKE, 1, NULL, NULL, 0);
		break;
	case FUTEX2:
		ret = syscall(SYS_futex_wake, &s->word, FUTEX_BITSET_MATCH_ANY, 1,
			      FUTEX_32 | FUTEX2_PRIVATE);
		break;
	default:
		ret = sys_futex(&s->word, FUTEX_WAKE, 1, NULL, NULL, 0);
	}
	if (ret < 0)
		note_error(w->run, kind_name[w->kind]);
	atomic_store(&s->woken, new);
}

/*
 * Side 0 stores round v in side 1's word and waits for it back in its own;
 * side 1 waits, then answers. Side 0 ends the lane with STOP.
 */
static void ping_pong(struct worker *w)
{
	struct run *run = w->run;
	struct lane *l = &run->lanes[w->lane];
	uint32_t v;

	for (v = 1;; v++) {
		if (w->k == 0) {
			if (atomic_load(&run->stop)) {
				pp_kick(w, &l->s[1], STOP);
				return;
			}
			pp_kick(w, &l->s[1], v);
			pp_wait(w, &l->s[0], v - 1);
			atomic_fetch_add(&run->rounds, 1);
		} else {
			pp_wait(w, &l->s[1], v - 1);
			if (atomic_load(&l->s[1].word) == STOP)
				return;
			pp_kick(w, &l->s[0], v);
		}
	}
}

/* Take PI lock @m: 0, or -1 where the kernel refused it (counted). */
static int pi_lock(struct worker *w, _Atomic uint32_t *m)
{
	uint32_t zero = 0;
	long ret;

	if (atomic_compare_exchange_strong(m, &zero, w->tid))
		return 0;
	atomic_store(&w->pi_waiting, 1);
	do {
		ret = sys_futex(m, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
	} while (ret && errno == EINTR);
	atomic_store(&w->pi_waiting, 0);
	if (ret)
		note_error(w->run, "FUTEX_LOCK_PI");
	return ret ? -1 : 0;
}

static void pi_unlock(struct worker *w, _Atomic uint32_t *m)
{
	uint32_t tid = w->tid;

	if (!atomic_compare_exchange_strong(m, &tid, 0) &&
	    sys_futex(m, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0))
		note_error(w->run, "FUTEX_UNLOCK_PI");
}

/* Inside a PI lock of lane @l: alone, or counted. */
static void pi_inside(struct worker *w, struct lane *l)
{
	int prev;

	atomic_fetch_add(&l->events, 1);
	prev = atomic_exchange(&l->owner, w->tid);

	if (prev && atomic_fetch_add(&w->run->exclusion, 1) < 8)
		printf("exclusion: %s lane %d: thread %d inside with %d\n",
		       kind_name[l->kind], w->lane, w->tid, prev);
	sched_yield();
	atomic_store(&l->owner, 0);
}

static void pi_loop(struct worker *w)
{
	struct lane *l = &w->run->lanes[w->lane];

	while (!atomic_load(&w->run->stop)) {
		if (pi_lock(w, &l->pi))
			return;
		pi_inside(w, l);
		pi_unlock(w, &l->pi);
		atomic_fetch_add(&l->events, 1);
		atomic_fetch_add(&w->run->pi, 1);
	}
}

/* RQPI: rank 0 requeues, the others wait with a timeout of a few us. */
static void rqpi_loop(struct worker *w)
{
	struct run *run = w->run;
	struct lane *l = &run->lanes[w->lane];
	struct timespec ts;
	unsigned long i;
	uint32_t v;
	long ret;

	for (i = 0; !atomic_load(&run->stop); i++) {
		if (w->k == 0) {
			if ((i & 1) && pi_lock(w, &l->pi))
				return;
			v = atomic_fetch_add(&l->cond, 1) + 1;
			if (sys_futex(&l->cond, FUTEX_CMP_REQUEUE_PI, 1, (void *)(long)INT_MAX,
				      &l->pi, v) < 0 && errno != EAGAIN)
				note_error(run, "FUTEX_CMP_REQUEUE_PI");
			if (i & 1) {
				pi_inside(w, l);
				pi_unlock(w, &l->pi);
				atomic_fetch_add(&l->events, 1);
			}
			continue;
		}
		v = atomic_load(&l->cond);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += RQPI_TIMEOUT_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		ret = sys_futex(&l->cond, FUTEX_WAIT_REQUEUE_PI, v, &ts, &l->pi, 0);
		if (ret < 0 && errno == ETIMEDOUT)
			atomic_fetch_add(&run->rqpi_timeouts, 1);
		else if (ret < 0 && errno != EAGAIN && errno != EINTR)
			note_error(run, "FUTEX_WAIT_REQUEUE_PI");
		/* Whatever it returned, it may own the lock: release it. */
		if ((atomic_load(&l->pi) & FUTEX_TID_MASK) == (uint32_t)w->tid) {
			pi_inside(w, l);
			pi_unlock(w, &l->pi);
			atomic_fetch_add(&l->events, 1);
			atomic_fetch_add(&run->rqpi, 1);
		}
	}
}

static int child_main(void);

static void fork_loop(struct worker *w)
{
	struct run *run = w->run;
	int status;
	pid_t pid;

	while (!atomic_load(&run->stop)) {
		pid = fork();
		if (pid < 0) {
			note_error(run, "fork");
			return;
		}
		if (!pid)
			_exit(child_main());
		while (waitpid(pid, &status, 0) != pid) {
			if (errno != EINTR) {
				note_error(run, "waitpid");
				return;
			}
		}
		atomic_fetch_add(&run->forks, 1);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			atomic_fetch_add(&run->children_failed, 1);
			printf("child %d: %s %d\n", pid, WIFEXITED(status) ? "exit" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		}
	}
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;

	atomic_store(&w->tid, gettid());
	switch (w->kind) {
	case PI:
		pi_loop(w);
		break;
	case RQPI:
		rqpi_loop(w);
		break;
	case FORKER:
		fork_loop(w);
		break;
	default:
		ping_pong(w);
	}
	/*
	 * Done, but the thread stays until the process exits: a thread's exit
	 * hands on the PI locks it holds, which would hide a lock that the
	 * kernel failed to hand on.
	 */
	atomic_store(&w->done, 1);
	for (;;)
		pause();
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
	atomic_fetch_add(&sig_seen, 1);
}

/*
 * Whether thread @tid sleeps interruptibly in a futex system call: the
 * state of /proc/self/task/TID/stat, and the call from .../syscall, which
 * is left in @call.
 */
static int asleep(int tid, char *call, size_t len)
{
	char path[64], buf[512], *p;
	FILE *f;
	long nr;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		ret = p[1] == ' ' && p[2] == 'S';
	fclose(f);
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	f = fopen(path, "r");
	call[0] = '\0';
	if (f) {
		if (fgets(call, len, f))
			call[strcspn(call, "\n")] = '\0';
		fclose(f);
	}
	nr = strtol(call, &p, 10);
	return ret && p != call && (nr == SYS_futex || nr == SYS_futex_waitv ||
				    nr == SYS_futex_wait || nr == SYS_io_uring_enter);
}

/*
 * Whether ping-pong side @k of @w's lane is asleep in its wait although
 * its word was replaced and the wake returned: the partner's record of the
 * wake is read first, then the thread's state, then whether it still
 * waits in the same round: whether it is in a wait, then for what, as it
 * stores them in the reverse order (an io_uring lane thread also sleeps in
 * io_uring_enter() for its own wake's completion, after its wait returned).
 */
static int pp_lost(struct worker *w, int k, char *call, size_t len)
{
	struct side *s = &w->run->lanes[w->lane].s[k];
	uint32_t woken = atomic_load(&s->woken);
	uint32_t waiting = atomic_load(&s->waiting);
	struct worker *t = w - w->k + k;

	if (woken <= waiting || !asleep(t->tid, call, len))
		return 0;
	return atomic_load(&s->in_wait) && atomic_load(&s->waiting) == waiting &&
	       !atomic_load(&t->done);
}

/*
 * Whether every thread of PI lane @l that has not ended is asleep in
 * FUTEX_LOCK_PI, none having taken or released the lock meanwhile: then
 * none can release it. The count of acquisitions and releases is read
 * before and after: a hand-over to a thread seen asleep earlier is
 * preceded by its owner's acquisition, or followed by its release, and
 * both are counted before the owner could wait again.
 */
static int pi_lost(struct run *run, int lane, char *call, size_t len)
{
	long events = atomic_load(&run->lanes[lane].events);
	int i, asleep_n = 0;

	for (i = 0; i < run->nworkers; i++) {
		struct worker *o = &run->w[i];

		if (o->lane != lane || atomic_load(&o->done))
			continue;
		if (!atomic_load(&o->pi_waiting) || !asleep(o->tid, call, len) ||
		    !atomic_load(&o->pi_waiting))
			return 0;
		asleep_n++;
	}
	return asleep_n && atomic_load(&run->lanes[lane].events) == events;
}

/* Mark @w's lane stuck where a thread of it is lost; print it once. */
static int check_stuck(struct worker *w)
{
	struct run *run = w->run;
	struct lane *l = &run->lanes[w->lane];
	char call[256];
	int k, i;

	if (atomic_load(&w->stuck))
		return 1;
	if (w->kind == PI || w->kind == RQPI) {
		if (!pi_lost(run, w->lane, call, sizeof(call)))
			return 0;
		for (i = 0; i < run->nworkers; i++) {
			struct worker *o = &run->w[i];

			if (o->lane != w->lane || atomic_load(&o->done))
				continue;
			asleep(o->tid, call, sizeof(call));
			printf("lost: %s lane %d: thread %d asleep in FUTEX_LOCK_PI, lock word %#x, "
			       "the lane's other threads ended or asleep there too; syscall %s\n",
			       kind_name[w->kind], w->lane, o->tid, atomic_load(&l->pi), call);
			atomic_store(&o->stuck, 1);
		}
		return 1;
	}
	if (w->kind == FORKER)
		return 0;
	for (k = 0; k < 2; k++) {
		if (!pp_lost(w, k, call, sizeof(call)))
			continue;
		printf("lost: %s lane %d: thread %d asleep waiting for its word to leave %u; "
		       "the word is %u, and its partner's wake for %u returned; syscall %s\n",
		       kind_name[l->kind], w->lane, (w - w->k + k)->tid,
		       atomic_load(&l->s[k].waiting), atomic_load(&l->s[k].word),
		       atomic_load(&l->s[k].woken), call);
		for (i = 0; i < 2; i++)
			atomic_store(&(w - w->k + i)->stuck, 1);
		return 1;
	}
	return 0;
}

/* Lanes of @kinds[] (ping-pong lanes get two threads, PI three, RQPI three). */
static struct run *run_start(const enum kind *kinds, int nlanes)
{
	struct run *run = calloc(1, sizeof(*run));
	int i, k, n;

	if (!run)
		return NULL;
	run->lanes = calloc(nlanes, sizeof(*run->lanes));
	run->w = calloc(nlanes * 3, sizeof(*run->w));
	if (!run->lanes || !run->w)
		return NULL;
	run->nlanes = nlanes;
	for (i = 0; i < nlanes; i++) {
		run->lanes[i].kind = kinds[i];
		n = kinds[i] == PI || kinds[i] == RQPI ? 3 : kinds[i] == FORKER ? 1 : 2;
		for (k = 0; k < n; k++) {
			struct worker *w = &run->w[run->nworkers++];

			w->run = run;
			w->kind = kinds[i];
			w->lane = i;
			w->k = k;
			if (w->kind == URING && (errno = uring_init(&w->ring, 1)))
				return NULL;
		}
	}
	for (i = 0; i < run->nworkers; i++)
		if (pthread_create(&run->w[i].pt, NULL, worker_fn, &run->w[i]))
			return NULL;
	for (i = 0; i < run->nworkers; i++)
		while (!atomic_load(&run->w[i].tid))
			sched_yield();
	return run;
}

/*
 * Tell every thread to stop and wait until each has ended or is stuck;
 * the number stuck.
 */
static int run_stop(struct run *run)
{
	int i, live, stuck;

	atomic_store(&run->stop, 1);
	for (;;) {
		live = stuck = 0;
		for (i = 0; i < run->nworkers; i++) {
			struct worker *w = &run->w[i];

			if (atomic_load(&w->done))
				continue;
			live++;
			stuck += check_stuck(w);
		}
		if (live == stuck)
			break;
		usleep(1000);
	}
	return stuck;
}

/* Replace the hash @n times, signalling the next thread of @run after each. */
static int replace(struct run *run, int n, long *errors)
{
	int i, done = 0;

	for (i = 0; i < n; i++) {
		if (prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, sizes[i % 4], 0, 0))
			++*errors;
		else
			done++;
		if (!pthread_kill(run->w[i % run->nworkers].pt, SIGUSR1))
			atomic_fetch_add(&run->signals, 1);
	}
	return done;
}

/* A child: four lanes of its own, replacements, then the global hash. */
static int child_main(void)
{
	static const enum kind kinds[] = { WAKE, WAITV, URING, PI };
	long errors = 0;
	struct run *run = run_start(kinds, 4);

	if (!run)
		return 3;
	replace(run, CHILD_SETS, &errors);
	if (prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, 0, 0, 0))
		errors++;
	if (run_stop(run))
		return 2;
	return errors || run->errors || run->exclusion ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const enum kind kinds[] = {
		WAKE, WAKE_OP, REQUEUE, WAITV, FUTEX2, URING, PI, RQPI, FORKER,
	};
	int n = argc > 1 ? atoi(argv[1]) : 200, done, lost;
	struct sigaction sa = { .sa_handler = on_signal };
	long set_errors = 0;
	struct run *run;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (n < 1)
		return fprintf(stderr, "usage: %s [REPLACEMENTS]\n", argv[0]), 2;
	/* No SA_RESTART: interrupted waits return EINTR and wait again. */
	if (sigaction(SIGUSR1, &sa, NULL))
		return perror("sigaction"), 1;
	run = run_start(kinds, NKINDS);
	if (!run)
		return perror("starting the threads"), 1;
	if (prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0) <= 0) {
		run_stop(run);
		return printf("skip: no private futex hash to replace\n"), 0;
	}
	done = replace(run, n, &set_errors);
	lost = run_stop(run);
	printf("replacements=%d set_slots_errors=%ld rounds=%ld pi=%ld rqpi=%ld "
	       "rqpi_timeouts=%ld forks=%ld children_failed=%ld signals=%ld lost=%d "
	       "exclusion=%ld errors=%ld\n", done, set_errors, atomic_load(&run->rounds),
	       atomic_load(&run->pi), atomic_load(&run->rqpi), atomic_load(&run->rqpi_timeouts),
	       atomic_load(&run->forks), atomic_load(&run->children_failed),
	       atomic_load(&run->signals), lost, atomic_load(&run->exclusion),
	       atomic_load(&run->errors));
	fflush(stdout);
	/* The threads that ended wait, and those found stuck sleep, until exit(). */
	return run->children_failed || lost || run->exclusion || run->errors;
}
