// SPDX-License-Identifier: GPL-2.0
/*
 * futex_starve - hold a reference on the private futex hash across its
 * replacement, in a thread that cannot run.
 *
 * Usage: futex_starve
 *
 * A SCHED_OTHER thread L wakes a SCHED_FIFO thread M that waits on its own
 * CPU, once the kernel counts M queued: M preempts L in futex_wake() after
 * the wake, while L still holds its reference on the hash, and then keeps
 * the CPU busy. Meanwhile the main thread, on another CPU, replaces the
 * hash with PR_FUTEX_HASH_SET_SLOTS and, once that returned, waits for two
 * RCU grace periods (MEMBARRIER_CMD_GLOBAL) and a little longer, for the
 * callbacks and the work they queue, before it lets M stop. L then drops
 * its reference on the replaced hash: a kernel that freed the hash under
 * it shows a use-after-free on the console (KASAN). The fair server may
 * let L run earlier; the line says whether it did.
 *
 * The program judges nothing: it prints one line,
 *   preempted=P held=H starved_ms=S set_slots_ms=T slots=A>B
 * P 1 where L was seen inside futex_wake() (/proc/self/task/TID/stack)
 * while M ran, H 1 where L had not returned from futex_wake() when the
 * grace periods had passed, S how long M kept L from running, T how long
 * SET_SLOTS took; or "skip: why" where it cannot set the scene up. It
 * exits 1 only where a call fails that must not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "futex2.h"

/* After the grace periods, for the RCU callbacks and the work they queue. */
#define SETTLE_US	200000

static struct {
	int x, y;
	uint32_t mword;
	pid_t l_tid;
	atomic_int m_stop;
	atomic_llong m_woken, l_done;
} s;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int pin(int cpu, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	return sched_setscheduler(0, policy, &sp);
}

static long futex(uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

/*
 * How many wait on @uaddr, which holds @val: FUTEX_CMP_REQUEUE of a futex
 * onto itself, waking none and requeueing all, counts them under the
 * bucket lock and leaves them where they are.
 */
static long queued(uint32_t *uaddr, uint32_t val)
{
	return syscall(SYS_futex, uaddr, FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG, 0,
		       (void *)(long)__INT_MAX__, uaddr, val);
}

/* M: SCHED_FIFO on x; once woken by L, keeps x busy until told to stop. */
static void *m_fn(void *arg)
{
	(void)arg;
	if (pin(s.x, SCHED_FIFO, 10))
		return (void *)-1L;
	while (!__atomic_load_n(&s.mword, __ATOMIC_ACQUIRE))
		futex(&s.mword, FUTEX_WAIT, 0);
	atomic_store(&s.m_woken, now_ns());
	while (!atomic_load(&s.m_stop) && !atomic_load(&s.l_done))
		;
	return NULL;
}

/* L: SCHED_OTHER on x; wakes M, which preempts it inside futex_wake(). */
static void *l_fn(void *arg)
{
	(void)arg;
	if (pin(s.x, SCHED_OTHER, 0))
		return (void *)-1L;
	__atomic_store_n(&s.l_tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (queued(&s.mword, 0) < 1)
		usleep(100);
	__atomic_store_n(&s.mword, 1, __ATOMIC_RELEASE);
	futex(&s.mword, FUTEX_WAKE, 1);
	atomic_store(&s.l_done, now_ns());
	return NULL;
}

/* Whether thread @tid is inside futex_wake(): 1, 0, or -1 where unreadable. */
static int in_futex_wake(pid_t tid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return !!strstr(buf, "futex_wake");
}

static int skip(const char *why)
{
	printf("skip: %s\n", why);
	return 0;
}

/* A CPU of this thread's affinity after @after, or -1. */
static int next_cpu(const cpu_set_t *set, int after)
{
	int cpu;

	for (cpu = after + 1; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, set))
			return cpu;
	return -1;
}

int main(void)
{
	long long start, set_end, starved;
	int slots, cur, preempted, held, i;
	pthread_t m, l;
	cpu_set_t set;
	void *ret;

	if (sched_getaffinity(0, sizeof(set), &set))
		return perror("sched_getaffinity"), 1;
	s.x = next_cpu(&set, -1);
	s.y = s.x < 0 ? -1 : next_cpu(&set, s.x);
	if (s.y < 0)
		return skip("needs two CPUs");
	if (pin(s.y, SCHED_FIFO, 1))
		return skip("SCHED_FIFO refused");
	if (pin(s.y, SCHED_OTHER, 0))
		return perror("sched_setscheduler"), 1;

	/* The private hash exists once the process has a second thread. */
	if (pthread_create(&m, NULL, m_fn, NULL) || pthread_create(&l, NULL, l_fn, NULL))
		return perror("pthread_create"), 1;
	cur = prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0);
	slots = cur >= 1024 ? cur / 2 : cur * 2;

	while (!atomic_load(&s.m_woken))
		usleep(1000);
	preempted = atomic_load(&s.l_done) ? 0 :
		    in_futex_wake(__atomic_load_n(&s.l_tid, __ATOMIC_ACQUIRE));

	start = now_ns();
	if (cur > 0 && prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, slots, 0, 0))
		return perror("PR_FUTEX_HASH_SET_SLOTS"), 1;
	set_end = now_ns();
	for (i = 0; i < 2; i++)
		if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
			return perror("membarrier"), 1;
	usleep(SETTLE_US);
	held = !atomic_load(&s.l_done);
	atomic_store(&s.m_stop, 1);

	pthread_join(m, &ret);
	if (ret)
		return fprintf(stderr, "M could not be set up\n"), 1;
	pthread_join(l, &ret);
	if (ret)
		return fprintf(stderr, "L could not be set up\n"), 1;
	if (cur <= 0)
		return skip("no private futex hash");

	starved = atomic_load(&s.l_done) - atomic_load(&s.m_woken);
	printf("preempted=%d held=%d starved_ms=%lld set_slots_ms=%lld slots=%d>%d\n",
	       preempted, held, starved / 1000000, (set_end - start) / 1000000, cur,
	       prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0));
	return 0;
}
