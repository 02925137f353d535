// SPDX-License-Identifier: GPL-2.0
/*
 * A workload holding a socket of each family crib carries besides TCP,
 * UDP and UNIX:
 *
 *   sockfamilies DIR
 *
 * ROUTEFD, a NETLINK_ROUTE socket bound to port id ROUTEID (chosen: its
 * PID + 1000000), a member of RTNLGRP_LINK (through bind()),
 * RTNLGRP_IPV4_IFADDR and RTNLGRP_BRVLAN (33, past the 32 that bind()
 * names), with NETLINK_EXT_ACK and NETLINK_NO_ENOBUFS on; UEVENTFD, a
 * NETLINK_KOBJECT_UEVENT datagram socket in group 1 whose port id UEVENTID
 * the kernel chose; PEERFD, a NETLINK_ROUTE datagram socket connected to
 * ROUTEID.  PINGFD, an ICMP echo socket on 127.0.0.1 connected to it
 * (net.ipv4.ping_group_range must hold the workload's group); LITEFD, a
 * UDP-Lite socket on 127.0.0.1 connected to itself, with a checksum
 * coverage of LITE_COVERAGE bytes both ways; RAWFD, a raw ICMP socket
 * bound to 127.0.0.1 whose ICMP_FILTER lets echo replies through only.
 * PACKETFD, a raw packet socket bound to lo for the local experimental
 * ethertype PACKET_PROTO, with PACKET_VERSION, PACKET_AUXDATA,
 * PACKET_ORIGDEV and PACKET_QDISC_BYPASS set.  Writes "ROUTEFD UEVENTFD
 * PEERFD ROUTEID UEVENTID PINGFD LITEFD RAWFD PACKETFD" to DIR/ready.
 *
 * SIGUSR1: it checks each: its type and protocol, its port id, the groups
 * it is in and its flags, PEERFD's peer; the route socket answers an
 * RTM_GETLINK dump that lists the loopback interface.  The ping socket
 * has its echo identifier, and an echo request send() sends without an
 * address (the peer's, 127.0.0.1) gets its reply; the UDP-Lite socket has its address, peer and coverage, and
 * a datagram it sends itself comes back; the raw socket has its address,
 * filter and no IP_HDRINCL, and sees the echo reply and not the request;
 * the packet socket is bound to lo and PACKET_PROTO with its options, and
 * gets back a frame it sends over lo.
 * Writes the verdict to DIR/check.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdbool.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "selfcheck.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

#define ROUTE_EXTRA_GROUP	33	/* RTNLGRP_BRVLAN: past nl_groups' 32 */

#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE		136
#endif
#define UDPLITE_SEND_CSCOV	10
#define UDPLITE_RECV_CSCOV	11
#define LITE_COVERAGE		12	/* the header and 4 bytes */
#define SOL_RAW_LEVEL		255
#define ICMP_FILTER_OPT		1	/* <linux/icmp.h>: a bit per type, set to drop */
#define RAW_FILTER		(~(1u << ICMP_ECHOREPLY))
#define PACKET_PROTO		0x88b5	/* IEEE 802 local experimental ethertype 1 */

struct held {
	int route, uevent, peer;
	unsigned int route_id, uevent_id;
	int ping, lite, raw, packet;
	struct sockaddr_in ping_local, lite_local;
};

static int die(const char *what)
{
	perror(what);
	exit(1);
}

static int set_int(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val));
}

static int get_int(int fd, int level, int name)
{
	socklen_t len = sizeof(int);
	int v = -1;

	getsockopt(fd, level, name, &v, &len);
	return v;
}

static unsigned int port_id(int fd)
{
	struct sockaddr_nl nl;
	socklen_t len = sizeof(nl);

	if (getsockname(fd, (struct sockaddr *)&nl, &len))
		return 0;
	return nl.nl_pid;
}

static void open_netlink(struct held *h)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

	h->route = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	if (h->route < 0)
		die("route socket");
	h->route_id = (unsigned int)getpid() + 1000000;
	nl.nl_pid = h->route_id;
	nl.nl_groups = RTMGRP_LINK;
	if (bind(h->route, (struct sockaddr *)&nl, sizeof(nl)) ||
	    set_int(h->route, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, RTNLGRP_IPV4_IFADDR) ||
	    set_int(h->route, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, ROUTE_EXTRA_GROUP) ||
	    set_int(h->route, SOL_NETLINK, NETLINK_EXT_ACK, 1) ||
	    set_int(h->route, SOL_NETLINK, NETLINK_NO_ENOBUFS, 1))
		die("route socket setup");

	h->uevent = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT);
	if (h->uevent < 0)
		die("uevent socket");
	nl.nl_pid = 0;		/* the kernel's choice */
	nl.nl_groups = 1;
	if (bind(h->uevent, (struct sockaddr *)&nl, sizeof(nl)))
		die("uevent bind");
	h->uevent_id = port_id(h->uevent);

	h->peer = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE);
	if (h->peer < 0)
		die("peer socket");
	nl.nl_pid = h->route_id;
	nl.nl_groups = 0;
	if (connect(h->peer, (struct sockaddr *)&nl, sizeof(nl)))
		die("peer connect");
}

static void check_kind(struct check_report *r, const char *name, int fd, int type, int proto)
{
	int got_type = -1, got_proto = -1;
	socklen_t len = sizeof(int);

	getsockopt(fd, SOL_SOCKET, SO_TYPE, &got_type, &len);
	len = sizeof(int);
	getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &got_proto, &len);
	if (got_type != type || got_proto != proto)
		check_fail(r, "%s: type %d protocol %d, not %d %d", name, got_type, got_proto,
			   type, proto);
}

/* The groups @fd is in, as a bitmap of the first 64. */
static unsigned long long groups_of(int fd)
{
	uint32_t words[32] = { 0 };
	socklen_t len = sizeof(words);

	if (getsockopt(fd, SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS, words, &len))
		return ~0ull;
	return words[0] | (unsigned long long)words[1] << 32;
}

static int flag_of(int fd, int name)
{
	return get_int(fd, SOL_NETLINK, name);
}

/* An RTM_GETLINK dump on @fd: whether its answer names "lo". */
static int link_dump_has_lo(int fd)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETLINK,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 7 },
		.i = { .ifi_family = AF_UNSPEC },
	};
	static char buf[65536];
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct nlmsghdr *h;
	int found = 0, len;
	ssize_t n;

	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -1;
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return -1;
		len = (int)n;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return found;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -1;
			if (h->nlmsg_type == RTM_NEWLINK &&
			    memmem(NLMSG_DATA(h), h->nlmsg_len - NLMSG_HDRLEN, "lo", 3))
				found = 1;
		}
	}
}

static void check_netlink(struct check_report *r, const struct held *h)
{
	unsigned long long want = 1ull << (RTNLGRP_LINK - 1) |
				  1ull << (RTNLGRP_IPV4_IFADDR - 1) |
				  1ull << (ROUTE_EXTRA_GROUP - 1);
	struct sockaddr_nl nl;
	socklen_t len = sizeof(nl);

	check_kind(r, "route", h->route, SOCK_RAW, NETLINK_ROUTE);
	check_kind(r, "uevent", h->uevent, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT);
	check_kind(r, "peer", h->peer, SOCK_DGRAM, NETLINK_ROUTE);
	if (port_id(h->route) != h->route_id)
		check_fail(r, "route: port id %u, not %u", port_id(h->route), h->route_id);
	if (port_id(h->uevent) != h->uevent_id)
		check_fail(r, "uevent: port id %u, not %u", port_id(h->uevent), h->uevent_id);
	if (groups_of(h->route) != want)
		check_fail(r, "route: groups %#llx, not %#llx", groups_of(h->route), want);
	if (groups_of(h->uevent) != 1)
		check_fail(r, "uevent: groups %#llx, not 0x1", groups_of(h->uevent));
	if (flag_of(h->route, NETLINK_EXT_ACK) != 1 || flag_of(h->route, NETLINK_NO_ENOBUFS) != 1 ||
	    flag_of(h->route, NETLINK_CAP_ACK) != 0)
		check_fail(r, "route: NETLINK_EXT_ACK %d, NETLINK_NO_ENOBUFS %d, NETLINK_CAP_ACK %d",
			   flag_of(h->route, NETLINK_EXT_ACK), flag_of(h->route, NETLINK_NO_ENOBUFS),
			   flag_of(h->route, NETLINK_CAP_ACK));
	if (getpeername(h->peer, (struct sockaddr *)&nl, &len) || nl.nl_pid != h->route_id)
		check_fail(r, "peer: not connected to port id %u (%s)", h->route_id,
			   strerror(errno));
	if (link_dump_has_lo(h->route) != 1)
		check_fail(r, "route: an RTM_GETLINK dump does not list lo");
}

static struct sockaddr_in loopback(void)
{
	struct sockaddr_in in = { .sin_family = AF_INET };

	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return in;
}

static struct sockaddr_in local_of(int fd)
{
	struct sockaddr_in in = { 0 };
	socklen_t len = sizeof(in);

	getsockname(fd, (struct sockaddr *)&in, &len);
	return in;
}

/* A ping socket and a UDP-Lite one, each on 127.0.0.1 and connected. */
static void open_inet(struct held *h)
{
	struct sockaddr_in lo = loopback();

	h->ping = socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	if (h->ping < 0)
		die("ping socket (is the group in net.ipv4.ping_group_range?)");
	if (bind(h->ping, (struct sockaddr *)&lo, sizeof(lo)) ||
	    connect(h->ping, (struct sockaddr *)&lo, sizeof(lo)))
		die("ping socket setup");
	h->ping_local = local_of(h->ping);

	h->lite = socket(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE);
	if (h->lite < 0)
		die("UDP-Lite socket");
	if (bind(h->lite, (struct sockaddr *)&lo, sizeof(lo)))
		die("UDP-Lite bind");
	h->lite_local = local_of(h->lite);
	if (connect(h->lite, (struct sockaddr *)&h->lite_local, sizeof(h->lite_local)) ||
	    set_int(h->lite, IPPROTO_UDPLITE, UDPLITE_SEND_CSCOV, LITE_COVERAGE) ||
	    set_int(h->lite, IPPROTO_UDPLITE, UDPLITE_RECV_CSCOV, LITE_COVERAGE))
		die("UDP-Lite setup");

	h->raw = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (h->raw < 0)
		die("raw socket");
	if (bind(h->raw, (struct sockaddr *)&lo, sizeof(lo)) ||
	    set_int(h->raw, SOL_RAW_LEVEL, ICMP_FILTER_OPT, (int)RAW_FILTER))
		die("raw socket setup");
}

static bool wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 5000) == 1;
}

static void open_packet(struct held *h)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(PACKET_PROTO) };

	h->packet = socket(AF_PACKET, SOCK_RAW, htons(PACKET_PROTO));
	if (h->packet < 0)
		die("packet socket");
	ll.sll_ifindex = (int)if_nametoindex("lo");
	if (bind(h->packet, (struct sockaddr *)&ll, sizeof(ll)) ||
	    set_int(h->packet, SOL_PACKET, PACKET_VERSION, TPACKET_V2) ||
	    set_int(h->packet, SOL_PACKET, PACKET_AUXDATA, 1) ||
	    set_int(h->packet, SOL_PACKET, PACKET_ORIGDEV, 1) ||
	    set_int(h->packet, SOL_PACKET, PACKET_QDISC_BYPASS, 1))
		die("packet socket setup");
}

/* A frame of PACKET_PROTO sent over lo comes back to the packet socket. */
static bool frame_comes_back(int fd)
{
	unsigned char frame[ETH_HLEN + 8] = { 0 }, got[256];
	ssize_t n;

	frame[12] = PACKET_PROTO >> 8;
	frame[13] = PACKET_PROTO & 0xff;
	memcpy(frame + ETH_HLEN, "cribcrib", 8);
	if (send(fd, frame, sizeof(frame), 0) != (ssize_t)sizeof(frame) || !wait_readable(fd))
		return false;
	n = recv(fd, got, sizeof(got), 0);
	while (recv(fd, got + 128, 128, MSG_DONTWAIT) > 0)
		;	/* left empty for a dump */
	return n >= (ssize_t)sizeof(frame) && !memcmp(got + ETH_HLEN, "cribcrib", 8);
}

static void check_packet(struct check_report *r, const struct held *h)
{
	struct sockaddr_ll ll = { 0 };
	socklen_t len = sizeof(ll);

	/* SO_PROTOCOL says 0: a packet socket keeps its protocol with its binding */
	check_kind(r, "packet", h->packet, SOCK_RAW, 0);
	if (getsockname(h->packet, (struct sockaddr *)&ll, &len) ||
	    ll.sll_ifindex != (int)if_nametoindex("lo") || ll.sll_protocol != htons(PACKET_PROTO))
		check_fail(r, "packet: bound to interface %d protocol %#x, not lo and %#x",
			   ll.sll_ifindex, ntohs(ll.sll_protocol), PACKET_PROTO);
	if (get_int(h->packet, SOL_PACKET, PACKET_VERSION) != TPACKET_V2 ||
	    get_int(h->packet, SOL_PACKET, PACKET_AUXDATA) != 1 ||
	    get_int(h->packet, SOL_PACKET, PACKET_ORIGDEV) != 1 ||
	    get_int(h->packet, SOL_PACKET, PACKET_QDISC_BYPASS) != 1)
		check_fail(r, "packet: PACKET_VERSION %d, AUXDATA %d, ORIGDEV %d, QDISC_BYPASS %d",
			   get_int(h->packet, SOL_PACKET, PACKET_VERSION),
			   get_int(h->packet, SOL_PACKET, PACKET_AUXDATA),
			   get_int(h->packet, SOL_PACKET, PACKET_ORIGDEV),
			   get_int(h->packet, SOL_PACKET, PACKET_QDISC_BYPASS));
	if (!frame_comes_back(h->packet))
		check_fail(r, "packet: a frame sent over lo did not come back");
}

/* The ICMP types of what the raw socket holds, as a bitmap; it is left empty. */
static unsigned int raw_drain(int fd)
{
	unsigned int types = 0;
	char buf[256];
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) >= 20 + 8)
		types |= 1u << ((unsigned char)buf[(buf[0] & 0xf) * 4] & 31);
	return types;
}

static bool same_addr(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_family == b->sin_family && a->sin_port == b->sin_port &&
	       a->sin_addr.s_addr == b->sin_addr.s_addr;
}

/* After an echo: the raw socket saw its reply, its filter dropped the request. */
static void check_raw(struct check_report *r, const struct held *h)
{
	struct sockaddr_in lo = loopback(), now = local_of(h->raw);
	unsigned int types;

	check_kind(r, "raw", h->raw, SOCK_RAW, IPPROTO_ICMP);
	if (now.sin_addr.s_addr != lo.sin_addr.s_addr)
		check_fail(r, "raw: bound to %s, not 127.0.0.1", inet_ntoa(now.sin_addr));
	if ((unsigned int)get_int(h->raw, SOL_RAW_LEVEL, ICMP_FILTER_OPT) != RAW_FILTER ||
	    get_int(h->raw, IPPROTO_IP, IP_HDRINCL) != 0)
		check_fail(r, "raw: ICMP_FILTER %#x, IP_HDRINCL %d, not %#x and 0",
			   get_int(h->raw, SOL_RAW_LEVEL, ICMP_FILTER_OPT),
			   get_int(h->raw, IPPROTO_IP, IP_HDRINCL), RAW_FILTER);
	wait_readable(h->raw);
	types = raw_drain(h->raw);
	if (types != 1u << ICMP_ECHOREPLY)
		check_fail(r, "raw: saw ICMP types %#x, not only the echo reply", types);
}

/* An echo request on the ping socket: whether its reply comes back. */
static bool echo_answered(int fd)
{
	struct icmphdr req = { .type = ICMP_ECHO }, reply;
	char buf[64];
	ssize_t n;

	req.un.echo.sequence = htons(7);
	memcpy(buf, &req, sizeof(req));
	memcpy(buf + sizeof(req), "crib", 4);
	if (send(fd, buf, sizeof(req) + 4, 0) < 0 || !wait_readable(fd))
		return false;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < (ssize_t)sizeof(reply) + 4)
		return false;
	memcpy(&reply, buf, sizeof(reply));
	return reply.type == ICMP_ECHOREPLY && reply.un.echo.sequence == htons(7) &&
	       !memcmp(buf + sizeof(reply), "crib", 4);
}

static void check_inet(struct check_report *r, const struct held *h)
{
	struct sockaddr_in now, peer;
	socklen_t len = sizeof(peer);
	char buf[32];

	check_kind(r, "ping", h->ping, SOCK_DGRAM, IPPROTO_ICMP);
	check_kind(r, "UDP-Lite", h->lite, SOCK_DGRAM, IPPROTO_UDPLITE);
	now = local_of(h->ping);
	if (!same_addr(&now, &h->ping_local) || !now.sin_port)
		check_fail(r, "ping: bound to %s id %u, not id %u", inet_ntoa(now.sin_addr),
			   ntohs(now.sin_port), ntohs(h->ping_local.sin_port));
	/* getpeername() says ENOTCONN (no port); send() without an address works */
	raw_drain(h->raw);
	if (!echo_answered(h->ping))
		check_fail(r, "ping: no echo reply from 127.0.0.1 to send() on the "
			   "connected socket");
	now = local_of(h->lite);
	if (!same_addr(&now, &h->lite_local))
		check_fail(r, "UDP-Lite: bound to port %u, not %u", ntohs(now.sin_port),
			   ntohs(h->lite_local.sin_port));
	len = sizeof(peer);
	if (getpeername(h->lite, (struct sockaddr *)&peer, &len) ||
	    !same_addr(&peer, &h->lite_local))
		check_fail(r, "UDP-Lite: not connected to itself");
	if (get_int(h->lite, IPPROTO_UDPLITE, UDPLITE_SEND_CSCOV) != LITE_COVERAGE ||
	    get_int(h->lite, IPPROTO_UDPLITE, UDPLITE_RECV_CSCOV) != LITE_COVERAGE)
		check_fail(r, "UDP-Lite: coverage %d sent, %d received, not %d",
			   get_int(h->lite, IPPROTO_UDPLITE, UDPLITE_SEND_CSCOV),
			   get_int(h->lite, IPPROTO_UDPLITE, UDPLITE_RECV_CSCOV), LITE_COVERAGE);
	if (send(h->lite, "lite", 4, 0) != 4 || !wait_readable(h->lite) ||
	    recv(h->lite, buf, sizeof(buf), 0) != 4 || memcmp(buf, "lite", 4))
		check_fail(r, "UDP-Lite: a datagram to itself did not come back");
	check_raw(r, h);
}

int main(int argc, char **argv)
{
	struct check_report report = { { 0 } };
	struct held h;
	char text[256], path[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: sockfamilies DIR\n");
		return 2;
	}
	check_on_request();
	open_netlink(&h);
	open_inet(&h);
	open_packet(&h);
	snprintf(text, sizeof(text), "%d %d %d %u %u %d %d %d %d\n", h.route, h.uevent, h.peer,
		 h.route_id, h.uevent_id, h.ping, h.lite, h.raw, h.packet);
	snprintf(path, sizeof(path), "%s/ready", argv[1]);
	if (write_ready(path, text))
		die("ready");
	for (;;) {
		check_wait_for_request();
		check_requested = 0;
		memset(&report, 0, sizeof(report));
		check_netlink(&report, &h);
		check_inet(&report, &h);
		check_packet(&report, &h);
		check_write(&report, argv[1]);
	}
}
