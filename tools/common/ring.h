/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A ring of items handed from one thread to a function that a thread of
 * its own calls on each, in the order they were pushed, while the pusher
 * fills the next: one producer, one consumer, a fixed number of slots.
 * The producer fills the item ring_slot() gives and pushes it; it waits
 * for a free slot when all are pushed and not yet consumed, and the
 * consumer works on an item in its slot, which nobody touches meanwhile.
 * An item whose consumer fails stops the ring: nothing more is consumed
 * or pushed, and ring_close() reports the consumer's error.  Without a
 * thread (not asked for, or none could be started) each item is
 * consumed when it is pushed.
 *
 * crib-dump writes the memory runs it reads this way (run_queue.c) and
 * crib-restore fills shadows from a mapped snapshot (shadow_fill.c).
 */
#ifndef CRIB_TOOL_RING_H
#define CRIB_TOOL_RING_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* Works on @item: 0, or -1 with @err set, which stops the ring. */
typedef int (*ring_consume_fn)(void *ctx, void *item, struct tool_error *err);

struct ring;

/*
 * @slots items of @item_size bytes, zeroed, each consumed by @consume.
 * With @threaded, a thread of its own consumes them.  NULL when out of
 * memory.
 */
struct ring *ring_open(size_t item_size, size_t slots, ring_consume_fn consume, void *ctx,
		       bool threaded);
/* Whether a thread consumes the items (else ring_push() does). */
bool ring_threaded(const struct ring *r);
/* Slot @i's item, to set up what stays in it from one use to the next. */
void *ring_item(struct ring *r, size_t i);
/*
 * The item to fill and push next, once the consumer is done with it;
 * NULL once the consumer has failed.
 */
void *ring_slot(struct ring *r);
/* Hands the item of ring_slot() to the consumer: -1 when it has failed. */
int ring_push(struct ring *r);
/* Waits until every item pushed is consumed (or the consumer failed). */
void ring_drain(struct ring *r);
/*
 * Waits for every item pushed, then frees the ring (the items' own
 * memory stays the caller's): 0, or -1 with the consumer's error in
 * @err.
 */
int ring_close(struct ring *r, struct tool_error *err);

#endif
