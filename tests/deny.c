// SPDX-License-Identifier: GPL-2.0
/*
 * deny NR ERRNO [ARG1] -- PROGRAM [ARGS...]: run PROGRAM with system call NR
 * of this architecture failing with ERRNO, where the low 32 bits of its
 * second argument are ARG1 if one is given (an opcode, as io_uring_register()
 * takes), as on a kernel that lacks what the call asks for; with ERRNO 0 the
 * call returns 0 and does nothing, as on a kernel that loses it. A seccomp
 * filter, which PROGRAM and its children inherit.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

#if defined(__x86_64__)
#define ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH	AUDIT_ARCH_AARCH64
#else
#error "deny: no AUDIT_ARCH for this architecture"
#endif

/* @s as a number from @min to @max, or exit. */
static unsigned int number(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "deny: '%s' is not a number from %ld to %ld\n", s, min, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 0, 4),
		/* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0 /* NR */, 0, 2),
		/* 4: without ARG1, to the error; with it, check_arg[] */
		BPF_JUMP(BPF_JMP | BPF_JA, 2, 0, 0),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0),
		/* 6 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* 7 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO /* | ERRNO */),
	};
	struct sock_filter check_arg[] = {
		/* The low half on a little-endian machine. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0 /* ARG1 */, 1, 0),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	int i = 3;

	if (argc < 5) {
		fprintf(stderr, "usage: deny NR ERRNO [ARG1] -- PROGRAM [ARGS...]\n");
		return 2;
	}
	f[3].k = number(argv[1], 0, 4095);
	f[7].k |= number(argv[2], 0, 4095);
	if (strcmp(argv[i], "--")) {
		check_arg[1].k = number(argv[i++], 0, 0xffffffffL);
		f[4] = check_arg[0];
		f[5] = check_arg[1];
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
