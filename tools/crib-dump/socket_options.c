// SPDX-License-Identifier: GPL-2.0
/*
 * Socket options, each as getsockopt(2) would return it, from what
 * dump_sockets read in the kernel's structures.  The conversions are the
 * kernel's own (net/core/sock.c sk_getsockopt(), net/ipv4/tcp.c
 * do_tcp_getsockopt(), ip_sockglue.c, ipv6_sockglue.c, udp.c); the kernel
 * keeps times in jiffies, so they need its HZ.
 *
 * spec/format.md lists the options and when each is present.
 */
#include <linux/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/socket.h>

#include "kabi.h"
#include "sockets.h"

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD	76	/* Linux 6.5; newer than some libc headers */
#endif

static void put(struct socket_entry *e, int level, int name, const void *val, size_t len)
{
	struct crib_sockopt *o;

	/* The lists below fit by construction; never write past them. */
	if (e->n_opts == SOCKOPT_MAX || len > SOCKOPT_BUF - e->optval_used)
		return;
	o = &e->opts[e->n_opts++];
	memcpy(e->optval + e->optval_used, val, len);
	o->level = (uint64_t)level;
	o->name = (uint64_t)name;
	o->value = (struct crib_blob){ .data = e->optval + e->optval_used, .len = len };
	e->optval_used += len;
}

static void put_int(struct socket_entry *e, int level, int name, int val)
{
	put(e, level, name, &val, sizeof(val));
}

static bool bit(const struct socket_entry *e, enum dump_sock_bit b)
{
	return (e->k.bits >> b) & 1;
}

/* sock_get_timeout(): whole seconds and microseconds, 0 for "never". */
static void put_timeout(struct socket_entry *e, int name, uint64_t timeo, unsigned int hz)
{
	struct { long tv_sec, tv_usec; } tv = { 0, 0 };

	if (timeo != MAX_SCHEDULE_TIMEOUT) {
		tv.tv_sec = (long)(timeo / hz);
		tv.tv_usec = (long)((timeo % hz) * 1000000 / hz);
	}
	put(e, SOL_SOCKET, name, &tv, sizeof(tv));
}

/* net/ipv4/tcp.c retrans_to_secs() with TCP_TIMEOUT_INIT of 1 s. */
static int retrans_to_secs(unsigned int retrans)
{
	int timeout = 1, period = 0;

	if (retrans > 0) {
		period = timeout;
		while (--retrans) {
			timeout <<= 1;
			if (timeout > TCP_RTO_MAX_SECS)
				timeout = TCP_RTO_MAX_SECS;
			period += timeout;
		}
	}
	return period;
}

static void socket_level(struct socket_entry *e, unsigned int hz)
{
	/* on or off, each from its bit (format 1.7) */
	static const struct { int name; enum dump_sock_bit bit; } flags[] = {
		{ SO_DEBUG, DUMP_SO_DEBUG }, { SO_NO_CHECK, DUMP_SO_NO_CHECK },
		{ SO_PASSSEC, DUMP_SO_PASSSEC }, { SO_PASSPIDFD, DUMP_SO_PASSPIDFD },
		{ SO_WIFI_STATUS, DUMP_SO_WIFI_STATUS }, { SO_NOFCS, DUMP_SO_NOFCS },
		{ SO_SELECT_ERR_QUEUE, DUMP_SO_SELECT_ERR_QUEUE }, { SO_RCVMARK, DUMP_SO_RCVMARK },
	};
	const struct dump_socket_rec *k = &e->k;
	size_t i;
	struct linger ling = {
		.l_onoff = bit(e, DUMP_SO_LINGER),
		.l_linger = (int)(k->lingertime / hz),
	};

	put_int(e, SOL_SOCKET, SO_REUSEADDR, k->reuse);
	put_int(e, SOL_SOCKET, SO_REUSEPORT, k->reuseport);
	put_int(e, SOL_SOCKET, SO_KEEPALIVE, bit(e, DUMP_SO_KEEPALIVE));
	put_int(e, SOL_SOCKET, SO_BROADCAST, bit(e, DUMP_SO_BROADCAST));
	put_int(e, SOL_SOCKET, SO_DONTROUTE, bit(e, DUMP_SO_DONTROUTE));
	put_int(e, SOL_SOCKET, SO_OOBINLINE, bit(e, DUMP_SO_OOBINLINE));
	put(e, SOL_SOCKET, SO_LINGER, &ling, sizeof(ling));
	put_int(e, SOL_SOCKET, SO_SNDBUF, k->sndbuf);
	put_int(e, SOL_SOCKET, SO_RCVBUF, k->rcvbuf);
	put_int(e, SOL_SOCKET, SO_BUF_LOCK, k->userlocks & SOCK_BUF_LOCK_MASK);
	put_int(e, SOL_SOCKET, SO_RCVLOWAT, k->rcvlowat);
	put_timeout(e, SO_RCVTIMEO, k->rcvtimeo, hz);
	put_timeout(e, SO_SNDTIMEO, k->sndtimeo, hz);
	put_int(e, SOL_SOCKET, SO_PRIORITY, (int)k->priority);
	put_int(e, SOL_SOCKET, SO_MARK, (int)k->mark);
	put_int(e, SOL_SOCKET, SO_PASSCRED, bit(e, DUMP_SO_PASSCRED));
	put_int(e, SOL_SOCKET, SO_TIMESTAMP, bit(e, DUMP_SO_TIMESTAMP) &&
		!bit(e, DUMP_SO_TSTAMP_NEW) && !bit(e, DUMP_SO_TIMESTAMPNS));
	put_int(e, SOL_SOCKET, SO_TIMESTAMPNS, bit(e, DUMP_SO_TIMESTAMPNS) &&
		!bit(e, DUMP_SO_TSTAMP_NEW));
	put_int(e, SOL_SOCKET, SO_RXQ_OVFL, bit(e, DUMP_SO_RXQ_OVFL));
	put_int(e, SOL_SOCKET, SO_PEEK_OFF, k->peek_off);
	put_int(e, SOL_SOCKET, SO_BINDTOIFINDEX, k->bound_dev_if);
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		put_int(e, SOL_SOCKET, flags[i].name, bit(e, flags[i].bit));
	put_int(e, SOL_SOCKET, SO_TXREHASH, k->txrehash);
	/* the 64-bit form, which getsockopt() gives a buffer that holds it */
	put(e, SOL_SOCKET, SO_MAX_PACING_RATE, &k->max_pacing_rate, sizeof(k->max_pacing_rate));
}

static void ip_level(struct socket_entry *e)
{
	const struct dump_socket_rec *k = &e->k;

	put_int(e, IPPROTO_IP, IP_TOS, k->tos);
	put_int(e, IPPROTO_IP, IP_TTL, k->uc_ttl < 0 ? k->ip_default_ttl : k->uc_ttl);
	put_int(e, IPPROTO_IP, IP_MINTTL, k->min_ttl);
	put_int(e, IPPROTO_IP, IP_MTU_DISCOVER, k->pmtudisc);
	put_int(e, IPPROTO_IP, IP_MULTICAST_TTL, k->mc_ttl);
	put_int(e, IPPROTO_IP, IP_MULTICAST_LOOP, bit(e, DUMP_IP_MULTICAST_LOOP));
	put_int(e, IPPROTO_IP, IP_PKTINFO, bit(e, DUMP_IP_PKTINFO));
	put_int(e, IPPROTO_IP, IP_RECVTTL, bit(e, DUMP_IP_RECVTTL));
	put_int(e, IPPROTO_IP, IP_RECVTOS, bit(e, DUMP_IP_RECVTOS));
	put_int(e, IPPROTO_IP, IP_RECVERR, bit(e, DUMP_IP_RECVERR));
	put_int(e, IPPROTO_IP, IP_RECVORIGDSTADDR, bit(e, DUMP_IP_RECVORIGDSTADDR));
	put_int(e, IPPROTO_IP, IP_FREEBIND, bit(e, DUMP_IP_FREEBIND));
	put_int(e, IPPROTO_IP, IP_TRANSPARENT, bit(e, DUMP_IP_TRANSPARENT));
	put_int(e, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, bit(e, DUMP_IP_BIND_ADDRESS_NO_PORT));
}

static void ipv6_level(struct socket_entry *e)
{
	const struct dump_socket_rec *k = &e->k;

	put_int(e, IPPROTO_IPV6, IPV6_V6ONLY, k->ipv6only);
	put_int(e, IPPROTO_IPV6, IPV6_TCLASS, k->tclass);
	/* unset (-1), getsockopt() answers with a route's default: not a setting */
	if (k->hop_limit >= 0)
		put_int(e, IPPROTO_IPV6, IPV6_UNICAST_HOPS, k->hop_limit);
}

static void tcp_level(struct socket_entry *e, unsigned int hz)
{
	const struct dump_socket_rec *k = &e->k;

	put_int(e, IPPROTO_TCP, TCP_NODELAY, bit(e, DUMP_TCP_NODELAY));
	put_int(e, IPPROTO_TCP, TCP_CORK, bit(e, DUMP_TCP_CORK));
	/* the MSS the process asked for, not the one in use */
	if (k->user_mss)
		put_int(e, IPPROTO_TCP, TCP_MAXSEG, k->user_mss);
	put_int(e, IPPROTO_TCP, TCP_KEEPIDLE, (int)(k->keepalive_time / hz));
	put_int(e, IPPROTO_TCP, TCP_KEEPINTVL, (int)(k->keepalive_intvl / hz));
	put_int(e, IPPROTO_TCP, TCP_KEEPCNT, k->keepalive_probes);
	put_int(e, IPPROTO_TCP, TCP_SYNCNT, k->syn_retries);
	put_int(e, IPPROTO_TCP, TCP_LINGER2, k->linger2 < 0 ? k->linger2 : k->linger2 / (int)hz);
	put_int(e, IPPROTO_TCP, TCP_DEFER_ACCEPT, retrans_to_secs(k->defer_accept));
	put_int(e, IPPROTO_TCP, TCP_USER_TIMEOUT, (int)k->user_timeout);
	put_int(e, IPPROTO_TCP, TCP_NOTSENT_LOWAT, (int)k->notsent_lowat);
	put_int(e, IPPROTO_TCP, TCP_THIN_LINEAR_TIMEOUTS, k->thin_lto);
	put(e, IPPROTO_TCP, TCP_CONGESTION, k->ca_name, sizeof(k->ca_name));
	put_int(e, IPPROTO_TCP, TCP_WINDOW_CLAMP, (int)k->window_clamp);
}

static void udp_level(struct socket_entry *e)
{
	put_int(e, IPPROTO_UDP, UDP_CORK, bit(e, DUMP_UDP_CORK));
	put_int(e, IPPROTO_UDP, UDP_SEGMENT, e->k.gso_size);
	put_int(e, IPPROTO_UDP, UDP_GRO, bit(e, DUMP_UDP_GRO));
}

void socket_options_build(struct socket_entry *e, unsigned int hz)
{
	e->n_opts = 0;
	e->optval_used = 0;
	socket_level(e, hz);
	if (e->k.family == AF_INET)
		ip_level(e);
	else if (e->k.family == AF_INET6)
		ipv6_level(e);
	if (e->kind == SOCKET_TCP)
		tcp_level(e, hz);
	else if (e->kind == SOCKET_UDP)
		udp_level(e);
}
