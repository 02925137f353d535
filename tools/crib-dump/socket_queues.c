// SPDX-License-Identifier: GPL-2.0
/*
 * Socket queues: the data a snapshot carries of them, from the walks
 * (socket_walk.c, which needs BPF; this file does not, so that its
 * checks are tested on the host, under the sanitizers too).
 *
 * An skb list is one walk of one queue, a sock_queue what a snapshot
 * carries of it; each protocol (tcp.c, udp.c, unix.c, as sockets.c
 * dispatches) builds the one from the other.  Every walk is checked
 * before its skbs are used: it saw the whole queue, and every skb whole.
 * Each protocol checks the walks against the socket's own accounting
 * before it uses them, so that a queue read short (the skb iterator
 * stops early when a clone cannot be made), or one that changed under
 * the walk, never ends up in a snapshot.  The counters are also compared
 * with those dump_sockets read before: if the socket moved on (data
 * arrived), it is read again.
 */
#include <stdlib.h>
#include <string.h>

#include "sockets.h"

const char *socket_queue_name(uint32_t queue)
{
	switch (queue) {
	case DUMP_QUEUE_RECEIVE: return "receive queue";
	case DUMP_QUEUE_WRITE: return "write queue";
	default: return "reader queue";
	}
}

void skb_list_free(struct skb_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i].bytes);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

/* The walk saw the whole queue, and every skb whole. */
int skb_list_check(struct dump_job *job, int fd, uint32_t queue, const struct skb_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].filled != l->items[i].size)
			return tool_fail(&job->err, 0, "the %s of fd %d was read short: skb %zu has %u of its %u bytes",
					 socket_queue_name(queue), fd, i, l->items[i].filled,
					 l->items[i].size);
	if (l->end.count != l->n)
		return tool_fail(&job->err, 0, "the %s of fd %d was read short: %zu skbs sent, %u walked",
				 socket_queue_name(queue), fd, l->n, l->end.count);
	return 0;
}

/* Append @len bytes to a stream queue (its one chunk). */
int sock_queue_add_bytes(struct sock_queue *q, const uint8_t *data, size_t len)
{
	struct sock_chunk *c;
	uint8_t *buf;

	q->stream = true;
	if (!len)
		return 0;
	if (!q->n && !array_push(q))
		return -1;
	c = &q->items[0];
	buf = realloc(c->data, c->len + len);
	if (!buf)
		return -1;
	memcpy(buf + c->len, data, len);
	c->data = buf;
	c->len += len;
	q->bytes += len;
	return 0;
}

int sock_queue_add_message(struct sock_queue *q, const uint8_t *data, size_t len,
			  struct sock_chunk **out)
{
	struct sock_chunk *c = array_push(q);

	if (!c)
		return -1;
	c->data = malloc(len ? len : 1);
	if (!c->data)
		return -1;
	memcpy(c->data, data, len);
	c->len = len;
	q->bytes += len;
	if (out)
		*out = c;
	return 0;
}

void sock_queue_free(struct sock_queue *q)
{
	for (size_t i = 0; i < q->n; i++)
		free(q->items[i].data);
	array_free(q);
	memset(q, 0, sizeof(*q));
}

void socket_queues_free(struct socket_entry *e)
{
	sock_queue_free(&e->recv);
	sock_queue_free(&e->send);
}
