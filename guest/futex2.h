/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The futex2 system calls and flags that bookworm's <linux/futex.h> and
 * <sys/syscall.h> (Linux 6.1 headers) do not name yet, and the prctl() of
 * the private futex hash, which <sys/prctl.h> does not either, for the
 * guest programs that use them; included after those headers. struct
 * futex_waitv and FUTEX_WAITV_MAX come from <linux/futex.h> itself (Linux
 * 5.16).
 */
#ifndef GUEST_FUTEX2_H
#define GUEST_FUTEX2_H

#include <linux/futex.h>
#include <sys/syscall.h>

#ifndef SYS_futex_waitv
#define SYS_futex_waitv		449
#endif
#ifndef SYS_futex_wake
#define SYS_futex_wake		454
#endif
#ifndef SYS_futex_wait
#define SYS_futex_wait		455
#endif
#ifndef SYS_futex_requeue
#define SYS_futex_requeue	456
#endif
#ifndef FUTEX2_SIZE_U32
#define FUTEX2_SIZE_U32		0x02
#endif
#ifndef FUTEX2_NUMA
#define FUTEX2_NUMA		0x04
#endif
#ifndef FUTEX2_PRIVATE
#define FUTEX2_PRIVATE		FUTEX_PRIVATE_FLAG
#endif
#ifndef FUTEX_32
#define FUTEX_32		FUTEX2_SIZE_U32
#endif

#ifndef PR_FUTEX_HASH
#define PR_FUTEX_HASH		78
#define PR_FUTEX_HASH_SET_SLOTS	1
#define PR_FUTEX_HASH_GET_SLOTS	2
#endif

#endif /* GUEST_FUTEX2_H */
