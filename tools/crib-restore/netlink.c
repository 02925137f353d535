// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink sockets: made with their protocol, their options set (the
 * NETLINK_* flags among them), bound to the port id they had, made
 * members of the multicast groups they had joined, and connected to the
 * port id and group they were connected to.  A snapshot holds no queued
 * message (crib-dump refuses them).  A port id the kernel chose at the
 * dump may belong to another socket by now: the bind then fails, saying
 * so, and nothing else takes its place.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "netlink.h"
#include "plan.h"
#include "socket_ops.h"
#include "socket_options.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

/* The groups a netlink_sockaddr()'s nl_groups can name: connect() takes one of them. */
#define NL_MASK_GROUPS	32

bool netlink_is(const struct crib_socket *s)
{
	return s->family == AF_NETLINK;
}

/* The NETLINK_LIST_MEMBERSHIPS option of @ps: its bitmap, or NULL. */
static const struct crib_sockopt *memberships(const struct plan_socket *ps)
{
	size_t i;

	for (i = 0; i < ps->s.n_options; i++)
		if (ps->s.options[i].level == SOL_NETLINK &&
		    ps->s.options[i].name == NETLINK_LIST_MEMBERSHIPS)
			return &ps->s.options[i];
	return NULL;
}

int netlink_check(const struct restore_tree *tree, const struct plan_socket *ps,
		  struct tool_error *err)
{
	unsigned long long fd = (unsigned long long)ps->s.fd;
	const struct crib_sockopt *m = memberships(ps);

	(void)tree;
	if (ps->s.type != SOCK_RAW && ps->s.type != SOCK_DGRAM)
		return tool_fail(err, 0, "fd %llu (netlink): type %llu is not a netlink "
				 "socket's", fd, (unsigned long long)ps->s.type);
	if (ps->recv.n || ps->send.n)
		return tool_fail(err, 0, "fd %llu (netlink): queued messages, which a restore "
				 "cannot send again as the kernel", fd);
	if (m && m->value.len % sizeof(uint32_t))
		return tool_fail(err, 0, "fd %llu (netlink): the groups joined are not a "
				 "bitmap of 32-bit words (%zu bytes)", fd, m->value.len);
	if (ps->peer.family && ps->peer.group > NL_MASK_GROUPS)
		return tool_fail(err, 0, "fd %llu (netlink): connected to group %u, which "
				 "connect() cannot name", fd, ps->peer.group);
	return 0;
}

static socklen_t netlink_sockaddr(uint32_t portid, uint32_t group, struct sockaddr_nl *nl)
{
	memset(nl, 0, sizeof(*nl));
	nl->nl_family = AF_NETLINK;
	nl->nl_pid = portid;
	nl->nl_groups = group ? 1u << (group - 1) : 0;
	return sizeof(*nl);
}

static int netlink_bind(struct sock_job *j, const struct plan_socket *ps, int fd)
{
	struct sockaddr_nl nl;
	char why[128];

	if (!ps->local.family)
		return 0;
	if (!bind(fd, (struct sockaddr *)&nl, netlink_sockaddr(ps->local.port, 0, &nl)))
		return 0;
	if (errno != EADDRINUSE)
		return sock_fail(j, ps, "bind", errno);
	snprintf(why, sizeof(why), "its port id %u is taken by another netlink socket of "
		 "protocol %llu", ps->local.port, (unsigned long long)ps->s.protocol);
	return sock_refuse(j, ps, why);
}

/* Every group the bitmap names, joined one by one: nl_groups names only 32. */
static int join_groups(struct sock_job *j, const struct plan_socket *ps, int fd)
{
	const struct crib_sockopt *m = memberships(ps);
	uint32_t word;
	char step[64];
	size_t w;
	int bit, group;

	for (w = 0; m && w < m->value.len / sizeof(word); w++) {
		memcpy(&word, (const uint8_t *)m->value.data + w * sizeof(word), sizeof(word));
		for (bit = 0; bit < 32; bit++) {
			if (!(word & (1u << bit)))
				continue;
			group = (int)(w * 32) + bit + 1;
			if (!setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group,
					sizeof(group)))
				continue;
			snprintf(step, sizeof(step), "joining netlink group %d", group);
			return sock_fail(j, ps, step, errno);
		}
	}
	return 0;
}

int netlink_create(struct sock_job *j, const struct plan_socket *ps)
{
	struct sockaddr_nl nl;
	socklen_t len;
	int fd;

	if (sock_new(j, ps, &fd) || sockopts_apply(j, ps, fd) || netlink_bind(j, ps, fd) ||
	    join_groups(j, ps, fd))
		return -1;
	if (ps->s.state != CRIB_SK_ESTABLISHED)
		return 0;
	len = netlink_sockaddr(ps->peer.port, ps->peer.group, &nl);
	if (connect(fd, (struct sockaddr *)&nl, len))
		return sock_fail(j, ps, "connect", errno);
	return 0;
}
