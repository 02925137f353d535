// SPDX-License-Identifier: GPL-2.0
/*
 * IP sockets other than TCP and UDP: ICMP echo ("ping"), UDP-Lite and raw
 * IP sockets.  dump_sockets reads them as any IP socket (addresses, the
 * socket and IP options; UDP-Lite as UDP, whose struct it shares); what it
 * does not read is read with getsockopt() on a copy of the descriptor
 * taken with pidfd_getfd(): UDP-Lite's checksum coverage, and a raw
 * socket's IP_HDRINCL (IPV6_HDRINCL), ICMP_FILTER, IPV6_CHECKSUM and
 * ICMPV6_FILTER.  A ping socket's local port is its echo identifier, a
 * raw socket's its protocol, as getsockname() gives them.
 *
 * Refused: anything queued, received or corked.  The UDP restore kfuncs
 * take UDP packets only, so a UDP-Lite datagram could not be queued
 * again; ping replies and raw packets have no restore path at all.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pidfd_getfd.h"
#include "sockets.h"

#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE		136
#endif
#define UDPLITE_SEND_CSCOV	10	/* <linux/udp.h>, which clashes with <netinet/udp.h> */
#define UDPLITE_RECV_CSCOV	11
#define SOL_RAW_LEVEL		255	/* SOL_RAW, <linux/socket.h> */
#define ICMP_FILTER_OPT		1	/* ICMP_FILTER, <linux/icmp.h>: a u32 of types */
#define ICMPV6_FILTER_OPT	1	/* ICMPV6_FILTER, <linux/icmpv6.h>: 256 bits */
#define IPV6_CHECKSUM_OPT	7
#define IPV6_HDRINCL_OPT	36

/* An option to read: level, name and the size of its value. */
struct opt_spec {
	int level, name;
	uint32_t len;
};

bool inet_dgram_is(const struct socket_entry *e)
{
	return e->kind == SOCKET_PING || e->kind == SOCKET_UDPLITE || e->kind == SOCKET_RAW;
}

const char *inet_dgram_name(const struct socket_entry *e)
{
	switch (e->kind) {
	case SOCKET_PING: return "ping";
	case SOCKET_UDPLITE: return "UDP-Lite";
	default: return "raw";
	}
}

const char *inet_dgram_unsupported(const struct socket_entry *e)
{
	if (e->kind == SOCKET_UDPLITE)
		return udp_unsupported(e);
	return NULL;
}

static int refuse_queued(struct dump_job *job, const struct socket_entry *e)
{
	const struct dump_socket_rec *k = &e->k;

	if (!k->receive_qlen && !k->reader_qlen && !k->write_qlen && !k->rmem_alloc &&
	    !k->udp_pending)
		return 0;
	return tool_fail(&job->err, 0, "process %d, fd %d: the %s socket has data queued "
			 "(%u packets received, %u bytes of receive buffer, %u packets to "
			 "send), which a restore could not queue again: that cannot be "
			 "restored", (int)job->pid, k->fd, inet_dgram_name(e),
			 k->receive_qlen + k->reader_qlen, k->rmem_alloc, k->write_qlen);
}

/* The options of @e's protocol that dump_sockets does not read; their count. */
static size_t options_to_read(const struct socket_entry *e, struct opt_spec *out)
{
	const struct dump_socket_rec *k = &e->k;
	size_t n = 0;

	if (e->kind == SOCKET_UDPLITE) {
		out[n++] = (struct opt_spec){ IPPROTO_UDPLITE, UDPLITE_SEND_CSCOV, sizeof(int) };
		out[n++] = (struct opt_spec){ IPPROTO_UDPLITE, UDPLITE_RECV_CSCOV, sizeof(int) };
	} else if (e->kind == SOCKET_RAW && k->family == AF_INET) {
		out[n++] = (struct opt_spec){ IPPROTO_IP, IP_HDRINCL, sizeof(int) };
		if (k->protocol == IPPROTO_ICMP)
			out[n++] = (struct opt_spec){ SOL_RAW_LEVEL, ICMP_FILTER_OPT, 4 };
	} else if (e->kind == SOCKET_RAW) {
		out[n++] = (struct opt_spec){ IPPROTO_IPV6, IPV6_HDRINCL_OPT, sizeof(int) };
		/* ICMPv6 always checksums, and refuses the option */
		if (k->protocol == IPPROTO_ICMPV6)
			out[n++] = (struct opt_spec){ IPPROTO_ICMPV6, ICMPV6_FILTER_OPT, 32 };
		else
			out[n++] = (struct opt_spec){ IPPROTO_IPV6, IPV6_CHECKSUM_OPT, sizeof(int) };
	}
	return n;
}

static int read_options(struct dump_job *job, struct socket_entry *e)
{
	struct opt_spec want[PROTO_OPTS_MAX];
	size_t n = options_to_read(e, want), i;
	struct proto_opt *o;
	socklen_t len;
	int sock, ret = 0;

	e->n_proto_opts = 0;
	if (!n)
		return 0;
	sock = pidfd_take_fd(job->pid, e->k.fd);
	if (sock < 0)
		return tool_fail(&job->err, errno, "process %d, fd %d: cannot take the %s socket "
				 "to read its options", (int)job->pid, e->k.fd, inet_dgram_name(e));
	for (i = 0; i < n && !ret; i++) {
		o = &e->proto_opts[e->n_proto_opts++];
		memset(o, 0, sizeof(*o));
		o->level = want[i].level;
		o->name = want[i].name;
		len = want[i].len;
		if (getsockopt(sock, o->level, o->name, o->value, &len))
			ret = -errno;
		else if (len != want[i].len)
			ret = -EPROTO;
		if (ret)
			ret = tool_fail(&job->err, -ret, "process %d, fd %d: "
					"cannot read option %d/%d of the %s socket",
					(int)job->pid, e->k.fd, o->level, o->name,
					inet_dgram_name(e));
		o->len = len;
	}
	close(sock);
	return ret;
}

int inet_dgram_read(struct dump_job *job, struct socket_entry *e)
{
	if (refuse_queued(job, e))
		return -1;
	return read_options(job, e);
}

void inet_dgram_options(struct socket_entry *e)
{
	size_t i;

	if (e->kind == SOCKET_UDPLITE)
		udp_options(e);
	for (i = 0; i < e->n_proto_opts; i++)
		sockopt_put(e, e->proto_opts[i].level, e->proto_opts[i].name,
			    e->proto_opts[i].value, e->proto_opts[i].len);
}
