// SPDX-License-Identifier: GPL-2.0
/*
 * UNIX sockets.  Descriptors in flight (SCM_RIGHTS) and out-of-band data
 * are refused.  The receive queue is a stream without the bytes already
 * read, or messages; a datagram comes with its sender's name, from a
 * second walk that must agree with the iterator's.  Names are a path up
 * to its NUL, or an abstract name whole.
 */
#include <string.h>
#include <sys/socket.h>

#include "sockets.h"

const char *unix_unsupported(const struct socket_entry *e)
{
	if (e->k.unix_nr_fds)
		return "descriptors in flight (SCM_RIGHTS) in its receive queue";
	if (e->k.unix_has_oob)
		return "out-of-band data (MSG_OOB)";
	return NULL;
}

/* A UNIX name: a path up to its NUL, an abstract name (leading NUL) whole. */
void unix_sockaddr(const struct dump_unix_addr *u, struct crib_sockaddr *a)
{
	size_t len = u->len;

	if (!len)
		return;
	if (u->path[0])
		len = strnlen((const char *)u->path, len);
	a->family = AF_UNIX;
	a->addr = (struct crib_blob){ .data = u->path, .len = len };
}

static int unix_data(struct dump_job *job, struct socket_entry *e, const struct skb_list *l)
{
	const struct skb_copy *s;
	struct sock_chunk *c;
	uint32_t skip;

	for (size_t i = 0; i < l->n; i++) {
		s = &l->items[i];
		if (s->k.has_fp)
			return tool_fail(&job->err, 0, "fd %d: a UNIX socket with descriptors in flight (SCM_RIGHTS) in its receive queue is not supported",
					 e->k.fd);
		if (e->kind == SOCKET_UNIX_STREAM) {
			skip = s->k.unix_consumed < s->k.len ? s->k.unix_consumed : s->k.len;
			if (sock_queue_add_bytes(&e->recv, s->bytes + s->k.headroom + skip, s->k.len - skip))
				return tool_fail(&job->err, 0, "out of memory");
			continue;
		}
		if (sock_queue_add_message(&e->recv, s->bytes + s->k.headroom, s->k.len, &c))
			return tool_fail(&job->err, 0, "out of memory");
		if (e->kind == SOCKET_UNIX_DGRAM && s->k.unix_src.len) {
			if (s->k.orig_len != s->k.len)
				return tool_fail(&job->err, 0, "fd %d: the senders of the datagrams queued changed during the dump",
						 e->k.fd);
			c->src_family = AF_UNIX;
			c->src_len = s->k.unix_src.len;
			/* a path up to its NUL, an abstract name whole */
			if (s->k.unix_src.path[0])
				c->src_len = strnlen((const char *)s->k.unix_src.path, c->src_len);
			memcpy(c->src_addr, s->k.unix_src.path, c->src_len);
		}
	}
	e->recv.stream = e->kind == SOCKET_UNIX_STREAM;
	return 0;
}

int unix_queues(struct dump_job *job, struct socket_entry *e, const struct skb_list *w)
{
	const struct skb_list *rl = &w[DUMP_QUEUE_RECEIVE];

	if (rl->end.qlen != rl->n || rl->n != e->k.receive_qlen)
		return 1;
	if (skb_list_check(job, e->k.fd, DUMP_QUEUE_RECEIVE, rl) || unix_data(job, e, rl))
		return -1;
	return 0;
}
