/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs of memory read while the ones before them are written: a thread
 * of its own hands each run to a write function, in the order the runs
 * were read, while the caller reads the next into another buffer.  That
 * function writes the whole run (its records: hashing, compressing or
 * splicing it), or only the pieces of it the caller's snapshot writer
 * left to write at an offset (run_queue_add_piece()).  Reading a
 * process's memory and writing it out then take the time of the slower
 * of the two, not of both.
 */
#ifndef CRIB_DUMP_RUN_QUEUE_H
#define CRIB_DUMP_RUN_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define RUN_PIECES_MAX	16

/* Data of a run that the caller's writer left to be written at an offset. */
struct run_piece {
	const void *data;	/* in the run's buffer */
	size_t len;
	uint64_t offset;
};

/* A run of pages read into one of the queue's buffers. */
struct queued_run {
	unsigned char *buf;
	uint64_t addr;
	size_t n;		/* pages */
	struct run_piece pieces[RUN_PIECES_MAX];	/* run_queue_add_piece() */
	int n_pieces;
};

/* Writes @run out, or what of it is left to write; -1 with @err set. */
typedef int (*run_write_fn)(void *ctx, const struct queued_run *run, struct tool_error *err);

struct run_queue;

/*
 * A queue of page-aligned buffers of @buf_size bytes whose runs go to
 * @write.  Without @threaded, or when no thread can be started, each run
 * is written when it is pushed.  NULL when out of memory.
 */
struct run_queue *run_queue_open(size_t buf_size, run_write_fn write, void *ctx,
				 bool threaded);
/*
 * The buffer to read the next run into, once the writer is done with
 * it; NULL once the writer has failed (run_queue_close() says why).
 */
unsigned char *run_queue_buf(struct run_queue *q);
/*
 * Part of the run being read, which the caller's snapshot writer left to
 * write at @offset (crib_writer_take_gaps()): the thread writes it with
 * the run.  -1 when a run has more than RUN_PIECES_MAX.
 */
int run_queue_add_piece(struct run_queue *q, const void *data, size_t len, uint64_t offset);
/* The run read into run_queue_buf()'s buffer goes to the writer: -1 when it failed. */
int run_queue_push(struct run_queue *q, uint64_t addr, size_t n);
/* Waits for every run pushed, then frees: 0, or -1 with the writer's error in @err. */
int run_queue_close(struct run_queue *q, struct tool_error *err);

#endif
