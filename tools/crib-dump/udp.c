// SPDX-License-Identifier: GPL-2.0
/*
 * UDP sockets.  A socket with encapsulation is refused.  Its receive
 * queues, the reader queue then the receive queue as recvmsg() reads
 * them, hold datagrams whose sources come from their IP and UDP headers;
 * they are checked by memory: the truesize of their skbs adds up to
 * sk_rmem_alloc, less what UDP has yet to uncharge.  A corked datagram
 * is the write queue, recorded with where it goes.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sockets.h"

#define UDP_HEADER_LEN	8	/* struct udphdr */

const char *udp_unsupported(const struct socket_entry *e)
{
	return e->k.encap_type ? "a UDP socket with encapsulation" : NULL;
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
		if (sock_queue_add_message(&e->recv, s->bytes + s->k.headroom, s->k.len, &c))
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

int udp_queues(struct dump_job *job, struct socket_entry *e, const struct skb_list *w)
{
	const struct skb_list *reader = &w[DUMP_QUEUE_READER], *rl = &w[DUMP_QUEUE_RECEIVE];
	const struct skb_list *wl = &w[DUMP_QUEUE_WRITE];
	uint64_t charged;

	if (reader->end.qlen != reader->n || rl->end.qlen != rl->n || wl->end.qlen != wl->n ||
	    reader->n != e->k.reader_qlen || rl->n != e->k.receive_qlen ||
	    rl->end.rmem_alloc != e->k.rmem_alloc)
		return 1;
	if (skb_list_check(job, e->k.fd, DUMP_QUEUE_READER, reader) ||
	    skb_list_check(job, e->k.fd, DUMP_QUEUE_RECEIVE, rl) ||
	    skb_list_check(job, e->k.fd, DUMP_QUEUE_WRITE, wl))
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

/* The UDP level, as udp_lib_getsockopt() (net/ipv4/udp.c) gives it. */
void udp_options(struct socket_entry *e)
{
	sockopt_put_int(e, IPPROTO_UDP, UDP_CORK, sock_bit(e, DUMP_UDP_CORK));
	sockopt_put_int(e, IPPROTO_UDP, UDP_SEGMENT, e->k.gso_size);
	sockopt_put_int(e, IPPROTO_UDP, UDP_GRO, sock_bit(e, DUMP_UDP_GRO));
}
