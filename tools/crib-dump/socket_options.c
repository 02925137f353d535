// SPDX-License-Identifier: GPL-2.0
/*
 * Socket options, each as getsockopt(2) would return it, from what
 * dump_sockets read in the kernel's structures: the socket, IP and IPv6
 * levels here, each protocol's own level in its file (tcp.c, udp.c).
 * The conversions are the kernel's own (net/core/sock.c sk_getsockopt(),
 * ip_sockglue.c, ipv6_sockglue.c); the kernel keeps times in jiffies, so
 * they need its HZ.
 *
 * spec/format.md lists the options and when each is present.
 *
 * A socket's classic BPF filter (SO_ATTACH_FILTER) and its lock
 * (SO_LOCK_FILTER) go in a record of their own (spec, the socket_filter
 * record).  dump_sockets says whether a socket has a filter; its program
 * is read with getsockopt(SO_GET_FILTER) on a copy of the descriptor
 * taken with pidfd_getfd(), which gives the program as the process
 * attached it.  An extended BPF program (SO_ATTACH_BPF) has none to give,
 * and is refused.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/socket.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kabi.h"
#include "pidfd_getfd.h"
#include "sockets.h"

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD	76	/* Linux 6.5; newer than some libc headers */
#endif

void sockopt_put(struct socket_entry *e, int level, int name, const void *val, size_t len)
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

void sockopt_put_int(struct socket_entry *e, int level, int name, int val)
{
	sockopt_put(e, level, name, &val, sizeof(val));
}

bool sock_bit(const struct socket_entry *e, enum dump_sock_bit b)
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
	sockopt_put(e, SOL_SOCKET, name, &tv, sizeof(tv));
}

/*
 * SO_PEEK_OFF exists only where the family's ops have set_peek_off: UNIX,
 * TCP, UDP and UDP-Lite; on others (netlink, packet, raw IP, ping's raw socket ops)
 * getsockopt() fails with EOPNOTSUPP.
 */
static bool has_peek_off(const struct socket_entry *e)
{
	return e->kind != SOCKET_NETLINK && e->kind != SOCKET_PING && e->kind != SOCKET_RAW &&
	       e->kind != SOCKET_PACKET;
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
		.l_onoff = sock_bit(e, DUMP_SO_LINGER),
		.l_linger = (int)(k->lingertime / hz),
	};

	sockopt_put_int(e, SOL_SOCKET, SO_REUSEADDR, k->reuse);
	sockopt_put_int(e, SOL_SOCKET, SO_REUSEPORT, k->reuseport);
	sockopt_put_int(e, SOL_SOCKET, SO_KEEPALIVE, sock_bit(e, DUMP_SO_KEEPALIVE));
	sockopt_put_int(e, SOL_SOCKET, SO_BROADCAST, sock_bit(e, DUMP_SO_BROADCAST));
	sockopt_put_int(e, SOL_SOCKET, SO_DONTROUTE, sock_bit(e, DUMP_SO_DONTROUTE));
	sockopt_put_int(e, SOL_SOCKET, SO_OOBINLINE, sock_bit(e, DUMP_SO_OOBINLINE));
	sockopt_put(e, SOL_SOCKET, SO_LINGER, &ling, sizeof(ling));
	sockopt_put_int(e, SOL_SOCKET, SO_SNDBUF, k->sndbuf);
	sockopt_put_int(e, SOL_SOCKET, SO_RCVBUF, k->rcvbuf);
	sockopt_put_int(e, SOL_SOCKET, SO_BUF_LOCK, k->userlocks & SOCK_BUF_LOCK_MASK);
	sockopt_put_int(e, SOL_SOCKET, SO_RCVLOWAT, k->rcvlowat);
	put_timeout(e, SO_RCVTIMEO, k->rcvtimeo, hz);
	put_timeout(e, SO_SNDTIMEO, k->sndtimeo, hz);
	sockopt_put_int(e, SOL_SOCKET, SO_PRIORITY, (int)k->priority);
	sockopt_put_int(e, SOL_SOCKET, SO_MARK, (int)k->mark);
	sockopt_put_int(e, SOL_SOCKET, SO_PASSCRED, sock_bit(e, DUMP_SO_PASSCRED));
	sockopt_put_int(e, SOL_SOCKET, SO_TIMESTAMP, sock_bit(e, DUMP_SO_TIMESTAMP) &&
		!sock_bit(e, DUMP_SO_TSTAMP_NEW) && !sock_bit(e, DUMP_SO_TIMESTAMPNS));
	sockopt_put_int(e, SOL_SOCKET, SO_TIMESTAMPNS, sock_bit(e, DUMP_SO_TIMESTAMPNS) &&
		!sock_bit(e, DUMP_SO_TSTAMP_NEW));
	sockopt_put_int(e, SOL_SOCKET, SO_RXQ_OVFL, sock_bit(e, DUMP_SO_RXQ_OVFL));
	if (has_peek_off(e))
		sockopt_put_int(e, SOL_SOCKET, SO_PEEK_OFF, k->peek_off);
	sockopt_put_int(e, SOL_SOCKET, SO_BINDTOIFINDEX, k->bound_dev_if);
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		sockopt_put_int(e, SOL_SOCKET, flags[i].name, sock_bit(e, flags[i].bit));
	sockopt_put_int(e, SOL_SOCKET, SO_TXREHASH, k->txrehash);
	/* the 64-bit form, which getsockopt() gives a buffer that holds it */
	sockopt_put(e, SOL_SOCKET, SO_MAX_PACING_RATE, &k->max_pacing_rate,
		    sizeof(k->max_pacing_rate));
}

static void ip_level(struct socket_entry *e)
{
	const struct dump_socket_rec *k = &e->k;

	sockopt_put_int(e, IPPROTO_IP, IP_TOS, k->tos);
	sockopt_put_int(e, IPPROTO_IP, IP_TTL, k->uc_ttl < 0 ? k->ip_default_ttl : k->uc_ttl);
	sockopt_put_int(e, IPPROTO_IP, IP_MINTTL, k->min_ttl);
	sockopt_put_int(e, IPPROTO_IP, IP_MTU_DISCOVER, k->pmtudisc);
	sockopt_put_int(e, IPPROTO_IP, IP_MULTICAST_TTL, k->mc_ttl);
	sockopt_put_int(e, IPPROTO_IP, IP_MULTICAST_LOOP, sock_bit(e, DUMP_IP_MULTICAST_LOOP));
	sockopt_put_int(e, IPPROTO_IP, IP_PKTINFO, sock_bit(e, DUMP_IP_PKTINFO));
	sockopt_put_int(e, IPPROTO_IP, IP_RECVTTL, sock_bit(e, DUMP_IP_RECVTTL));
	sockopt_put_int(e, IPPROTO_IP, IP_RECVTOS, sock_bit(e, DUMP_IP_RECVTOS));
	sockopt_put_int(e, IPPROTO_IP, IP_RECVERR, sock_bit(e, DUMP_IP_RECVERR));
	sockopt_put_int(e, IPPROTO_IP, IP_RECVORIGDSTADDR, sock_bit(e, DUMP_IP_RECVORIGDSTADDR));
	sockopt_put_int(e, IPPROTO_IP, IP_FREEBIND, sock_bit(e, DUMP_IP_FREEBIND));
	sockopt_put_int(e, IPPROTO_IP, IP_TRANSPARENT, sock_bit(e, DUMP_IP_TRANSPARENT));
	sockopt_put_int(e, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT,
			sock_bit(e, DUMP_IP_BIND_ADDRESS_NO_PORT));
}

static void ipv6_level(struct socket_entry *e)
{
	const struct dump_socket_rec *k = &e->k;

	sockopt_put_int(e, IPPROTO_IPV6, IPV6_V6ONLY, k->ipv6only);
	sockopt_put_int(e, IPPROTO_IPV6, IPV6_TCLASS, k->tclass);
	/* unset (-1), getsockopt() answers with a route's default: not a setting */
	if (k->hop_limit >= 0)
		sockopt_put_int(e, IPPROTO_IPV6, IPV6_UNICAST_HOPS, k->hop_limit);
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
}

/* ---- the classic BPF filter (SO_ATTACH_FILTER) and its lock ---- */

#ifndef SO_GET_FILTER
#define SO_GET_FILTER	SO_ATTACH_FILTER
#endif

/* The program of @sock's filter into @e; errno EACCES for an extended one. */
static int get_program(int sock, struct socket_entry *e)
{
	socklen_t n = 0;

	if (getsockopt(sock, SOL_SOCKET, SO_GET_FILTER, NULL, &n))
		return -1;
	if (!n || n > BPF_MAXINSNS) {
		errno = n ? E2BIG : ENOENT;
		return -1;
	}
	e->filter = calloc(n, sizeof(*e->filter));
	if (!e->filter)
		return -1;
	e->n_filter = n;
	if (getsockopt(sock, SOL_SOCKET, SO_GET_FILTER, e->filter, &n) || n != e->n_filter) {
		errno = errno ? errno : EAGAIN;
		return -1;
	}
	return 0;
}

int socket_filter_read(struct dump_job *job, struct socket_entry *e)
{
	int fd = e->k.fd, sock, ret;

	e->filter_locked = e->k.bits & (1ull << DUMP_SO_LOCK_FILTER);
	if (!(e->k.bits & (1ull << DUMP_SO_FILTER)))
		return 0;
	sock = pidfd_take_fd(job->pid, fd);
	if (sock < 0)
		return tool_fail(&job->err, errno, "process %d, fd %d: cannot take the socket to "
				 "read its filter", (int)job->pid, fd);
	ret = get_program(sock, e);
	if (ret && errno == EACCES)
		tool_fail(&job->err, 0, "process %d, fd %d: the socket has an extended BPF "
			  "program (SO_ATTACH_BPF), which a snapshot does not carry: that cannot "
			  "be restored", (int)job->pid, fd);
	else if (ret)
		tool_fail(&job->err, errno, "process %d, fd %d: cannot read the socket's filter "
			  "(SO_GET_FILTER)", (int)job->pid, fd);
	close(sock);
	return ret ? -1 : 0;
}

int socket_filter_write(struct dump_job *job, const struct socket_entry *e)
{
	if (!e->n_filter && !e->filter_locked)
		return 0;
	if (crib_write_socket_filter(job->writer, &(struct crib_socket_filter) {
		.sock_id = e->k.ino,
		.insns = { .data = e->filter, .len = e->n_filter * sizeof(*e->filter) },
		.locked = e->filter_locked,
	}))
		return tool_fail(&job->err, 0, "writing the filter of fd %d: %s", e->k.fd,
				 crib_writer_error(job->writer)->msg);
	return 0;
}
