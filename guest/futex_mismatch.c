// SPDX-License-Identifier: GPL-2.0
/*
 * futex_mismatch - issue N futex waits whose expected value never matches.
 *
 * Usage: futex_mismatch private|shared N
 *
 * Every wait must fail with EAGAIN. The harness counts, with a kprobe, how
 * many of them reach the hash bucket: all of them before the unlocked
 * precheck, none after it.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int op = FUTEX_WAIT_PRIVATE;
	uint32_t *word;
	long i, n;

	if (argc != 3 || (strcmp(argv[1], "private") && strcmp(argv[1], "shared"))) {
		fprintf(stderr, "usage: %s private|shared N\n", argv[0]);
		return 2;
	}
	n = atol(argv[2]);
	if (!strcmp(argv[1], "shared"))
		op = FUTEX_WAIT;

	word = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		    MAP_ANONYMOUS | (op == FUTEX_WAIT ? MAP_SHARED : MAP_PRIVATE), -1, 0);
	if (word == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	*word = 0;

	for (i = 0; i < n; i++) {
		if (syscall(SYS_futex, word, op, 1, NULL, NULL, 0) != -1 || errno != EAGAIN) {
			fprintf(stderr, "futex_mismatch: wait %ld of %ld: %s\n",
				i, n, strerror(errno));
			return 1;
		}
	}
	return 0;
}
