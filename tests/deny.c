// SPDX-License-Identifier: GPL-2.0
/*
 * deny NR ERRNO [ARG1] -- PROGRAM [ARGS...]: run PROGRAM with system call NR
 * failing with ERRNO, where its second argument is ARG1 if one is given,
 * as on a kernel that lacks what the call asks for. A seccomp filter, which
 * PROGRAM and its children inherit.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

int main(int argc, char **argv)
{
	struct sock_filter check_arg[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
	};
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2),
		/* Without ARG1: to the error; with it, check_arg[]. */
		BPF_JUMP(BPF_JMP | BPF_JA, 2, 0, 0),
		BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	int i = 3;

	if (argc < 5) {
		fprintf(stderr, "usage: deny NR ERRNO [ARG1] -- PROGRAM [ARGS...]\n");
		return 2;
	}
	f[1].k = atoi(argv[1]);
	f[5].k |= atoi(argv[2]) & SECCOMP_RET_DATA;
	if (strcmp(argv[i], "--")) {
		check_arg[1].k = atoi(argv[i++]);
		f[2] = check_arg[0];
		f[3] = check_arg[1];
	}
	if (strcmp(argv[i++], "--") || !argv[i]) {
		fprintf(stderr, "deny: no -- PROGRAM\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("deny: seccomp");
		return 2;
	}
	execv(argv[i], argv + i);
	perror(argv[i]);
	return 2;
}
