// SPDX-License-Identifier: GPL-2.0
/*
 * futex_mismatch - issue N futex waits whose expected value never matches,
 * or, as the control, N waits whose value matches and whose timeout has
 * already expired.
 *
 * Usage: futex_mismatch private|shared N [matched]
 *
 * A mismatched wait must fail with EAGAIN, a matched one with ETIMEDOUT:
 * it takes the bucket lock, queues and finds its timer expired without
 * sleeping. The harness counts, with a kprobe, how many of them reach the
 * hash bucket: every mismatched wait before the unlocked precheck, none
 * after it, and every matched wait on either kernel (that the probe sees
 * the bucket being reached at all).
 *
 * Prints "waits=W", W the waits that ended as they must; exits 1 at the
 * first that does not.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec zero = { 0, 0 }, *timeout = NULL;
	int op = FUTEX_WAIT_PRIVATE, expect = EAGAIN;
	uint32_t *word, val = 1;
	long i, n, waits = 0;

	if (argc < 3 || argc > 4 || (strcmp(argv[1], "private") && strcmp(argv[1], "shared")) ||
	    (argc == 4 && strcmp(argv[3], "matched"))) {
		fprintf(stderr, "usage: %s private|shared N [matched]\n", argv[0]);
		return 2;
	}
	n = atol(argv[2]);
	if (!strcmp(argv[1], "shared"))
		op = FUTEX_WAIT;
	if (argc == 4) {
		/* A relative timeout of zero: expired once the wait is queued. */
		val = 0;
		timeout = &zero;
		expect = ETIMEDOUT;
	}

	word = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		    MAP_ANONYMOUS | (op == FUTEX_WAIT ? MAP_SHARED : MAP_PRIVATE), -1, 0);
	if (word == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	*word = 0;

	for (i = 0; i < n; i++) {
		if (syscall(SYS_futex, word, op, val, timeout, NULL, 0) != -1 || errno != expect) {
			fprintf(stderr, "futex_mismatch: wait %ld of %ld: %s\n",
				i, n, strerror(errno));
			break;
		}
		waits++;
	}
	printf("waits=%ld\n", waits);
	return waits == n ? 0 : 1;
}
