// SPDX-License-Identifier: GPL-2.0
/*
 * Socket facts the CRIB way: the dump_sockets program over every
 * descriptor of the process, its ring buffer drained, resumed where it
 * ran out of room, as crib-dump's socket_records.c runs it; each record then
 * put in the units procfs and getsockopt() use.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <bpf/libbpf.h>

#include "crib_libbpf.h"
#include "dump_sockets.h"
#include "dump_sockets.skel.h"
#include "sockfacts.h"

/* A struct sockaddr_in or sockaddr_in6 as the kernel filled it. */
static void inet_addr(const uint8_t *raw, uint8_t *addr, uint16_t *port)
{
	struct sockaddr_in6 in6;
	struct sockaddr_in in;

	memcpy(&in, raw, sizeof(in));
	if (in.sin_family == AF_INET) {
		memcpy(addr, &in.sin_addr, 4);
		*port = ntohs(in.sin_port);
		return;
	}
	memcpy(&in6, raw, sizeof(in6));
	if (in6.sin6_family == AF_INET6) {
		memcpy(addr, &in6.sin6_addr, 16);
		*port = ntohs(in6.sin6_port);
	}
}

static void set_opt(struct sock_fact *s, enum sockfact_opt o, int v)
{
	s->has_opt[o] = true;
	s->opt[o] = v;
}

static void convert_options(const struct dump_socket_rec *k, struct sock_fact *s)
{
	set_opt(s, SF_SO_RCVBUF, k->rcvbuf);
	set_opt(s, SF_SO_SNDBUF, k->sndbuf);
	set_opt(s, SF_SO_KEEPALIVE, (int)(k->bits >> DUMP_SO_KEEPALIVE) & 1);
	set_opt(s, SF_SO_REUSEADDR, k->reuse);
	set_opt(s, SF_SO_REUSEPORT, k->reuseport);
	set_opt(s, SF_SO_PRIORITY, (int)k->priority);
	set_opt(s, SF_SO_MARK, (int)k->mark);
	set_opt(s, SF_SO_RCVLOWAT, k->rcvlowat);
	if (k->family == AF_INET)
		set_opt(s, SF_IP_TOS, k->tos);
	if (k->family == AF_INET6)
		set_opt(s, SF_IPV6_V6ONLY, k->ipv6only);
	if (k->is_tcp) {
		set_opt(s, SF_TCP_NODELAY, (int)(k->bits >> DUMP_TCP_NODELAY) & 1);
		set_opt(s, SF_TCP_CORK, (int)(k->bits >> DUMP_TCP_CORK) & 1);
	}
}

static void convert_tcp(const struct dump_socket_rec *k, struct sock_fact *s)
{
	int32_t rx = (int32_t)(k->rcv_nxt - k->copied_seq);

	/* As /proc/net/tcp shows them (get_tcp4_sock()). */
	s->rx_queue = k->state == CRIB_SK_LISTEN ? k->ack_backlog : rx > 0 ? (uint32_t)rx : 0;
	s->tx_queue = k->write_seq - k->snd_una;
	if (k->state == CRIB_SK_LISTEN || k->state == CRIB_SK_CLOSE || k->state == CRIB_SK_SYN_SENT)
		return;
	s->write_seq = k->write_seq;
	s->rcv_nxt = k->rcv_nxt;
	s->snd_wl1 = k->snd_wl1;
	s->snd_wnd = k->snd_wnd;
	s->max_window = k->max_window;
	s->rcv_wnd = k->rcv_wnd;
	s->rcv_wup = k->rcv_wup;
	s->snd_wscale = k->snd_wscale;
	s->rcv_wscale = k->rcv_wscale;
	s->timestamps = k->tstamp_ok;
	s->sack = k->sack_ok;
	s->wscale = k->wscale_ok;
	s->inq = k->rcv_nxt - k->copied_seq;
	s->outq = k->write_seq - k->snd_una;
}

/* sk_wmem_alloc counts from 1 (the socket's own reference); procfs shows it less that. */
static uint32_t wmem_queued(const struct dump_socket_rec *k)
{
	return k->wmem_alloc ? k->wmem_alloc - 1 : 0;
}

static void convert(const struct dump_socket_rec *k, struct sock_fact *s)
{
	s->fd = k->fd;
	s->ino = k->ino;
	s->family = k->family;
	s->type = k->type;
	s->state = k->state;
	convert_options(k, s);
	if (k->family == AF_UNIX) {
		s->name_len = k->unix_local.len < SOCKFACT_NAME_LEN ? k->unix_local.len :
								     SOCKFACT_NAME_LEN;
		memcpy(s->name, k->unix_local.path, s->name_len);
		s->peer_ino = k->peer_ino;
		if (k->state == CRIB_SK_LISTEN) {
			s->rx_queue = k->receive_qlen;
			s->tx_queue = k->max_ack_backlog;
		} else {
			s->tx_queue = wmem_queued(k);
		}
		return;
	}
	inet_addr(k->local_inet, s->local_addr, &s->local_port);
	inet_addr(k->peer_inet, s->peer_addr, &s->peer_port);
	if (k->is_tcp) {
		convert_tcp(k, s);
	} else {
		s->rx_queue = k->rmem_alloc - (uint32_t)k->forward_deficit;
		s->tx_queue = wmem_queued(k);
	}
}

int crib_sock_facts_read(struct dump_job *job, struct sock_facts *f)
{
	struct record_list recs = { .kind = DUMP_REC_SOCKET,
				    .size = sizeof(struct dump_socket_rec) };
	struct sock_fact *s;
	int ret = -1;

	memset(f, 0, sizeof(*f));
	if (sockets_collect(job, dump_target(job), job->pid, -1, &recs))
		goto out;
	for (size_t i = 0; i < recs.n; i++) {
		s = sock_facts_add(f);
		if (!s) {
			tool_fail(&job->err, 0, "out of memory");
			goto out;
		}
		convert((const struct dump_socket_rec *)recs.items + i, s);
	}
	ret = 0;
out:
	record_list_free(&recs);
	return ret;
}
