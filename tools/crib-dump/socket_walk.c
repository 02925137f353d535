// SPDX-License-Identifier: GPL-2.0
/*
 * Walking a socket queue with the dump_socket_queue CRIB program: a
 * record per skb, then its bytes from skb->head.  A walk cut short by a
 * full ring buffer resumes at the first skb that did not arrive whole.
 * Each protocol (tcp.c, udp.c, unix.c) checks and assembles what the
 * walks brought back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "crib_libbpf.h"
#include "dump_sockets.skel.h"
#include "sockets.h"

/* Larger than any skb a socket queues (64 KiB GSO, a UNIX datagram of sk_sndbuf). */
#define SKB_BYTES_MAX	(16u << 20)

static int malformed(struct skb_list *l, const char *why)
{
	l->bad = why;
	return -EINVAL;
}

static void skb_list_drop_last(struct skb_list *l)
{
	free(l->items[l->n - 1].bytes);
	l->n--;
}

static int add_skb(struct skb_list *l, const struct dump_skb_rec *k)
{
	struct skb_copy *s;

	if (k->idx != l->n)
		return malformed(l, "an skb out of order");
	if ((uint64_t)k->headroom + k->len > SKB_BYTES_MAX)
		return malformed(l, "an skb larger than 16 MiB");
	s = array_push(l);
	if (!s)
		return -ENOMEM;
	s->k = *k;
	s->size = k->headroom + k->len;
	s->bytes = malloc(s->size ? s->size : 1);
	if (!s->bytes) {
		l->n--;
		return -ENOMEM;
	}
	return 0;
}

static int add_skb_data(struct skb_list *l, const struct dump_skb_data_rec *d)
{
	struct skb_copy *s = l->n ? &l->items[l->n - 1] : NULL;

	if (!s || d->idx != s->k.idx || d->offset != s->filled || d->len > DUMP_SKB_CHUNK ||
	    d->len > s->size - s->filled)
		return malformed(l, "skb data out of place");
	memcpy(s->bytes + s->filled, d->buf, d->len);
	s->filled += d->len;
	return 0;
}

static int on_queue_record(void *data, void *rec, size_t size)
{
	struct skb_list *l = data;
	uint32_t kind = size >= 4 ? *(uint32_t *)rec : 0;

	if (kind == DUMP_REC_SKB && size == sizeof(struct dump_skb_rec))
		return add_skb(l, rec);
	if (kind == DUMP_REC_SKB_DATA && size == sizeof(struct dump_skb_data_rec))
		return add_skb_data(l, rec);
	if (kind == DUMP_REC_QUEUE_END && size == sizeof(struct dump_queue_end_rec) && !l->ended) {
		memcpy(&l->end, rec, sizeof(l->end));
		l->ended = true;
		return 0;
	}
	return malformed(l, "a malformed record");
}

/* One run of dump_socket_queue; returns its result or -1. */
static int run_queue_program(struct dump_job *job, struct ring_buffer *rb,
			     const struct dump_queue_ctx *ctx, struct skb_list *l)
{
	int ret, retval;

	ret = crib_prog_fd_run_target(job->progs.socket_queue.fd, ctx, sizeof(*ctx), &retval);
	if (ret)
		return tool_fail(&job->err, -ret, "running dump_socket_queue failed");
	ret = ring_buffer__consume(rb);
	if (ret < 0)
		return tool_fail(&job->err, 0, "reading the %s of fd %d: %s",
				 socket_queue_name(ctx->queue), ctx->fd,
				 l->bad ? l->bad : strerror(-ret));
	return retval;
}

int socket_walk_queue(struct dump_job *job, int fd, uint32_t queue, bool unix_src,
			 struct skb_list *l)
{
	struct dump_queue_ctx ctx = {
		.target = dump_target(job), .pid = job->pid, .fd = fd, .queue = queue,
		.unix_src = unix_src,
	};
	struct ring_buffer *rb;
	size_t before;
	int ret;

	rb = ring_buffer__new(job->progs.queue_records,
			      on_queue_record, l, NULL);
	if (!rb)
		return tool_fail(&job->err, errno, "cannot open the ring buffer of dump_socket_queue");
	for (;;) {
		before = l->n;
		ctx.start = l->n;
		ret = run_queue_program(job, rb, &ctx, l);
		if (ret < 0)
			break;
		if (ret == DUMP_OK && l->ended) {
			ret = 0;
			break;
		}
		if (ret == DUMP_NO_ROOM) {
			/* The last skb may have come without all its bytes. */
			if (l->n && l->items[l->n - 1].filled < l->items[l->n - 1].size)
				skb_list_drop_last(l);
			if (l->n > before)
				continue;
			ret = tool_fail(&job->err, 0, "an skb in the %s of fd %d does not fit in the ring buffer",
					socket_queue_name(queue), fd);
			break;
		}
		if (ret == DUMP_NO_TASK)
			ret = tool_fail(&job->err, 0, "no process with pid %d", (int)job->pid);
		else if (ret == DUMP_NO_SOCKET)
			ret = tool_fail(&job->err, 0, "fd %d is no longer a socket", fd);
		else
			ret = tool_fail(&job->err, 0, "dump_socket_queue failed on the %s of fd %d (result %d)",
					socket_queue_name(queue), fd, ret);
		break;
	}
	ring_buffer__free(rb);
	return ret;
}

/* The queues each kind of socket has data in. */
static bool queue_used(const struct socket_entry *e, uint32_t queue)
{
	/* a listener queues connections, not data (refused if any) */
	if (e->k.state == CRIB_SK_LISTEN)
		return false;
	switch (e->kind) {
	case SOCKET_TCP:
		return queue != DUMP_QUEUE_READER;
	case SOCKET_UDP:
		return true;
	default:
		return queue == DUMP_QUEUE_RECEIVE;
	}
}

int socket_queues_walk(struct dump_job *job, const struct socket_entry *e,
		       struct skb_list walks[DUMP_NR_QUEUES])
{
	uint32_t q;

	for (q = 0; q < DUMP_NR_QUEUES; q++) {
		walks[q].used = queue_used(e, q);
		if (walks[q].used &&
		    socket_walk_queue(job, e->k.fd, q, e->kind == SOCKET_UNIX_DGRAM, &walks[q]))
			return -1;
	}
	return 0;
}

void socket_walks_free(struct skb_list walks[DUMP_NR_QUEUES])
{
	uint32_t q;

	for (q = 0; q < DUMP_NR_QUEUES; q++)
		skb_list_free(&walks[q]);
}
