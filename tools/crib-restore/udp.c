// SPDX-License-Identifier: GPL-2.0
/*
 * UDP sockets: options (IPV6_V6ONLY among them, before the bind) and the
 * local address; then the receive queue, through the CRIB program
 * (udp_queue.c); then the peer of a connected socket, and a pending
 * datagram, sent again corked so it stays pending: with UDP_CORK on when
 * the process had it on, with MSG_MORE otherwise.  The queue comes before
 * the peer because the kernel takes a restored packet only from where the
 * socket would take one, and a connected socket keeps what other senders
 * queued before it connected.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "socket_ops.h"
#include "socket_options.h"
#include "socket_plan.h"
#include "udp.h"
#include "udp_queue.h"

/* The largest payload a packet of @family carries: its length fields are 16 bits. */
static size_t udp_max_payload(uint64_t family)
{
	return family == AF_INET ? 65535 - 20 - 8 : 65535 - 8;
}

int udp_check(const struct restore_tree *tree, const struct plan_socket *ps,
	      struct tool_error *err)
{
	unsigned long long fd = (unsigned long long)ps->s.fd;
	int v6only = 0;
	size_t i;

	(void)tree;
	if (ps->s.state != CRIB_SK_CLOSE && ps->s.state != CRIB_SK_ESTABLISHED)
		return tool_fail(err, 0, "fd %llu (%s): state %llu is not a UDP socket's", fd,
				 socket_kind_name(&ps->s), (unsigned long long)ps->s.state);
	if (ps->s.state == CRIB_SK_ESTABLISHED && !ps->peer.family)
		return tool_fail(err, 0, "fd %llu (%s): connected, but to no address", fd,
				 socket_kind_name(&ps->s));
	if (ps->send.n > 1)
		return tool_fail(err, 0, "fd %llu (%s): %zu pending datagrams; a UDP socket "
				 "holds one", fd, socket_kind_name(&ps->s), ps->send.n);
	if (ps->send.n && !ps->send.items[0].src.family)
		return tool_fail(err, 0, "fd %llu (%s): the pending datagram has no destination",
				 fd, socket_kind_name(&ps->s));
	plan_sockopt_int(ps, IPPROTO_IPV6, IPV6_V6ONLY, &v6only);
	for (i = 0; i < ps->recv.n; i++) {
		const struct plan_addr *src = &ps->recv.items[i].src;

		if (src->family != AF_INET && src->family != AF_INET6)
			return tool_fail(err, 0, "fd %llu (%s): queued datagram %zu has no IP "
					 "source address", fd, socket_kind_name(&ps->s), i);
		if (src->family != ps->s.family && (ps->s.family == AF_INET || v6only))
			return tool_fail(err, 0, "fd %llu (%s): queued datagram %zu came over "
					 "IPv%d, which this socket cannot receive", fd,
					 socket_kind_name(&ps->s), i,
					 src->family == AF_INET ? 4 : 6);
		if (ps->recv.items[i].len > udp_max_payload(src->family))
			return tool_fail(err, 0, "fd %llu (%s): queued datagram %zu is %zu bytes, "
					 "more than UDP carries", fd, socket_kind_name(&ps->s),
					 i, ps->recv.items[i].len);
	}
	return 0;
}

int udp_create(struct sock_job *j, const struct plan_socket *ps)
{
	int fd;

	return sock_new(j, ps, &fd) || sockopts_apply(j, ps, fd) || sock_bind(j, ps, fd) ? -1 : 0;
}

static int udp_connect(struct sock_job *j, const struct plan_socket *ps, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len;

	len = plan_sockaddr(&ps->peer, (int)ps->s.family, &ss);
	if (connect(fd, (struct sockaddr *)&ss, len))
		return sock_fail(j, ps, "connect", errno);
	return sock_check_local(j, ps, fd);
}

/* The corked datagram: UDP_CORK is already on if it was; else MSG_MORE. */
static int send_pending(struct sock_job *j, const struct plan_socket *ps, int fd)
{
	const struct plan_chunk *c = &ps->send.items[0];
	struct sockaddr_storage ss;
	socklen_t len;
	int cork = 0;

	plan_sockopt_int(ps, IPPROTO_UDP, UDP_CORK, &cork);
	len = plan_sockaddr(&c->src, (int)ps->s.family, &ss);
	if (sock_send_all(fd, c->data, c->len, cork ? 0 : MSG_MORE, &ss, len))
		return sock_fail(j, ps, "sending the pending datagram again", errno);
	return 0;
}

int udp_fill(struct sock_job *j, const struct plan_socket *ps)
{
	int fd = j->fds[sock_index(j, ps)];

	if (ps->recv.n && udp_queue_restore(j, ps, fd))
		return -1;
	if (ps->s.state == CRIB_SK_ESTABLISHED && udp_connect(j, ps, fd))
		return -1;
	if (ps->send.n && send_pending(j, ps, fd))
		return -1;
	return sock_shutdown(j, ps, fd);
}
