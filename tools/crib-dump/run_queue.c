// SPDX-License-Identifier: GPL-2.0
/*
 * Runs of memory read while the ones before them are written: see
 * run_queue.h.  RUN_BUFS runs go round a ring (tools/common/ring.h),
 * each with a buffer of its own: the caller reads into the one at the
 * tail while the ring's thread writes the one at the head.
 */
#include <stdlib.h>

#include "ring.h"
#include "run_queue.h"

#define RUN_BUFS	3	/* one being read, up to two waiting or being written */

struct run_queue {
	run_write_fn write;
	void *ctx;
	struct ring *ring;
	unsigned char *bufs[RUN_BUFS];	/* each run's, for good */
	struct queued_run *run;		/* the one being read, from run_queue_buf() */
};

static int write_run(void *ctx, void *item, struct tool_error *err)
{
	struct run_queue *q = ctx;

	return q->write(q->ctx, item, err);
}

static void free_queue(struct run_queue *q)
{
	int i;

	for (i = 0; i < RUN_BUFS; i++)
		free(q->bufs[i]);
	free(q);
}

struct run_queue *run_queue_open(size_t buf_size, run_write_fn write, void *ctx,
				 bool threaded)
{
	struct run_queue *q = calloc(1, sizeof(*q));
	struct queued_run *run;
	int i;

	if (!q)
		return NULL;
	q->write = write;
	q->ctx = ctx;
	q->ring = ring_open(sizeof(struct queued_run), RUN_BUFS, write_run, q, threaded);
	if (!q->ring)
		goto nomem;
	for (i = 0; i < RUN_BUFS; i++) {
		/* page-aligned: vmsplice() then hands the pipe whole pages */
		if (posix_memalign((void **)&q->bufs[i], 4096, buf_size))
			goto nomem;
		run = ring_item(q->ring, i);
		run->buf = q->bufs[i];
	}
	return q;

nomem:
	ring_close(q->ring, NULL);
	free_queue(q);
	return NULL;
}

unsigned char *run_queue_buf(struct run_queue *q)
{
	q->run = ring_slot(q->ring);
	if (!q->run)
		return NULL;
	q->run->n_pieces = 0;
	return q->run->buf;
}

int run_queue_add_piece(struct run_queue *q, const void *data, size_t len, uint64_t offset)
{
	struct queued_run *run = q->run;

	if (run->n_pieces == RUN_PIECES_MAX)
		return -1;
	run->pieces[run->n_pieces++] = (struct run_piece){ data, len, offset };
	return 0;
}

int run_queue_push(struct run_queue *q, uint64_t addr, size_t n)
{
	q->run->addr = addr;
	q->run->n = n;
	return ring_push(q->ring);
}

int run_queue_close(struct run_queue *q, struct tool_error *err)
{
	int ret;

	if (!q)
		return 0;
	/* The ring's thread is gone before the buffers are. */
	ret = ring_close(q->ring, err);
	free_queue(q);
	return ret;
}
