// SPDX-License-Identifier: GPL-2.0
/*
 * IP sockets other than TCP and UDP: ICMP echo ("ping"), UDP-Lite and raw
 * IP sockets, made with their protocol, their options set (UDP-Lite's
 * checksum coverage, a raw socket's header inclusion, checksum offset and
 * ICMP filters among them), bound to their address and port (a ping
 * socket's port is its echo identifier; a raw socket's, its protocol, the
 * kernel ignores) and connected to their peer.  A
 * snapshot holds nothing queued on them (crib-dump refuses it).
 *
 * The kernel lets a process make a ping socket only when one of its
 * groups is in net.ipv4.ping_group_range, root included: crib-restore
 * makes the socket, so its own group must be in that range.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>

#include "inet_dgram.h"
#include "plan.h"
#include "socket_ops.h"
#include "socket_options.h"

static bool is_inet(const struct crib_socket *s)
{
	return s->family == AF_INET || s->family == AF_INET6;
}

bool inet_dgram_is(const struct crib_socket *s)
{
	if (!is_inet(s))
		return false;
	if (s->type == SOCK_RAW)
		return true;
	if (s->type != SOCK_DGRAM)
		return false;
	return s->protocol == IPPROTO_UDPLITE || s->protocol == IPPROTO_ICMP ||
	       s->protocol == IPPROTO_ICMPV6;
}

int inet_dgram_check(const struct restore_tree *tree, const struct plan_socket *ps,
		     struct tool_error *err)
{
	unsigned long long fd = (unsigned long long)ps->s.fd;

	(void)tree;
	if (ps->s.state != CRIB_SK_CLOSE && ps->s.state != CRIB_SK_ESTABLISHED)
		return tool_fail(err, 0, "fd %llu (%s): state %llu is not a datagram socket's",
				 fd, socket_kind_name(&ps->s), (unsigned long long)ps->s.state);
	if (ps->s.state == CRIB_SK_ESTABLISHED && !ps->peer.family)
		return tool_fail(err, 0, "fd %llu (%s): connected, but to no address", fd,
				 socket_kind_name(&ps->s));
	if (ps->recv.n || ps->send.n)
		return tool_fail(err, 0, "fd %llu (%s): queued data, which only UDP sockets "
				 "get back", fd, socket_kind_name(&ps->s));
	return 0;
}

int inet_dgram_create(struct sock_job *j, const struct plan_socket *ps)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd;

	if (sock_new(j, ps, &fd) || sockopts_apply(j, ps, fd) || sock_bind(j, ps, fd))
		return -1;
	if (ps->s.state != CRIB_SK_ESTABLISHED)
		return 0;
	len = plan_sockaddr(&ps->peer, (int)ps->s.family, &ss);
	if (connect(fd, (struct sockaddr *)&ss, len))
		return sock_fail(j, ps, "connect", errno);
	return sock_check_local(j, ps, fd);
}
