// SPDX-License-Identifier: GPL-2.0
/*
 * Filling shadows (shadow.c) while the snapshot is read: through a
 * userfaultfd, UFFDIO_COPY and UFFDIO_ZEROPAGE bring a run of pages into
 * being with its contents in one call, where writing them would fault
 * each page in and clear it first.  Where the kernel refuses, the pages
 * are written in place.
 *
 * When the snapshot is mapped, the data of its stored_pages records lies
 * in the mapping until it is read to the end, so those runs are filled by
 * a thread of their own (the filler) while the reader goes on to the next
 * record (a ring, tools/common/ring.h): the copy, the dearest step per
 * byte, overlaps with reading and checking the snapshot.  Runs whose data lies in the reader's buffers
 * are filled at once, after the queue is drained, so that runs are filled
 * in the order they come.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ring.h"
#include "shadow_fill.h"

#define FILL_QUEUE	64	/* runs queued for the filler at most */
#define FILL_STALLS_MAX	100	/* EAGAINs with nothing done: then write in place */
#define FILL_IOCTLS	(1ULL << _UFFDIO_COPY | 1ULL << _UFFDIO_ZEROPAGE)

struct shadow_filler {
	int uffd;			/* or -1: every run written in place */
	struct ring *queue;		/* runs for the filler thread, or NULL: none runs */
};

static int uffd_open(void)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		/*
		 * A page of a shadow touched before it is filled raises
		 * SIGBUS, where it would wait for a handler there is none of.
		 */
		.features = UFFD_FEATURE_SIGBUS,
	};
	int fd = (int)syscall(__NR_userfaultfd, O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ioctl(fd, UFFDIO_API, &api)) {
		close(fd);
		return -1;
	}
	return fd;
}

bool shadow_fill_register(struct shadow_filler *f, void *shadow, uint64_t len)
{
	struct uffdio_register reg = {
		.range = { (uintptr_t)shadow, len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	if (!f || f->uffd < 0 || ioctl(f->uffd, UFFDIO_REGISTER, &reg))
		return false;
	if ((reg.ioctls & FILL_IOCTLS) == FILL_IOCTLS)
		return true;
	ioctl(f->uffd, UFFDIO_UNREGISTER, &reg.range);
	return false;
}

int uffd_fill(int uffd, uint64_t to, const void *data, uint64_t len)
{
	struct uffdio_zeropage zero;
	struct uffdio_copy copy;
	const char *from = data;
	int64_t done;
	int ret, stalls = 0;

	while (len) {
		if (from) {
			copy = (struct uffdio_copy){ to, (uintptr_t)from, len, 0, 0 };
			ret = ioctl(uffd, UFFDIO_COPY, &copy);
			done = copy.copy;
		} else {
			zero = (struct uffdio_zeropage){ { to, len }, 0, 0 };
			ret = ioctl(uffd, UFFDIO_ZEROPAGE, &zero);
			done = zero.zeropage;
		}
		/* EAGAIN: the mapping changed under it; go on after what was done. */
		if (ret && errno != EAGAIN)
			return -1;
		if (done <= 0 && ++stalls == FILL_STALLS_MAX)
			return -1;
		if (done > 0) {
			to += (uint64_t)done;
			from = from ? from + done : NULL;
			len -= (uint64_t)done;
		}
	}
	return 0;
}

static void write_in_place(char *to, const void *data, uint64_t len, uint64_t page)
{
	uint64_t off;

	if (data) {
		memcpy(to, data, len);
		return;
	}
	/*
	 * Zero pages were there: make them present, as they were.  A read
	 * maps the kernel's shared zero page, which costs no memory and
	 * moves with the shadow like any other page.  But fork() copies no
	 * page table entries of a mapping never written to, so the first
	 * page is written, which is enough.
	 */
	*(volatile char *)to = 0;
	for (off = page; off < len; off += page)
		(void)*(volatile const char *)(to + off);
}

/*
 * One run, filled or written in place.  Returns whether the shadow is
 * still registered; it is unregistered before writing in place, since
 * UFFDIO_ZEROPAGE maps the zero page as a read
 * does and gives the mapping what fork() looks for, and what UFFDIO_COPY
 * did before it stopped is written again.
 */
static bool fill_one(int uffd, const struct fill_run *run)
{
	struct uffdio_range range = { (uintptr_t)run->shadow, run->shadow_len };

	if (run->registered && !uffd_fill(uffd, (uintptr_t)run->to, run->data, run->len))
		return true;
	if (run->registered)
		ioctl(uffd, UFFDIO_UNREGISTER, &range);
	write_in_place(run->to, run->data, run->len, run->page);
	return false;
}

/* The filler thread's work on a queued run; a run written in place is no failure. */
static int fill_queued(void *ctx, void *item, struct tool_error *err)
{
	const struct shadow_filler *f = ctx;

	(void)err;
	fill_one(f->uffd, item);
	return 0;
}

struct shadow_filler *shadow_filler_open(bool threaded)
{
	struct shadow_filler *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->uffd = uffd_open();
	if (threaded && f->uffd >= 0)
		f->queue = ring_open(sizeof(struct fill_run), FILL_QUEUE, fill_queued, f, true);
	if (f->queue && !ring_threaded(f->queue)) {
		ring_close(f->queue, NULL);
		f->queue = NULL;
	}
	return f;
}

static void enqueue(struct shadow_filler *f, const struct fill_run *run)
{
	struct fill_run *slot = ring_slot(f->queue);

	/* The filler never fails, so there is always a slot once one is free. */
	*slot = *run;
	ring_push(f->queue);
}

bool shadow_fill(struct shadow_filler *f, const struct fill_run *run, bool data_in_input)
{
	if (f && f->queue && (!run->data || data_in_input)) {
		enqueue(f, run);
		return run->registered;
	}
	if (f && f->queue)
		ring_drain(f->queue);
	return fill_one(f ? f->uffd : -1, run);
}

void shadow_filler_close(struct shadow_filler *f)
{
	if (!f)
		return;
	ring_close(f->queue, NULL);
	if (f->uffd >= 0)
		close(f->uffd);
	free(f);
}
