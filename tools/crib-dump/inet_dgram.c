// SPDX-License-Identifier: GPL-2.0
/*
 * IP sockets other than TCP and UDP: ICMP echo ("ping") sockets and
 * UDP-Lite.  dump_sockets reads them as any IP socket (addresses, the
 * socket and IP options; UDP-Lite as UDP, whose struct it shares); what
 * it does not read, UDP-Lite's checksum coverage, is read through a copy
 * of the descriptor taken with pidfd_getfd().  A ping socket's local port
 * is its echo identifier, bound again as a port is.
 *
 * Refused: anything queued, received or corked.  The UDP restore kfuncs
 * take UDP packets only, so a UDP-Lite datagram could not be queued
 * again; ping replies have no restore path at all.
 */
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pidfd_getfd.h"
#include "sockets.h"

#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE		136
#endif
#define UDPLITE_SEND_CSCOV	10	/* <linux/udp.h>, which clashes with <netinet/udp.h> */
#define UDPLITE_RECV_CSCOV	11

bool inet_dgram_is(const struct socket_entry *e)
{
	return e->kind == SOCKET_PING || e->kind == SOCKET_UDPLITE;
}

const char *inet_dgram_name(const struct socket_entry *e)
{
	return e->kind == SOCKET_PING ? "ping" : "UDP-Lite";
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

static int read_coverage(struct dump_job *job, struct socket_entry *e)
{
	socklen_t len = sizeof(int);
	int sock, ret = 0;

	sock = pidfd_take_fd(job->pid, e->k.fd);
	if (sock < 0)
		return tool_fail(&job->err, errno, "process %d, fd %d: cannot take the UDP-Lite "
				 "socket to read its checksum coverage", (int)job->pid, e->k.fd);
	if (getsockopt(sock, IPPROTO_UDPLITE, UDPLITE_SEND_CSCOV, &e->udplite_send_cscov,
		       &len) ||
	    (len = sizeof(int),
	     getsockopt(sock, IPPROTO_UDPLITE, UDPLITE_RECV_CSCOV, &e->udplite_recv_cscov, &len)))
		ret = tool_fail(&job->err, errno, "process %d, fd %d: cannot read the UDP-Lite "
				"checksum coverage", (int)job->pid, e->k.fd);
	close(sock);
	return ret;
}

int inet_dgram_read(struct dump_job *job, struct socket_entry *e)
{
	if (refuse_queued(job, e))
		return -1;
	return e->kind == SOCKET_UDPLITE ? read_coverage(job, e) : 0;
}

void inet_dgram_options(struct socket_entry *e)
{
	if (e->kind != SOCKET_UDPLITE)
		return;
	udp_options(e);
	sockopt_put_int(e, IPPROTO_UDPLITE, UDPLITE_SEND_CSCOV, e->udplite_send_cscov);
	sockopt_put_int(e, IPPROTO_UDPLITE, UDPLITE_RECV_CSCOV, e->udplite_recv_cscov);
}
