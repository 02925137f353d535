// SPDX-License-Identifier: GPL-2.0
/*
 * UDP receive queues, put back by the CRIB program restore_udp_queue
 * (bpf/restore_sockets.bpf.c).  A snapshot keeps each queued datagram's
 * payload and source address; crib-restore builds the packet as it
 * arrived: an IP header from the source to the socket's own address (an
 * IPv4 header for an IPv4 packet, also on a dual-stack IPv6 socket, whose
 * reader then sees a v4-mapped source) and a UDP header with both ports,
 * which is where recvmsg() reads the source from.  The packets go through
 * a user ring buffer; each run of the program drains it into the socket,
 * so a queue larger than the ring takes several runs.
 *
 * The program is loaded by crib-restore before the child exists and run
 * by the child once it has created the socket: the child is a fork of
 * crib-restore (it inherits the program and the ring's mapping) and still
 * root, and it alone knows when the socket exists and at which number, so
 * no further hand-over between the two processes is needed, and a failure
 * is reported like any other of the child's.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_ether.h>

#include "crib_libbpf.h"
#include "plan.h"
#include "restore_sockets.h"
#include "restore_sockets.skel.h"
#include "socket_ops.h"
#include "udp_queue.h"

static bool needs_refill(const struct restore_tree *tree)
{
	size_t i;

	for (i = 0; i < tree->sockets.n; i++) {
		const struct plan_socket *ps = &tree->sockets.items[i];

		if ((ps->s.family == AF_INET || ps->s.family == AF_INET6) &&
		    ps->s.type == SOCK_DGRAM && ps->recv.n)
			return true;
	}
	return false;
}

int udp_refill_open(struct udp_refill *r, const struct restore_tree *tree,
		    struct tool_error *err)
{
	char msg[256];
	int ret;

	r->skel = NULL;
	r->ring = NULL;
	r->prog_fd = -1;
	if (!needs_refill(tree))
		return 0;
	ret = crib_libbpf_init(msg, sizeof(msg));
	if (ret)
		return tool_fail(err, 0, "UDP receive queues need the CRIB program type: %s", msg);
	r->skel = restore_sockets__open_and_load();
	if (!r->skel)
		return tool_fail(err, errno, "cannot load restore_sockets, which refills UDP receive "
				 "queues");
	r->ring = user_ring_buffer__new(bpf_map__fd(r->skel->maps.udp_packets), NULL);
	if (!r->ring) {
		ret = errno;
		udp_refill_close(r);
		return tool_fail(err, ret, "cannot map the ring buffer of restore_sockets");
	}
	r->prog_fd = bpf_program__fd(r->skel->progs.restore_udp_queue);
	return 0;
}

void udp_refill_close(struct udp_refill *r)
{
	if (r->ring)
		user_ring_buffer__free(r->ring);
	if (r->skel)
		restore_sockets__destroy(r->skel);
	r->ring = NULL;
	r->skel = NULL;
	r->prog_fd = -1;
}

/* The socket's own address as a packet's destination: IPv4 for an IPv4 packet. */
static void own_addr(const struct plan_socket *ps, int ip_family, uint8_t out[16])
{
	const struct plan_addr *a = &ps->local;

	memset(out, 0, 16);
	if (a->family == AF_INET)
		memcpy(out, a->addr, 4);
	else if (a->family == AF_INET6 && ip_family == AF_INET6)
		memcpy(out, a->addr, 16);
	else if (a->family == AF_INET6 && a->addr[10] == 0xff && a->addr[11] == 0xff)
		memcpy(out, a->addr + 12, 4);	/* v4-mapped */
}

/* The IP and UDP headers of a datagram of @len bytes from @src; their length. */
static uint32_t build_headers(const struct plan_socket *ps, const struct plan_chunk *c,
			      uint8_t *buf)
{
	struct udphdr *uh;
	uint8_t dst[16];
	uint32_t nh;

	own_addr(ps, (int)c->src.family, dst);
	if (c->src.family == AF_INET) {
		struct iphdr *ip = (struct iphdr *)buf;

		ip->version = 4;
		ip->ihl = 5;
		ip->tot_len = htons((uint16_t)(sizeof(*ip) + sizeof(*uh) + c->len));
		ip->ttl = 64;
		ip->protocol = IPPROTO_UDP;
		memcpy(&ip->saddr, c->src.addr, 4);
		memcpy(&ip->daddr, dst, 4);
		nh = sizeof(*ip);
	} else {
		struct ip6_hdr *ip6 = (struct ip6_hdr *)buf;

		ip6->ip6_flow = htonl(6u << 28 | (c->src.flowinfo & 0x0fffffff));
		ip6->ip6_plen = htons((uint16_t)(sizeof(*uh) + c->len));
		ip6->ip6_nxt = IPPROTO_UDP;
		ip6->ip6_hlim = 64;
		memcpy(&ip6->ip6_src, c->src.addr, 16);
		memcpy(&ip6->ip6_dst, dst, 16);
		nh = sizeof(*ip6);
	}
	uh = (struct udphdr *)(buf + nh);
	uh->source = htons((uint16_t)c->src.port);
	uh->dest = htons((uint16_t)ps->local.port);
	uh->len = htons((uint16_t)(sizeof(*uh) + c->len));
	return nh + (uint32_t)sizeof(*uh);
}

/* One packet into the ring; 1 when the ring is full. */
static int put_packet(struct udp_refill *r, const struct plan_socket *ps,
		      const struct plan_chunk *c)
{
	uint8_t headers[sizeof(struct ip6_hdr) + sizeof(struct udphdr)] = { 0 };
	uint32_t headroom = build_headers(ps, c, headers);
	struct restore_skb_hdr *h;

	h = user_ring_buffer__reserve(r->ring, (uint32_t)(sizeof(*h) + headroom + c->len));
	if (!h)
		return errno == ENOSPC ? 1 : -1;
	*h = (struct restore_skb_hdr){
		.headroom = headroom,
		.len = (uint32_t)c->len,
		.protocol = htons(c->src.family == AF_INET ? ETH_P_IP : ETH_P_IPV6),
		.mac_header = 0xffff,
		.network_header = 0,
		.transport_header = (uint16_t)(headroom - sizeof(struct udphdr)),
	};
	memcpy(h + 1, headers, headroom);
	memcpy((uint8_t *)(h + 1) + headroom, c->data, c->len);
	user_ring_buffer__submit(r->ring, h);
	return 0;
}

static const char *result_name(int ret)
{
	switch (-ret) {
	case RESTORE_NO_SOCKET:
		return "the program found no such socket";
	case RESTORE_BAD_SAMPLE:
		return "a packet in the ring buffer was cut short";
	case RESTORE_ALLOC:
		return "bpf_restore_skb_alloc() refused a packet";
	case RESTORE_DATA:
		return "bpf_restore_skb_data() refused a range";
	default:
		return "the program failed";
	}
}

/* Drain the ring into @fd; @want packets are in it.  The run is scoped to this process. */
static int run(struct sock_job *j, const struct plan_socket *ps, int fd, size_t want)
{
	struct restore_udp_ctx ctx = { .pid = getpid(), .fd = fd };
	char why[160];
	int ret, err;

	ctx.target.pidfd = (int)syscall(SYS_pidfd_open, ctx.pid, 0);
	if (ctx.target.pidfd < 0)
		return sock_fail(j, ps, "opening its own pidfd", errno);
	err = crib_prog_fd_run_target(j->refill->prog_fd, &ctx, sizeof(ctx), &ret);
	close(ctx.target.pidfd);
	if (err)
		return sock_fail(j, ps, "running restore_udp_queue", -err);
	if (ret == -RESTORE_QUEUE) {
		snprintf(why, sizeof(why), "queueing a datagram again: %s",
			 strerror(-j->refill->skel->bss->queue_err));
		return sock_refuse(j, ps, why);
	}
	if (ret < 0) {
		snprintf(why, sizeof(why), "refilling the receive queue: %s", result_name(ret));
		return sock_refuse(j, ps, why);
	}
	if ((size_t)ret != want) {
		snprintf(why, sizeof(why), "refilling the receive queue: %d of %zu datagrams "
			 "queued", ret, want);
		return sock_refuse(j, ps, why);
	}
	return 0;
}

int udp_queue_restore(struct sock_job *j, const struct plan_socket *ps, int fd)
{
	size_t i = 0, in_ring = 0;
	int ret;

	if (!j->refill || j->refill->prog_fd < 0)
		return sock_refuse(j, ps, "the program refilling UDP queues is not loaded");
	while (i < ps->recv.n) {
		ret = put_packet(j->refill, ps, &ps->recv.items[i]);
		if (ret < 0)
			return sock_fail(j, ps, "writing a datagram into the ring buffer", errno);
		if (ret == 0) {
			i++;
			in_ring++;
			continue;
		}
		if (!in_ring)
			return sock_refuse(j, ps, "a queued datagram does not fit the ring buffer");
		if (run(j, ps, fd, in_ring))
			return -1;
		in_ring = 0;
	}
	return in_ring ? run(j, ps, fd, in_ring) : 0;
}
