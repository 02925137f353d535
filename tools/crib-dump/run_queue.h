/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs of memory read while the ones before them are written: a thread
 * of its own hands each run to the writer, in the order the runs were
 * read, while the caller reads the next into another buffer.  Reading a
 * process's memory and writing it out (hashing, compressing or splicing
 * it) then take the time of the slower of the two, not of both.
 */
#ifndef CRIB_DUMP_RUN_QUEUE_H
#define CRIB_DUMP_RUN_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Writes @n pages at @addr whose contents are @buf; -1 with @err set. */
typedef int (*run_write_fn)(void *ctx, uint64_t addr, size_t n, const unsigned char *buf,
			    struct tool_error *err);

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
/* The run read into run_queue_buf()'s buffer goes to the writer: -1 when it failed. */
int run_queue_push(struct run_queue *q, uint64_t addr, size_t n);
/* Waits for every run pushed, then frees: 0, or -1 with the writer's error in @err. */
int run_queue_close(struct run_queue *q, struct tool_error *err);

#endif
