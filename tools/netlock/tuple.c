// SPDX-License-Identifier: GPL-2.0
/*
 * Connections as the network lock names them: from a live socket's
 * addresses, from a snapshot's socket record, and as nft text.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <crib/sockets.h>

#include "netlock.h"

bool netlock_state_connected(unsigned int tcp_state)
{
	switch (tcp_state) {
	case CRIB_SK_ESTABLISHED:
	case CRIB_SK_FIN_WAIT1:
	case CRIB_SK_FIN_WAIT2:
	case CRIB_SK_CLOSE_WAIT:
	case CRIB_SK_LAST_ACK:
	case CRIB_SK_CLOSING:
		return true;
	default:
		return false;
	}
}

static const uint8_t v4_mapped_prefix[12] = { [10] = 0xff, [11] = 0xff };

/* One end; an IPv4-mapped IPv6 address becomes IPv4, as on the wire. */
static int set_end(int family, const uint8_t *addr, uint16_t port, uint8_t *out_addr,
		   uint16_t *out_port, int *out_family)
{
	int f = family;

	memset(out_addr, 0, 16);
	if (family == AF_INET6 && !memcmp(addr, v4_mapped_prefix, sizeof(v4_mapped_prefix))) {
		f = AF_INET;
		addr += sizeof(v4_mapped_prefix);
	}
	if (f != AF_INET && f != AF_INET6)
		return -1;
	memcpy(out_addr, addr, f == AF_INET ? 4 : 16);
	*out_port = port;
	*out_family = f;
	return 0;
}

static int tuple_set(struct netlock_tuple *t, int family, const uint8_t *laddr, uint16_t lport,
		     const uint8_t *paddr, uint16_t pport)
{
	int lf, pf;

	if (set_end(family, laddr, lport, t->local_addr, &t->local_port, &lf) ||
	    set_end(family, paddr, pport, t->peer_addr, &t->peer_port, &pf) || lf != pf)
		return -1;
	t->family = lf;
	return 0;
}

int netlock_tuple_from_sockaddrs(const struct sockaddr *local, const struct sockaddr *peer,
				 struct netlock_tuple *t)
{
	const struct sockaddr_in6 *l6, *p6;
	const struct sockaddr_in *l4, *p4;

	if (local->sa_family != peer->sa_family)
		return -1;
	if (local->sa_family == AF_INET) {
		l4 = (const struct sockaddr_in *)local;
		p4 = (const struct sockaddr_in *)peer;
		return tuple_set(t, AF_INET, (const uint8_t *)&l4->sin_addr, ntohs(l4->sin_port),
				 (const uint8_t *)&p4->sin_addr, ntohs(p4->sin_port));
	}
	if (local->sa_family == AF_INET6) {
		l6 = (const struct sockaddr_in6 *)local;
		p6 = (const struct sockaddr_in6 *)peer;
		return tuple_set(t, AF_INET6, l6->sin6_addr.s6_addr, ntohs(l6->sin6_port),
				 p6->sin6_addr.s6_addr, ntohs(p6->sin6_port));
	}
	return -1;
}

int netlock_tuple_from_socket(const struct crib_socket *s, struct netlock_tuple *t)
{
	size_t len;

	if ((s->family != AF_INET && s->family != AF_INET6) || s->type != SOCK_STREAM ||
	    s->protocol != IPPROTO_TCP || !netlock_state_connected((unsigned int)s->state))
		return 0;
	len = s->family == AF_INET ? 4 : 16;
	if (s->local.family != s->family || s->peer.family != s->family ||
	    s->local.addr.len != len || s->peer.addr.len != len ||
	    s->local.port > 0xffff || s->peer.port > 0xffff)
		return -1;
	if (tuple_set(t, (int)s->family, s->local.addr.data, (uint16_t)s->local.port,
		      s->peer.addr.data, (uint16_t)s->peer.port))
		return -1;
	return 1;
}

void netlock_tuple_format(const struct netlock_tuple *t, char *buf, size_t size)
{
	char local[INET6_ADDRSTRLEN], peer[INET6_ADDRSTRLEN];

	if (!inet_ntop(t->family, t->local_addr, local, sizeof(local)) ||
	    !inet_ntop(t->family, t->peer_addr, peer, sizeof(peer))) {
		snprintf(buf, size, "(family %d)", t->family);
		return;
	}
	snprintf(buf, size, "%s . %u . %s . %u", local, t->local_port, peer, t->peer_port);
}
