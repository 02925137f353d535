// SPDX-License-Identifier: GPL-2.0
/*
 * Socket and socket_queue records into the restore tree: each socket
 * with its addresses and options copied out of the record, and the data
 * of its queues gathered from the records that carry it, in order; and
 * the tree's sockets looked up, by descriptor or socket, and an option's
 * recorded value.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "plan.h"
#include "socket_plan.h"

bool plan_sockopt_int(const struct plan_socket *ps, int level, int name, int *val)
{
	size_t i;

	for (i = 0; i < ps->s.n_options; i++) {
		const struct crib_sockopt *o = &ps->s.options[i];

		if ((int)o->level == level && (int)o->name == name && o->value.len >= sizeof(int)) {
			memcpy(val, o->value.data, sizeof(int));
			return true;
		}
	}
	return false;
}

static int copy_addr(struct plan_addr *out, const struct crib_sockaddr *in)
{
	/* a netlink port id is 32 bits, an IP port 16 */
	uint64_t port_max = in->family == AF_NETLINK ? UINT32_MAX : 0xffff;

	memset(out, 0, sizeof(*out));
	if (!in->family)
		return 0;
	if (in->addr.len > sizeof(out->addr) || in->port > port_max || in->group > UINT32_MAX)
		return -1;
	out->family = in->family;
	memcpy(out->addr, in->addr.data, in->addr.len);
	out->len = in->addr.len;
	out->port = (uint32_t)in->port;
	out->group = (uint32_t)in->group;
	out->flowinfo = (uint32_t)in->flowinfo;
	out->scope_id = (uint32_t)in->scope_id;
	return 0;
}

static int copy_options(struct plan_socket *ps, const struct crib_socket *s)
{
	size_t i, total = 0, used = 0;

	for (i = 0; i < s->n_options; i++)
		total += s->options[i].value.len;
	ps->options = calloc(s->n_options + 1, sizeof(*ps->options));
	ps->opt_values = malloc(total + 1);
	if (!ps->options || !ps->opt_values)
		return -1;
	for (i = 0; i < s->n_options; i++) {
		ps->options[i] = s->options[i];
		memcpy(ps->opt_values + used, s->options[i].value.data, s->options[i].value.len);
		ps->options[i].value.data = ps->opt_values + used;
		used += s->options[i].value.len;
	}
	ps->s.options = ps->options;
	return 0;
}

int plan_take_socket(struct restore_tree *tree, struct restore_plan *owner,
		     const struct crib_socket *s, struct tool_error *err)
{
	struct plan_socket *ps;

	if (plan_find_socket_fd(tree, owner, s->fd))
		return tool_fail(err, 0, "fd %llu has two socket records", (unsigned long long)s->fd);
	ps = array_push(&tree->sockets);
	if (!ps)
		return tool_fail(err, 0, "out of memory");
	ps->owner = owner;
	ps->s = *s;
	ps->s.options = NULL;
	ps->s.local = ps->s.peer = (struct crib_sockaddr){ 0 };
	if (copy_addr(&ps->local, &s->local) || copy_addr(&ps->peer, &s->peer))
		return tool_fail(err, 0, "fd %llu: a socket address out of range",
				 (unsigned long long)s->fd);
	if (copy_options(ps, s))
		return tool_fail(err, 0, "out of memory");
	return 0;
}

static int append_chunk(struct plan_queue *q, const struct crib_sock_chunk *c, bool stream)
{
	struct plan_chunk *pc;
	unsigned char *buf;

	/* A stream queue is one run of bytes, however many records carry it. */
	if (stream && q->n) {
		pc = &q->items[0];
		buf = realloc(pc->data, pc->len + c->data.len + 1);
		if (!buf)
			return -1;
		memcpy(buf + pc->len, c->data.data, c->data.len);
		pc->data = buf;
		pc->len += c->data.len;
		q->bytes += c->data.len;
		return 0;
	}
	pc = array_push(q);
	if (!pc)
		return -1;
	pc->data = malloc(c->data.len + 1);
	if (!pc->data) {
		q->n--;
		return -1;
	}
	memcpy(pc->data, c->data.data, c->data.len);
	pc->len = c->data.len;
	q->bytes += c->data.len;
	return copy_addr(&pc->src, &c->src);
}

int plan_take_socket_queue(struct restore_tree *tree, const struct crib_socket_queue *q,
			   struct tool_error *err)
{
	struct plan_socket *ps = plan_find_socket_id(tree, q->sock_id);
	struct plan_queue *pq;
	bool stream;
	size_t i;

	if (!ps)
		return tool_fail(err, 0, "queued data for socket %llu, which no descriptor holds",
				 (unsigned long long)q->sock_id);
	if (q->queue != CRIB_QUEUE_RECV && q->queue != CRIB_QUEUE_SEND)
		return tool_fail(err, 0, "fd %llu: unknown socket queue %llu",
				 (unsigned long long)ps->s.fd, (unsigned long long)q->queue);
	pq = q->queue == CRIB_QUEUE_RECV ? &ps->recv : &ps->send;
	if (q->seq != pq->next_seq)
		return tool_fail(err, 0, "fd %llu: socket queue record %llu, expected %llu",
				 (unsigned long long)ps->s.fd, (unsigned long long)q->seq,
				 (unsigned long long)pq->next_seq);
	pq->next_seq++;
	stream = ps->s.type == SOCK_STREAM;
	for (i = 0; i < q->n_chunks; i++)
		if (append_chunk(pq, &q->chunks[i], stream))
			return tool_fail(err, 0, "fd %llu: a queued message is out of range or "
					 "memory is short", (unsigned long long)ps->s.fd);
	return 0;
}

static void free_queue(struct plan_queue *q)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		free(q->items[i].data);
	array_free(q);
}

void plan_free_sockets(struct restore_tree *tree)
{
	size_t i;

	for (i = 0; i < tree->sockets.n; i++) {
		free(tree->sockets.items[i].options);
		free(tree->sockets.items[i].opt_values);
		free_queue(&tree->sockets.items[i].recv);
		free_queue(&tree->sockets.items[i].send);
		free(tree->sockets.items[i].filter);
	}
	array_free(&tree->sockets);
}
