// SPDX-License-Identifier: GPL-2.0
/*
 * Packet sockets (AF_PACKET, raw or datagram).  What the process can
 * observe of one is carried: the interface and protocol it is bound to or
 * was made with (the interface by name: an index means nothing in another
 * boot; the kernel keeps the protocol there, not in sk_protocol), and its PACKET_VERSION, PACKET_AUXDATA,
 * PACKET_ORIGDEV, PACKET_RESERVE, PACKET_TIMESTAMP and
 * PACKET_QDISC_BYPASS, read with getsockopt() on a copy of the descriptor
 * taken with pidfd_getfd().  What it is bound to, and what cannot be read
 * back, comes from PACKET_SOCK_DIAG (sock_diag), which CRIU reads too.
 *
 * Refused, naming process and descriptor: queued packets; memberships
 * added with PACKET_ADD_MEMBERSHIP (their list shows, but not how each was
 * asked for); rings (PACKET_RX_RING, PACKET_TX_RING); a fanout group;
 * PACKET_VNET_HDR, PACKET_LOSS and a copy threshold.  An attached filter
 * is the filter code's (socket_options.c).
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/packet_diag.h>
#include <linux/sock_diag.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pidfd_getfd.h"
#include "sock_diag.h"
#include "sockets.h"


#ifndef SOL_PACKET
#define SOL_PACKET	263
#endif

/* The options carried, each an int. */
static const int packet_options[] = {
	PACKET_VERSION, PACKET_AUXDATA, PACKET_ORIGDEV, PACKET_RESERVE,
	PACKET_TIMESTAMP, PACKET_QDISC_BYPASS,
};

/* What PACKET_SOCK_DIAG says of one socket. */
struct packet_diag {
	uint32_t ifindex;
	uint16_t num;			/* the protocol bound, host order */
	uint32_t flags;			/* PDI_* */
	uint32_t copy_thresh;
	bool mclist, rx_ring, tx_ring, fanout;
};

static void diag_attrs(const struct nlattr *a, int rest, struct packet_diag *d)
{
	struct packet_diag_info info;

	while (rest >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) && a->nla_len <= rest) {
		switch (a->nla_type) {
		case PACKET_DIAG_INFO:
			if (a->nla_len < NLA_HDRLEN + sizeof(info))
				break;
			memcpy(&info, (const char *)a + NLA_HDRLEN, sizeof(info));
			d->ifindex = info.pdi_index;
			d->flags = info.pdi_flags;
			d->copy_thresh = info.pdi_copy_thresh;
			break;
		case PACKET_DIAG_MCLIST:
			d->mclist = a->nla_len > NLA_HDRLEN;
			break;
		case PACKET_DIAG_RX_RING:
			d->rx_ring = true;
			break;
		case PACKET_DIAG_TX_RING:
			d->tx_ring = true;
			break;
		case PACKET_DIAG_FANOUT:
			d->fanout = true;
			break;
		}
		rest -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

/* What a PACKET_SOCK_DIAG answer is looked at for: a socket's inode, and its state. */
struct packet_lookup {
	uint64_t ino;
	struct packet_diag *d;
};

/* One PACKET_SOCK_DIAG answer: whether it is the socket looked for, and then what it says. */
static bool diag_entry(const struct nlmsghdr *h, void *ctx)
{
	const struct packet_diag_msg *m = NLMSG_DATA(h);
	const struct packet_lookup *look = ctx;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)) || m->pdiag_ino != look->ino)
		return false;
	look->d->num = m->pdiag_num;
	diag_attrs((const struct nlattr *)(m + 1), (int)h->nlmsg_len -
		   (int)NLMSG_LENGTH(sizeof(*m)), look->d);
	return true;
}

static int read_diag(struct dump_job *job, const struct socket_entry *e, struct packet_diag *d)
{
	struct {
		struct nlmsghdr h;
		struct packet_diag_req r;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.r = { .sdiag_family = AF_PACKET,
		       .pdiag_show = PACKET_SHOW_INFO | PACKET_SHOW_MCLIST |
				     PACKET_SHOW_RING_CFG | PACKET_SHOW_FANOUT },
	};
	struct packet_lookup look = { .ino = e->k.ino, .d = d };
	int ret;

	ret = sock_diag_dump(&req, sizeof(req), diag_entry, &look);
	if (ret < 0)
		tool_fail(&job->err, errno, "process %d, fd %d: cannot read the packet socket "
			  "through PACKET_SOCK_DIAG", (int)job->pid, e->k.fd);
	else if (!ret)
		tool_fail(&job->err, 0, "process %d, fd %d: PACKET_SOCK_DIAG does not list the "
			  "packet socket", (int)job->pid, e->k.fd);
	return ret == 1 ? 0 : -1;
}

/* What a restore could not make again, said to complete "the packet socket has ...". */
static const char *not_carried(const struct socket_entry *e, const struct packet_diag *d)
{
	if (e->k.receive_qlen || e->k.rmem_alloc)
		return "packets queued";
	if (d->mclist)
		return "memberships (PACKET_ADD_MEMBERSHIP)";
	if (d->rx_ring || d->tx_ring)
		return "a ring (PACKET_RX_RING or PACKET_TX_RING)";
	if (d->fanout)
		return "a fanout group (PACKET_FANOUT)";
	if (d->flags & PDI_VNETHDR)
		return "PACKET_VNET_HDR";
	if (d->flags & PDI_LOSS)
		return "PACKET_LOSS";
	if (d->copy_thresh)
		return "a copy threshold (PACKET_COPY_THRESH)";
	return NULL;
}

static int read_options(struct dump_job *job, struct socket_entry *e)
{
	int sock, ret = 0;
	socklen_t len;
	size_t i;

	sock = pidfd_take_fd(job->pid, e->k.fd);
	if (sock < 0)
		return tool_fail(&job->err, errno, "process %d, fd %d: cannot take the packet "
				 "socket to read its options", (int)job->pid, e->k.fd);
	for (i = 0; i < sizeof(packet_options) / sizeof(packet_options[0]) && !ret; i++) {
		len = sizeof(e->pk.options[i]);
		if (getsockopt(sock, SOL_PACKET, packet_options[i], &e->pk.options[i], &len))
			ret = tool_fail(&job->err, errno, "process %d, fd %d: cannot read packet "
					"option %d", (int)job->pid, e->k.fd, packet_options[i]);
	}
	close(sock);
	return ret;
}

int packet_read(struct dump_job *job, struct socket_entry *e)
{
	struct packet_diag d = { 0 };
	const char *why;

	memset(&e->pk, 0, sizeof(e->pk));
	if (read_diag(job, e, &d))
		return -1;
	why = not_carried(e, &d);
	if (why)
		return tool_fail(&job->err, 0, "process %d, fd %d: the packet socket has %s, "
				 "which a snapshot does not carry: that cannot be restored",
				 (int)job->pid, e->k.fd, why);
	e->pk.num = d.num;
	if (d.ifindex && !if_indextoname(d.ifindex, e->pk.ifname))
		return tool_fail(&job->err, errno, "process %d, fd %d: the packet socket is "
				 "bound to interface %u, which has no name", (int)job->pid,
				 e->k.fd, d.ifindex);
	return read_options(job, e);
}

void packet_options_put(struct socket_entry *e)
{
	size_t i;

	for (i = 0; i < sizeof(packet_options) / sizeof(packet_options[0]); i++)
		sockopt_put_int(e, SOL_PACKET, packet_options[i], e->pk.options[i]);
}

void packet_sockaddr(const struct socket_entry *e, struct crib_sockaddr *local)
{
	*local = (struct crib_sockaddr){
		.family = AF_PACKET, .port = e->pk.num,
		.addr = { .data = e->pk.ifname, .len = strlen(e->pk.ifname) },
	};
}
