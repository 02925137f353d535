// SPDX-License-Identifier: GPL-2.0
/*
 * One producer, one consumer, a fixed number of slots (ring.h): the
 * producer fills the slot at the tail while the consumer works on the
 * one at the head.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "ring.h"

struct ring {
	ring_consume_fn consume;
	void *ctx;
	size_t item_size, slots;
	char *items;
	bool threaded;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t pushed;		/* an item pushed, or closing */
	pthread_cond_t consumed;	/* an item consumed, or the consumer failed */
	uint64_t head, tail;		/* items[head % slots] is consumed next */
	bool closing;
	bool failed;
	struct tool_error err;		/* the consumer's, once failed */
};

void *ring_item(struct ring *r, size_t i)
{
	return r->items + (i % r->slots) * r->item_size;
}

static void *consumer_main(void *arg)
{
	struct ring *r = arg;
	struct tool_error err = { 0 };
	int ret;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (r->head == r->tail && !r->closing)
			pthread_cond_wait(&r->pushed, &r->lock);
		if (r->head == r->tail)
			break;
		pthread_mutex_unlock(&r->lock);
		ret = r->consume(r->ctx, ring_item(r, r->head), &err);
		pthread_mutex_lock(&r->lock);
		if (ret) {
			r->err = err;
			r->failed = true;
			pthread_cond_broadcast(&r->consumed);
			break;
		}
		r->head++;
		pthread_cond_broadcast(&r->consumed);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

struct ring *ring_open(size_t item_size, size_t slots, ring_consume_fn consume, void *ctx,
		       bool threaded)
{
	struct ring *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->items = calloc(slots, item_size);
	if (!r->items) {
		free(r);
		return NULL;
	}
	r->consume = consume;
	r->ctx = ctx;
	r->item_size = item_size;
	r->slots = slots;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->pushed, NULL);
	pthread_cond_init(&r->consumed, NULL);
	r->threaded = threaded && !pthread_create(&r->thread, NULL, consumer_main, r);
	return r;
}

bool ring_threaded(const struct ring *r)
{
	return r->threaded;
}

void *ring_slot(struct ring *r)
{
	void *item = NULL;

	pthread_mutex_lock(&r->lock);
	while (r->tail - r->head == r->slots && !r->failed)
		pthread_cond_wait(&r->consumed, &r->lock);
	if (!r->failed)
		item = ring_item(r, r->tail);
	pthread_mutex_unlock(&r->lock);
	return item;
}

int ring_push(struct ring *r)
{
	int ret = 0;

	if (!r->threaded) {
		if (r->failed)
			return -1;
		ret = r->consume(r->ctx, ring_item(r, r->tail), &r->err);
		r->failed = ret != 0;
		return ret;
	}
	pthread_mutex_lock(&r->lock);
	if (r->failed) {
		ret = -1;
	} else {
		r->tail++;
		pthread_cond_signal(&r->pushed);
	}
	pthread_mutex_unlock(&r->lock);
	return ret;
}

void ring_drain(struct ring *r)
{
	pthread_mutex_lock(&r->lock);
	while (r->head != r->tail && !r->failed)
		pthread_cond_wait(&r->consumed, &r->lock);
	pthread_mutex_unlock(&r->lock);
}

int ring_close(struct ring *r, struct tool_error *err)
{
	int ret;

	if (!r)
		return 0;
	if (r->threaded) {
		pthread_mutex_lock(&r->lock);
		r->closing = true;
		pthread_cond_signal(&r->pushed);
		pthread_mutex_unlock(&r->lock);
		pthread_join(r->thread, NULL);
	}
	ret = r->failed ? -1 : 0;
	if (r->failed && err)
		*err = r->err;
	pthread_cond_destroy(&r->consumed);
	pthread_cond_destroy(&r->pushed);
	pthread_mutex_destroy(&r->lock);
	free(r->items);
	free(r);
	return ret;
}
