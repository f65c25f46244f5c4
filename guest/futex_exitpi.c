// SPDX-License-Identifier: GPL-2.0
/*
 * futex_exitpi - a thread exits owning a PI futex with a waiter while a
 * replacement of the private futex hash waits for a reference.
 *
 * Usage: futex_exitpi
 *
 * exit_pi_state_list() looks up the bucket of each PI futex that the
 * exiting thread owns with curr->pi_lock held (a raw spinlock, interrupts
 * off), and where it finds the PI state changed it drops that lookup's
 * hash reference, in the CLASS(hbr) destructor, before it drops pi_lock.
 * A reference put there must never wake anyone: a wake takes a
 * waitqueue's spinlock_t. The retry is a race; the kernels that step
 * exitpi boots force it once per call (tests/lockcheck/).
 *
 * The process, in order:
 *  - T locks the PI futex, W blocks in FUTEX_LOCK_PI on it: the kernel
 *    sets FUTEX_WAITERS and T owns a PI state;
 *  - X waits on a futex word in a page that a userfaultfd leaves missing:
 *    its fault never completes, and it holds a reference on the hash
 *    meanwhile, where the word is read under the bucket;
 *  - two more threads: enough, with five CPUs or more, for the automatic
 *    sizing to ask for a larger hash, which cannot be installed while X
 *    holds its reference;
 *  - S calls PR_FUTEX_HASH_SET_SLOTS, which waits for X too: a task now
 *    sleeps on the variable that a replacement's last reference wakes;
 *  - after an RCU grace period and a second, T exits. A replacement folds
 *    its count in an RCU callback after a grace period (membarrier()
 *    waits for one), and the deadline that v6's stable patch armed there
 *    is 10 ms later: the second is for a kernel that gives a replacement
 *    up at a deadline to have passed it. It decides no verdict on any
 *    other kernel; on such a kernel, one that missed the deadline makes
 *    the put without waking anyone, and lockdep's catch is missed, not
 *    faked.
 * A kernel that gives the automatic replacement up at a deadline, and
 * wakes S from the reference put that does so (the first after the
 * deadline is T's, with pi_lock held), takes the waitqueue's lock inside
 * pi_lock: lockdep reports "Invalid wait context". Then X's fault is
 * completed, W takes the lock and unlocks it, and every thread ends.
 *
 * It judges nothing itself: the console does. Output: "exitpi: ..."
 * lines, the last "exitpi: done"; "skip: why" where the kernel lacks
 * what it needs; "error: what: strerror" and exit 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <linux/userfaultfd.h>
#include "futex2.h"

static uint32_t pi_word;
static uint32_t *stall_word;
static int go_t[2], park[2];
static pid_t s_tid;
static int s_done;

static void fail(const char *what, int err)
{
	printf("error: %s: %s\n", what, strerror(err));
	exit(1);
}

static long futex(uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static void *owner_fn(void *arg)
{
	char c;

	(void)arg;
	if (futex(&pi_word, FUTEX_LOCK_PI_PRIVATE, 0))
		fail("owner: FUTEX_LOCK_PI", errno);
	/* Until told to exit, owning the PI futex. */
	if (read(go_t[0], &c, 1) != 1)
		fail("owner: read", errno);
	return NULL;
}

static void *waiter_fn(void *arg)
{
	(void)arg;
	/* Returns once the owner's exit hands the lock over. */
	if (futex(&pi_word, FUTEX_LOCK_PI_PRIVATE, 0))
		fail("waiter: FUTEX_LOCK_PI", errno);
	if (futex(&pi_word, FUTEX_UNLOCK_PI_PRIVATE, 0))
		fail("waiter: FUTEX_UNLOCK_PI", errno);
	return NULL;
}

static void *stall_fn(void *arg)
{
	(void)arg;
	/* The word reads 0 once the fault completes: EAGAIN. */
	futex(stall_word, FUTEX_WAIT_PRIVATE, 1);
	return NULL;
}

static void *park_fn(void *arg)
{
	char c;

	(void)arg;
	if (read(park[0], &c, 1) < 0)
		fail("park: read", errno);
	return NULL;
}

static void *set_slots_fn(void *arg)
{
	(void)arg;
	__atomic_store_n(&s_tid, gettid(), __ATOMIC_RELEASE);
	if (prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, 64, 0))
		fail("PR_FUTEX_HASH_SET_SLOTS", errno);
	__atomic_store_n(&s_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Whether thread @tid of this process sleeps uninterruptibly in prctl(),
 * by /proc: there is no count of tasks that wait in
 * PR_FUTEX_HASH_SET_SLOTS to ask the kernel for.
 */
static int sleeps_in_prctl(pid_t tid)
{
	char path[64], buf[512], *p;
	long nr = -1;
	char state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (f) {
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		if (p)
			state = p[2];
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &nr) != 1)
			nr = -1;
		fclose(f);
	}
	return state == 'D' && nr == SYS_prctl;
}

static void start(pthread_t *t, void *(*fn)(void *))
{
	int err = pthread_create(t, NULL, fn, NULL);

	if (err)
		fail("pthread_create", err);
}

int main(void)
{
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_zeropage zero = { 0 };
	long psize = sysconf(_SC_PAGESIZE);
	pthread_t t, w, x, p1, p2, s;
	struct uffd_msg msg;
	struct timespec second = { 1, 0 };
	char c = 0;
	int uffd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 5) {
		printf("skip: %ld CPUs online; the automatic sizing asks for a larger hash with 5 or more\n",
		       sysconf(_SC_NPROCESSORS_ONLN));
		return 0;
	}
	if (pipe(go_t) || pipe(park))
		fail("pipe", errno);
	stall_word = mmap(NULL, psize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stall_word == MAP_FAILED)
		fail("mmap", errno);
	/* A fault taken in the kernel needs a userfaultfd without UFFD_USER_MODE_ONLY. */
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	reg.range.start = (unsigned long)stall_word;
	reg.range.len = psize;
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) || ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		printf("skip: no userfaultfd for faults taken in the kernel: %s\n", strerror(errno));
		return 0;
	}

	start(&t, owner_fn);
	while (!__atomic_load_n(&pi_word, __ATOMIC_ACQUIRE))
		sched_yield();
	start(&w, waiter_fn);
	/* The kernel sets FUTEX_WAITERS as it queues the waiter on the PI state. */
	while (!(__atomic_load_n(&pi_word, __ATOMIC_ACQUIRE) & FUTEX_WAITERS))
		sched_yield();
	printf("exitpi: owner %u, waiter queued\n", pi_word & FUTEX_TID_MASK);

	start(&x, stall_fn);
	/* The kernel reports the fault: the thread holds its reference. */
	if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) || msg.event != UFFD_EVENT_PAGEFAULT)
		fail("userfaultfd read", errno);
	printf("exitpi: a futex wait holds a hash reference in a fault\n");

	start(&p1, park_fn);
	start(&p2, park_fn);
	start(&s, set_slots_fn);
	while (!__atomic_load_n(&s_done, __ATOMIC_ACQUIRE) &&
	       (!__atomic_load_n(&s_tid, __ATOMIC_ACQUIRE) || !sleeps_in_prctl(s_tid)))
		sched_yield();
	/* Then nobody sleeps where a reference put could wake him. */
	if (__atomic_load_n(&s_done, __ATOMIC_ACQUIRE))
		printf("exitpi: PR_FUTEX_HASH_SET_SLOTS returned without waiting\n");
	else
		printf("exitpi: PR_FUTEX_HASH_SET_SLOTS waits\n");

	/* The grace period after which a replacement folds its count, then more. */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		fail("membarrier", errno);
	nanosleep(&second, NULL);
	if (write(go_t[1], &c, 1) != 1)
		fail("write", errno);
	pthread_join(t, NULL);
	printf("exitpi: the owner exited\n");

	zero.range.start = (unsigned long)stall_word;
	zero.range.len = psize;
	if (ioctl(uffd, UFFDIO_ZEROPAGE, &zero))
		fail("UFFDIO_ZEROPAGE", errno);
	pthread_join(x, NULL);
	pthread_join(w, NULL);
	pthread_join(s, NULL);
	if (write(park[1], &c, 1) != 1 || write(park[1], &c, 1) != 1)
		fail("write", errno);
	pthread_join(p1, NULL);
	pthread_join(p2, NULL);
	printf("exitpi: done, hash slots %d\n", prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS));
	return 0;
}
