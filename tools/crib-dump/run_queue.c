// SPDX-License-Identifier: GPL-2.0
/*
 * Runs of memory read while the ones before them are written: see
 * run_queue.h.  RUN_BUFS buffers go round: the caller reads into the one
 * at the tail while the thread writes the one at the head.
 */
#include <pthread.h>
#include <stdlib.h>

#include "run_queue.h"

#define RUN_BUFS	3	/* one being read, up to two waiting or being written */

struct run_queue {
	run_write_fn write;
	void *ctx;
	bool threaded;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t pushed;		/* a run pushed, or closing */
	pthread_cond_t written;		/* a run written, or the writer failed */
	struct queued_run runs[RUN_BUFS];
	uint64_t head, tail;		/* runs[head % RUN_BUFS] is written next */
	bool closing;
	bool failed;
	struct tool_error err;		/* the writer's, once failed */
};

static void *writer_main(void *arg)
{
	struct run_queue *q = arg;
	struct queued_run run;
	struct tool_error err = { 0 };
	int ret;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (q->head == q->tail && !q->closing)
			pthread_cond_wait(&q->pushed, &q->lock);
		if (q->head == q->tail)
			break;
		run = q->runs[q->head % RUN_BUFS];
		pthread_mutex_unlock(&q->lock);
		ret = q->write(q->ctx, &run, &err);
		pthread_mutex_lock(&q->lock);
		if (ret) {
			q->err = err;
			q->failed = true;
			pthread_cond_broadcast(&q->written);
			break;
		}
		q->head++;
		pthread_cond_broadcast(&q->written);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

struct run_queue *run_queue_open(size_t buf_size, run_write_fn write, void *ctx,
				 bool threaded)
{
	struct run_queue *q = calloc(1, sizeof(*q));
	int i;

	if (!q)
		return NULL;
	q->write = write;
	q->ctx = ctx;
	for (i = 0; i < RUN_BUFS; i++) {
		/* page-aligned: vmsplice() then hands the pipe whole pages */
		if (posix_memalign((void **)&q->runs[i].buf, 4096, buf_size))
			goto nomem;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->pushed, NULL);
	pthread_cond_init(&q->written, NULL);
	q->threaded = threaded && !pthread_create(&q->thread, NULL, writer_main, q);
	return q;

nomem:
	while (i-- > 0)
		free(q->runs[i].buf);
	free(q);
	return NULL;
}

unsigned char *run_queue_buf(struct run_queue *q)
{
	unsigned char *buf;

	pthread_mutex_lock(&q->lock);
	while (q->tail - q->head == RUN_BUFS && !q->failed)
		pthread_cond_wait(&q->written, &q->lock);
	buf = NULL;
	if (!q->failed) {
		buf = q->runs[q->tail % RUN_BUFS].buf;
		q->runs[q->tail % RUN_BUFS].n_pieces = 0;
	}
	pthread_mutex_unlock(&q->lock);
	return buf;
}

int run_queue_add_piece(struct run_queue *q, const void *data, size_t len, uint64_t offset)
{
	struct queued_run *run = &q->runs[q->tail % RUN_BUFS];

	if (run->n_pieces == RUN_PIECES_MAX)
		return -1;
	run->pieces[run->n_pieces++] = (struct run_piece){ data, len, offset };
	return 0;
}

int run_queue_push(struct run_queue *q, uint64_t addr, size_t n)
{
	struct queued_run *run = &q->runs[q->tail % RUN_BUFS];
	int ret = 0;

	run->addr = addr;
	run->n = n;
	if (!q->threaded) {
		ret = q->write(q->ctx, run, &q->err);
		run->n_pieces = 0;
		q->failed = ret != 0;
		return ret;
	}
	pthread_mutex_lock(&q->lock);
	if (q->failed) {
		ret = -1;
	} else {
		q->tail++;
		pthread_cond_signal(&q->pushed);
	}
	pthread_mutex_unlock(&q->lock);
	return ret;
}

int run_queue_close(struct run_queue *q, struct tool_error *err)
{
	int i, ret;

	if (!q)
		return 0;
	if (q->threaded) {
		pthread_mutex_lock(&q->lock);
		q->closing = true;
		pthread_cond_signal(&q->pushed);
		pthread_mutex_unlock(&q->lock);
		pthread_join(q->thread, NULL);
	}
	ret = q->failed ? -1 : 0;
	if (q->failed && err)
		*err = q->err;
	pthread_cond_destroy(&q->written);
	pthread_cond_destroy(&q->pushed);
	pthread_mutex_destroy(&q->lock);
	for (i = 0; i < RUN_BUFS; i++)
		free(q->runs[i].buf);
	free(q);
	return ret;
}
