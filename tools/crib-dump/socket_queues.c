// SPDX-License-Identifier: GPL-2.0
/*
 * Queued socket data, from the skbs socket_walk.c brought back.  They are
 * checked against the socket's own accounting before they are used, so
 * that a queue read short (the skb iterator stops early when a clone
 * cannot be made), or one that changed under the walk, never ends up in a
 * snapshot:
 *
 *   every queue  the skbs walked are as many as the queue holds after the
 *                walk, and each arrived whole;
 *   TCP          sequence numbers: the receive queue covers copied_seq to
 *                rcv_nxt and the write queue snd_nxt to write_seq, without
 *                a gap;
 *   UDP          the truesize of the skbs of both receive queues adds up to
 *                sk_rmem_alloc, less what UDP has yet to uncharge;
 *   UNIX         the walk for the senders' names agrees with the iterator.
 *
 * The counters are also compared with those dump_sockets read before: if
 * the socket moved on (data arrived), it is read again.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "kabi.h"
#include "sockets.h"

#define UDP_HEADER_LEN	8	/* struct udphdr */

const char *socket_queue_name(uint32_t queue)
{
	switch (queue) {
	case DUMP_QUEUE_RECEIVE: return "receive queue";
	case DUMP_QUEUE_WRITE: return "write queue";
	default: return "reader queue";
	}
}

/* The walk saw the whole queue, and every skb whole. */
static int check_walk(struct dump_job *job, int fd, uint32_t queue, const struct skb_list *l)
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
static int stream_append(struct sock_queue *q, const uint8_t *data, size_t len)
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

static int message_append(struct sock_queue *q, const uint8_t *data, size_t len,
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

static bool seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/*
 * The unread bytes of the TCP receive queue: from copied_seq to rcv_nxt,
 * a SYN or FIN taking one sequence number and no byte.
 */
static int tcp_recv_data(struct dump_job *job, struct socket_entry *e, const struct skb_list *l)
{
	uint32_t cur = e->k.copied_seq, start, syn, fin, skip;
	const struct skb_copy *s;

	for (size_t i = 0; i < l->n; i++) {
		s = &l->items[i];
		start = s->k.tcp_seq;
		syn = !!(s->k.tcp_flags & TCPHDR_SYN);
		fin = !!(s->k.tcp_flags & TCPHDR_FIN);
		if (s->k.tcp_end_seq != start + syn + s->k.len + fin || seq_after(start, cur) ||
		    !seq_after(s->k.tcp_end_seq, cur))
			return tool_fail(&job->err, 0, "fd %d: skb %zu of the TCP receive queue (%u-%u) does not follow sequence number %u",
					 e->k.fd, i, start, s->k.tcp_end_seq, cur);
		skip = cur - start > syn ? cur - start - syn : 0;
		if (skip < s->k.len &&
		    stream_append(&e->recv, s->bytes + s->k.headroom + skip, s->k.len - skip))
			return tool_fail(&job->err, 0, "out of memory");
		cur = s->k.tcp_end_seq;
	}
	e->recv.stream = true;
	if (cur != e->k.rcv_nxt)
		return tool_fail(&job->err, 0, "fd %d: the TCP receive queue was read short: it ends at sequence number %u, rcv_nxt is %u",
				 e->k.fd, cur, e->k.rcv_nxt);
	return 0;
}

/* The unsent bytes of the TCP write queue: from snd_nxt to write_seq. */
static int tcp_send_data(struct dump_job *job, struct socket_entry *e, const struct skb_list *l)
{
	uint32_t cur = e->k.snd_nxt, syn, fin;
	const struct skb_copy *s;

	for (size_t i = 0; i < l->n; i++) {
		s = &l->items[i];
		syn = !!(s->k.tcp_flags & TCPHDR_SYN);
		fin = !!(s->k.tcp_flags & TCPHDR_FIN);
		if (s->k.tcp_seq != cur || s->k.tcp_end_seq != cur + syn + s->k.len + fin)
			return tool_fail(&job->err, 0, "fd %d: skb %zu of the TCP write queue (%u-%u) does not follow sequence number %u",
					 e->k.fd, i, s->k.tcp_seq, s->k.tcp_end_seq, cur);
		if (stream_append(&e->send, s->bytes + s->k.headroom, s->k.len))
			return tool_fail(&job->err, 0, "out of memory");
		cur = s->k.tcp_end_seq;
	}
	e->send.stream = true;
	if (cur != e->k.write_seq)
		return tool_fail(&job->err, 0, "fd %d: the TCP write queue was read short: it ends at sequence number %u, write_seq is %u",
				 e->k.fd, cur, e->k.write_seq);
	return 0;
}

/* Did the socket move on since dump_sockets read it? */
static bool tcp_moved(const struct socket_entry *e, const struct dump_queue_end_rec *end)
{
	return end->copied_seq != e->k.copied_seq || end->rcv_nxt != e->k.rcv_nxt ||
	       end->snd_una != e->k.snd_una || end->snd_nxt != e->k.snd_nxt ||
	       end->write_seq != e->k.write_seq;
}

static int build_tcp(struct dump_job *job, struct socket_entry *e, const struct skb_list *w)
{
	const struct skb_list *rl = &w[DUMP_QUEUE_RECEIVE], *wl = &w[DUMP_QUEUE_WRITE];

	if (tcp_moved(e, &rl->end) || tcp_moved(e, &wl->end) || rl->end.qlen != rl->n ||
	    wl->end.qlen != wl->n)
		return 1;
	if (check_walk(job, e->k.fd, DUMP_QUEUE_RECEIVE, rl) ||
	    check_walk(job, e->k.fd, DUMP_QUEUE_WRITE, wl) ||
	    tcp_recv_data(job, e, rl) || tcp_send_data(job, e, wl))
		return -1;
	return 0;
}

/* The source of a received datagram, from its IP and UDP headers. */
static int udp_source(const struct skb_copy *s, struct sock_chunk *c)
{
	uint32_t nh = s->k.network_header, th = s->k.transport_header;
	uint16_t port;

	if (th + UDP_HEADER_LEN > s->size)
		return -1;
	memcpy(&port, s->bytes + th, 2);
	c->src_port = ntohs(port);
	switch (ntohs(s->k.protocol)) {
	case ETH_P_IP:
		if (nh + 20 > s->size)
			return -1;
		c->src_family = AF_INET;
		c->src_len = 4;
		memcpy(c->src_addr, s->bytes + nh + 12, 4);
		return 0;
	case ETH_P_IPV6:
		if (nh + 40 > s->size)
			return -1;
		c->src_family = AF_INET6;
		c->src_len = 16;
		memcpy(c->src_addr, s->bytes + nh + 8, 16);
		/* recvfrom() gives link-local sources their interface */
		if (c->src_addr[0] == 0xfe && (c->src_addr[1] & 0xc0) == 0x80)
			c->src_scope_id = (uint32_t)s->k.iif;
		return 0;
	default:
		return -1;
	}
}

static int udp_recv_data(struct dump_job *job, struct socket_entry *e, const struct skb_list *l)
{
	const struct skb_copy *s;
	struct sock_chunk *c;

	for (size_t i = 0; i < l->n; i++) {
		s = &l->items[i];
		if (message_append(&e->recv, s->bytes + s->k.headroom, s->k.len, &c))
			return tool_fail(&job->err, 0, "out of memory");
		if (udp_source(s, c))
			return tool_fail(&job->err, 0, "fd %d: a queued datagram has no IPv4 or IPv6 and UDP headers (protocol %#x)",
					 e->k.fd, ntohs(s->k.protocol));
	}
	return 0;
}

/*
 * A corked datagram: ip_append_data() left room for the IP header in every
 * skb and for the UDP header in the first, at the transport header.
 */
static int udp_send_data(struct dump_job *job, struct socket_entry *e, const struct skb_list *l)
{
	size_t total = 0, off, i;
	struct sock_chunk *c;
	uint8_t *buf;

	if (!l->n)
		return 0;
	if (e->k.udp_pending != AF_INET && e->k.udp_pending != AF_INET6)
		return tool_fail(&job->err, 0, "fd %d: the UDP write queue holds data but no datagram is pending",
				 e->k.fd);
	buf = malloc((size_t)e->k.udp_len + 1);
	if (!buf)
		return tool_fail(&job->err, 0, "out of memory");
	for (i = 0; i < l->n; i++) {
		const struct skb_copy *s = &l->items[i];

		off = s->k.transport_header + (i == 0 ? UDP_HEADER_LEN : 0);
		if (off > s->size || total + (s->size - off) + UDP_HEADER_LEN > e->k.udp_len)
			break;
		memcpy(buf + total, s->bytes + off, s->size - off);
		total += s->size - off;
	}
	if (i < l->n || total + UDP_HEADER_LEN != e->k.udp_len) {
		free(buf);
		return tool_fail(&job->err, 0, "fd %d: the corked UDP datagram was read short: %zu of %u bytes",
				 e->k.fd, total, e->k.udp_len - UDP_HEADER_LEN);
	}
	c = array_push(&e->send);
	if (!c) {
		free(buf);
		return tool_fail(&job->err, 0, "out of memory");
	}
	c->data = buf;
	c->len = total;
	e->send.bytes += total;
	/* a pending datagram's address is where it goes */
	c->src_family = (uint64_t)e->k.udp_pending;
	c->src_len = e->k.udp_pending == AF_INET ? 4 : 16;
	memcpy(c->src_addr, e->k.cork_daddr, c->src_len);
	c->src_port = ntohs(e->k.cork_dport);
	return 0;
}

static uint64_t truesize_sum(const struct skb_list *l)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < l->n; i++)
		sum += l->items[i].k.truesize;
	return sum;
}

static int build_udp(struct dump_job *job, struct socket_entry *e, const struct skb_list *w)
{
	const struct skb_list *reader = &w[DUMP_QUEUE_READER], *rl = &w[DUMP_QUEUE_RECEIVE];
	const struct skb_list *wl = &w[DUMP_QUEUE_WRITE];
	uint64_t charged;

	if (reader->end.qlen != reader->n || rl->end.qlen != rl->n || wl->end.qlen != wl->n ||
	    reader->n != e->k.reader_qlen || rl->n != e->k.receive_qlen ||
	    rl->end.rmem_alloc != e->k.rmem_alloc)
		return 1;
	if (check_walk(job, e->k.fd, DUMP_QUEUE_READER, reader) ||
	    check_walk(job, e->k.fd, DUMP_QUEUE_RECEIVE, rl) ||
	    check_walk(job, e->k.fd, DUMP_QUEUE_WRITE, wl))
		return -1;
	charged = truesize_sum(reader) + truesize_sum(rl) + (int64_t)rl->end.forward_deficit;
	if (charged != rl->end.rmem_alloc)
		return tool_fail(&job->err, 0, "the receive queues of fd %d were read short: their skbs account for %llu bytes, the socket for %u",
				 e->k.fd, (unsigned long long)charged, rl->end.rmem_alloc);
	/* recvmsg() reads the reader queue first */
	if (udp_recv_data(job, e, reader) || udp_recv_data(job, e, rl) ||
	    udp_send_data(job, e, wl))
		return -1;
	return 0;
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
			if (stream_append(&e->recv, s->bytes + s->k.headroom + skip, s->k.len - skip))
				return tool_fail(&job->err, 0, "out of memory");
			continue;
		}
		if (message_append(&e->recv, s->bytes + s->k.headroom, s->k.len, &c))
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

static int build_unix(struct dump_job *job, struct socket_entry *e, const struct skb_list *w)
{
	const struct skb_list *rl = &w[DUMP_QUEUE_RECEIVE];

	if (rl->end.qlen != rl->n || rl->n != e->k.receive_qlen)
		return 1;
	if (check_walk(job, e->k.fd, DUMP_QUEUE_RECEIVE, rl) || unix_data(job, e, rl))
		return -1;
	return 0;
}

static void sock_queue_free(struct sock_queue *q)
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


int socket_queues_build(struct dump_job *job, struct socket_entry *e, const struct skb_list *walks)
{
	int ret;

	socket_queues_free(e);
	if (e->k.state == CRIB_SK_LISTEN)
		return 0;
	switch (e->kind) {
	case SOCKET_TCP:
		ret = build_tcp(job, e, walks);
		break;
	case SOCKET_UDP:
		ret = build_udp(job, e, walks);
		break;
	default:
		ret = build_unix(job, e, walks);
		break;
	}
	if (ret)
		socket_queues_free(e);
	return ret;
}
