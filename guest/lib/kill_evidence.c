// SPDX-License-Identifier: GPL-2.0
/*
 * Preloaded into every kselftest program by guest/lib.sh, so that a test
 * that times out leaves evidence of what it was waiting for. Before a
 * program kills what ran out of time, namely kselftest_harness.h killing
 * the process group of a test case after its timeout and coreutils'
 * timeout (the kselftest runner's) signalling the program, this runs
 * guest/evidence.sh on the whole guest run (GUEST_RUN) while the stuck
 * threads still exist. Any other kill() passes straight through.
 *
 * Environment: GUEST_EVIDENCE, the file evidence.sh appends to; GUEST_RUN,
 * the run's tag; GUEST_DIR, where evidence.sh is (/guest unless set).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Whether PID runs coreutils' timeout: the runner nests two of them. */
static int is_timeout(pid_t pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strcmp(comm, "timeout\n");
}

static void record(pid_t pid, int sig)
{
	const char *out = getenv("GUEST_EVIDENCE"), *tag = getenv("GUEST_RUN");
	const char *dir = getenv("GUEST_DIR");
	char why[96], sh[256];
	pid_t child;

	if (!out || !tag)
		return;
	snprintf(why, sizeof(why), "%s %d with signal %d",
		 pid < 0 ? "process group" : "process", pid < 0 ? -pid : pid, sig);
	snprintf(sh, sizeof(sh), "%s/evidence.sh", dir ? dir : "/guest");
	child = fork();
	if (child == 0) {
		struct sched_param sp = { .sched_priority = 1 };

		/*
		 * Ahead of the threads it records: a test that ran out of time
		 * may keep every CPU busy, and at their priority the record of
		 * its threads took over a minute under TCG, a minute in which
		 * the kill below waited and the load went on. Where that is
		 * not allowed, the record is made all the same.
		 */
		sched_setscheduler(0, SCHED_FIFO, &sp);
		unsetenv("LD_PRELOAD");
		execl("/bin/sh", "sh", sh, out, tag, why, (char *)NULL);
		_exit(127);
	}
	if (child > 0)
		waitpid(child, NULL, 0);
}

int kill(pid_t pid, int sig)
{
	static int (*real_kill)(pid_t, int);

	if (!real_kill)
		real_kill = (int (*)(pid_t, int))dlsym(RTLD_NEXT, "kill");
	/* kselftest_harness.h: kill(-(t->pid), SIGKILL) on a timeout */
	if ((sig == SIGKILL && pid < -1) ||
	    (sig == SIGTERM && pid > 0 && !is_timeout(pid)))
		record(pid, sig);
	return real_kill(pid, sig);
}
