// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink sockets.  What the process can observe of one is carried: its
 * protocol, the port id it is bound to, the multicast groups it joined,
 * the port id and group it is connected to, and its NETLINK_* flags.
 * dump_sockets reads the socket as it reads any other; the rest is read
 * as a process could, on a copy of the descriptor taken with
 * pidfd_getfd() (getsockopt()), and through NETLINK_SOCK_DIAG, which
 * names the port ids and group and says whether a dump is in progress.
 *
 * Refused: queued messages (the kernel sent them; a restore could not
 * send them again as the kernel, nor truthfully), and a dump in progress
 * (its state lives in the kernel's callback, which nothing can rebuild).
 * Netlink's mmap rings are gone from Linux since 4.6: there is none to
 * refuse.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/netlink_diag.h>
#include <linux/sock_diag.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pidfd_getfd.h"
#include "sock_diag.h"
#include "sockets.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

/* The NETLINK_* flags a process sets with setsockopt(), each an int. */
static const int netlink_flags[] = {
	NETLINK_PKTINFO, NETLINK_BROADCAST_ERROR, NETLINK_NO_ENOBUFS,
	NETLINK_LISTEN_ALL_NSID, NETLINK_CAP_ACK, NETLINK_EXT_ACK,
	NETLINK_GET_STRICT_CHK,
};

/* Queued messages, counted by dump_sockets: the kernel sent them. */
static int refuse_queued(struct dump_job *job, const struct socket_entry *e)
{
	if (!e->k.receive_qlen && !e->k.rmem_alloc)
		return 0;
	return tool_fail(&job->err, 0, "process %d, fd %d: netlink messages are queued "
			 "(%u packets, %u bytes of receive buffer), which the kernel sent and a "
			 "restore could not send again: that cannot be restored", (int)job->pid,
			 e->k.fd, e->k.receive_qlen, e->k.rmem_alloc);
}

/* The flags and the groups joined, on @sock, a copy of the socket's descriptor. */
static int read_sockopts(struct dump_job *job, const struct socket_entry *e, int sock,
			 struct netlink_state *nl)
{
	socklen_t len;
	size_t i;

	for (i = 0; i < sizeof(netlink_flags) / sizeof(netlink_flags[0]); i++) {
		len = sizeof(nl->flags[i]);
		if (getsockopt(sock, SOL_NETLINK, netlink_flags[i], &nl->flags[i], &len))
			return tool_fail(&job->err, errno, "process %d, fd %d: cannot read "
					 "netlink option %d", (int)job->pid, e->k.fd,
					 netlink_flags[i]);
	}
	len = sizeof(nl->groups);
	if (getsockopt(sock, SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS, nl->groups, &len))
		return tool_fail(&job->err, errno, "process %d, fd %d: cannot read the "
				 "netlink groups joined (NETLINK_LIST_MEMBERSHIPS)",
				 (int)job->pid, e->k.fd);
	/* the length the kernel's groups need, which may exceed the buffer */
	if (len > sizeof(nl->groups))
		return tool_fail(&job->err, 0, "process %d, fd %d: the netlink socket's "
				 "protocol has %u multicast groups, more than a snapshot of it "
				 "holds (%zu)", (int)job->pid, e->k.fd, len * 8,
				 sizeof(nl->groups) * 8);
	nl->groups_len = len;
	return 0;
}

/* What a NETLINK_SOCK_DIAG answer is looked at for: a socket's inode, and its state. */
struct netlink_lookup {
	uint64_t ino;
	struct netlink_state *nl;
};

/* One NETLINK_SOCK_DIAG answer: whether it is the socket looked for, and then what it says. */
static bool diag_entry(const struct nlmsghdr *h, void *ctx)
{
	const struct netlink_diag_msg *m = NLMSG_DATA(h);
	const struct netlink_lookup *look = ctx;
	struct netlink_state *nl = look->nl;
	const struct nlattr *a;
	int rest;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)) || m->ndiag_ino != look->ino)
		return false;
	nl->portid = m->ndiag_portid;
	nl->dst_portid = m->ndiag_dst_portid;
	nl->dst_group = m->ndiag_dst_group;
	a = (const struct nlattr *)(m + 1);
	rest = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*m));
	while (rest >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) && a->nla_len <= rest) {
		if (a->nla_type == NETLINK_DIAG_FLAGS && a->nla_len >= NLA_HDRLEN + 4) {
			uint32_t flags;

			memcpy(&flags, (const char *)a + NLA_HDRLEN, sizeof(flags));
			nl->dump_running = flags & NDIAG_FLAG_CB_RUNNING;
		}
		rest -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
	return true;
}

/* The port ids, group and dump state of @e from NETLINK_SOCK_DIAG. */
static int read_diag(struct dump_job *job, const struct socket_entry *e,
		     struct netlink_state *nl)
{
	struct {
		struct nlmsghdr h;
		struct netlink_diag_req r;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.r = { .sdiag_family = AF_NETLINK, .sdiag_protocol = (uint8_t)e->k.protocol,
		       .ndiag_show = NDIAG_SHOW_FLAGS },
	};
	struct netlink_lookup look = { .ino = e->k.ino, .nl = nl };
	int ret;

	ret = sock_diag_dump(&req, sizeof(req), diag_entry, &look);
	if (ret < 0)
		tool_fail(&job->err, errno, "process %d, fd %d: cannot read the netlink "
			  "socket through NETLINK_SOCK_DIAG", (int)job->pid, e->k.fd);
	else if (!ret)
		tool_fail(&job->err, 0, "process %d, fd %d: NETLINK_SOCK_DIAG does not list "
			  "the netlink socket", (int)job->pid, e->k.fd);
	return ret == 1 ? 0 : -1;
}

int netlink_read(struct dump_job *job, struct socket_entry *e)
{
	struct netlink_state *nl = &e->nl;
	int sock, ret;

	memset(nl, 0, sizeof(*nl));
	if (refuse_queued(job, e) || read_diag(job, e, nl))
		return -1;
	if (nl->dump_running)
		return tool_fail(&job->err, 0, "process %d, fd %d: a netlink dump is in "
				 "progress on the socket, whose state the kernel keeps: that "
				 "cannot be restored", (int)job->pid, e->k.fd);
	sock = pidfd_take_fd(job->pid, e->k.fd);
	if (sock < 0)
		return tool_fail(&job->err, errno, "process %d, fd %d: cannot take the netlink "
				 "socket to read its options", (int)job->pid, e->k.fd);
	ret = read_sockopts(job, e, sock, nl);
	close(sock);
	return ret;
}

void netlink_options(struct socket_entry *e)
{
	size_t i;

	for (i = 0; i < sizeof(netlink_flags) / sizeof(netlink_flags[0]); i++)
		sockopt_put_int(e, SOL_NETLINK, netlink_flags[i], e->nl.flags[i]);
	sockopt_put(e, SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS, e->nl.groups, e->nl.groups_len);
}

void netlink_sockaddrs(const struct socket_entry *e, struct crib_sockaddr *local,
		       struct crib_sockaddr *peer)
{
	if (e->nl.portid)
		*local = (struct crib_sockaddr){ .family = AF_NETLINK, .port = e->nl.portid };
	if (e->nl.dst_portid || e->nl.dst_group)
		*peer = (struct crib_sockaddr){ .family = AF_NETLINK, .port = e->nl.dst_portid,
						.group = e->nl.dst_group };
}
