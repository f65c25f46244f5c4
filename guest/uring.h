/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An io_uring set up with the system calls alone, as tools/include's
 * mini_liburing.h does: bookworm's liburing (2.3) predates the futex
 * operations, and the guest programs build without a kernel tree. The
 * opcodes of those operations (Linux 6.7), which bookworm's
 * <linux/io_uring.h> lacks, under names of their own. Included after
 * <linux/io_uring.h>, <sys/mman.h> and <sys/syscall.h>.
 */
#ifndef GUEST_URING_H
#define GUEST_URING_H

#define URING_OP_FUTEX_WAIT	51
#define URING_OP_FUTEX_WAKE	52
#define URING_OP_FUTEX_WAITV	53

/*
 * A ring: the submission queue's head and tail and its entries, whose
 * slot i always names entry i, and the completion queue.
 */
struct uring {
	int fd;
	unsigned int *sq_head, *sq_tail, sq_mask;
	unsigned int *cq_head, *cq_tail, cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

/* Set up @u with @entries: 0, or the errno of the call that failed. */
static inline int uring_init(struct uring *u, unsigned int entries)
{
	const int prot = PROT_READ | PROT_WRITE;
	struct io_uring_params p = { 0 };
	unsigned int i, *array;
	char *sq, *cq;

	u->fd = syscall(SYS_io_uring_setup, entries, &p);
	if (u->fd < 0)
		return errno;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned int), prot, MAP_SHARED,
		  u->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe), prot,
		  MAP_SHARED, u->fd, IORING_OFF_CQ_RING);
	u->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), prot, MAP_SHARED,
		       u->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || u->sqes == MAP_FAILED)
		return errno;
	u->sq_head = (unsigned int *)(sq + p.sq_off.head);
	u->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	u->sq_mask = *(unsigned int *)(sq + p.sq_off.ring_mask);
	u->cq_head = (unsigned int *)(cq + p.cq_off.head);
	u->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	u->cq_mask = *(unsigned int *)(cq + p.cq_off.ring_mask);
	u->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	array = (unsigned int *)(sq + p.sq_off.array);
	for (i = 0; i < p.sq_entries; i++)
		array[i] = i;
	return 0;
}

#endif /* GUEST_URING_H */
