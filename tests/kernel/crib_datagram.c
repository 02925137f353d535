// SPDX-License-Identifier: GPL-2.0
/*
 * Datagrams through the CRIB kfuncs, both ways.
 *
 * Read: a UDP datagram being built (corked) sits in the write queue with
 * room for its headers that is written only when it is sent, in front of
 * the IP header too (IPv6's fragmentable extension headers here, set with
 * IPV6_DSTOPTS).  What the skb_data iterator gives of it must be zeros up
 * to the payload, never what the memory held before: slab memory is
 * first filled with a pattern by datagrams sent and received.
 *
 * Write: a packet restored into a receive queue is accepted only where
 * the UDP lookup would have delivered it: to the socket's bound address
 * (any, if it is bound to any) and port, and for a connected socket from
 * its peer's address and port.  Each refused packet must not reach the
 * queue; each accepted one must, with its source.  TAP output.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "crib_libbpf.h"
#include "crib_target.h"
#include "crib_datagram.skel.h"
#include "tap.h"

#define PAYLOAD		16
#define IPV4_PACKET	(20 + 8 + PAYLOAD)
#define IPV6_PACKET	(40 + 8 + PAYLOAD)
#define CORKED_LEN	100
#define POISON		0xaa
#define POISON_ROUNDS	256

struct datagram_args {
	struct crib_target target;
	int pid;
	int fd;
	int ipv6;
	uint8_t packet[IPV6_PACKET] __attribute__((aligned(8)));
};

/* A UDP socket of @family bound to @addr (port 0: any), its address in @out. */
static int udp_bound(int family, const char *addr, uint16_t port,
		     struct sockaddr_storage *out)
{
	socklen_t len = sizeof(*out);
	int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	memset(out, 0, sizeof(*out));
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)out;

		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		inet_pton(AF_INET, addr, &in->sin_addr);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)out;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		inet_pton(AF_INET6, addr, &in6->sin6_addr);
	}
	if (fd < 0 || bind(fd, (struct sockaddr *)out, len) ||
	    getsockname(fd, (struct sockaddr *)out, &len)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static uint16_t port_of(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET ? ntohs(((const struct sockaddr_in *)ss)->sin_port) :
					  ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

/* Fill slab memory with POISON: datagrams of about the size sent, and freed. */
static void poison_slabs(void)
{
	struct sockaddr_storage self;
	uint8_t buf[CORKED_LEN + 64];
	int fd = udp_bound(AF_INET6, "::1", 0, &self), i;

	if (fd < 0)
		return;
	memset(buf, POISON, sizeof(buf));
	for (i = 0; i < POISON_ROUNDS; i++) {
		if (sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&self, sizeof(self)) < 0)
			break;
		recv(fd, buf, sizeof(buf), 0);
	}
	close(fd);
}

static int run(const struct bpf_program *prog, struct datagram_args *args)
{
	int retval = -1, err;

	args->pid = getpid();
	err = crib_prog_run_about(prog, getpid(), args, sizeof(*args), &retval);
	return err ? err : retval;
}

static void check_write_room(struct tap *t, struct crib_datagram *skel)
{
	/* a destination options header of 8 bytes: next header, length 0, PadN of 4 */
	uint8_t dstopts[8] = { 0, 0, 1, 4, 0, 0, 0, 0 };
	struct datagram_args args = {};
	struct sockaddr_storage self;
	uint8_t payload[CORKED_LEN];
	uint32_t len, i, zero = 0;
	int fd, one = 1, err;

	fd = udp_bound(AF_INET6, "::1", 0, &self);
	if (!tap_check(t, fd >= 0 &&
		       !setsockopt(fd, IPPROTO_IPV6, IPV6_DSTOPTS, dstopts, sizeof(dstopts)) &&
		       !setsockopt(fd, IPPROTO_UDP, UDP_CORK, &one, sizeof(one)),
		       "an IPv6 UDP socket, corked, with a destination options header"))
		return;
	poison_slabs();
	memset(payload, 0x5a, sizeof(payload));
	if (!tap_check(t, sendto(fd, payload, sizeof(payload), 0, (struct sockaddr *)&self,
				 sizeof(self)) == sizeof(payload),
		       "a datagram is built in its write queue"))
		goto out;
	args.fd = fd;
	err = run(skel->progs.write_queue_bytes, &args);
	len = skel->bss->written_len;
	if (!tap_check(t, !err && len >= sizeof(payload) + sizeof(dstopts) + 40 + 8,
		       "the skb_data iterator gives the datagram with its header room"))
		tap_diag("error %d, %u bytes", err, len);
	if (err || len < sizeof(payload))
		goto out;
	for (i = 0; i < len - sizeof(payload); i++)
		zero += skel->bss->written[i] == 0;
	if (!tap_check(t, zero == len - sizeof(payload),
		       "every byte before the payload reads as zero"))
		tap_diag("%u of %zu bytes before the payload are not zero",
			 len - (uint32_t)sizeof(payload) - zero, len - sizeof(payload));
	tap_check(t, !memcmp(skel->bss->written + len - sizeof(payload), payload,
			     sizeof(payload)), "the payload ends the bytes given");
out:
	close(fd);
}

/* An IPv4 UDP packet from @src:@sport to @dst:@dport, in @args. */
static void ipv4_packet(struct datagram_args *args, const char *src, uint16_t sport,
			const char *dst, uint16_t dport)
{
	struct iphdr *ip = (struct iphdr *)args->packet;
	struct udphdr *uh = (struct udphdr *)(args->packet + 20);

	memset(args->packet, 0, sizeof(args->packet));
	args->ipv6 = 0;
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons(IPV4_PACKET);
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	inet_pton(AF_INET, src, &ip->saddr);
	inet_pton(AF_INET, dst, &ip->daddr);
	uh->source = htons(sport);
	uh->dest = htons(dport);
	uh->len = htons(8 + PAYLOAD);
	memcpy(args->packet + 28, "restored packet", PAYLOAD);
}

static void ipv6_packet(struct datagram_args *args, const char *src, uint16_t sport,
			const char *dst, uint16_t dport)
{
	struct ip6_hdr *ip6 = (struct ip6_hdr *)args->packet;
	struct udphdr *uh = (struct udphdr *)(args->packet + 40);

	memset(args->packet, 0, sizeof(args->packet));
	args->ipv6 = 1;
	ip6->ip6_vfc = 0x60;
	ip6->ip6_plen = htons(8 + PAYLOAD);
	ip6->ip6_nxt = IPPROTO_UDP;
	ip6->ip6_hlim = 64;
	inet_pton(AF_INET6, src, &ip6->ip6_src);
	inet_pton(AF_INET6, dst, &ip6->ip6_dst);
	uh->source = htons(sport);
	uh->dest = htons(dport);
	uh->len = htons(8 + PAYLOAD);
	memcpy(args->packet + 48, "restored packet", PAYLOAD);
}

/* The restore of @args into @fd gives @want, and the queue has the packet iff 0. */
static void expect_restore(struct tap *t, struct crib_datagram *skel, int fd,
			   struct datagram_args *args, int want, const char *what)
{
	char buf[64];
	ssize_t got;
	int ret;

	args->fd = fd;
	ret = run(skel->progs.restore_packet, args);
	got = recv(fd, buf, sizeof(buf), 0);
	if (!tap_check(t, ret == want && (want ? got < 0 : got == PAYLOAD), "%s", what))
		tap_diag("restore gave %d (want %d); recv %zd", ret, want, got);
}

static void check_restore_addresses(struct tap *t, struct crib_datagram *skel)
{
	struct sockaddr_storage a, b, c, d, e;
	int bound, conn, peer, v6, dual;
	struct datagram_args args = {};
	uint16_t pa, pb, pc, pd, pe;

	bound = udp_bound(AF_INET, "127.0.0.1", 0, &a);
	conn = udp_bound(AF_INET, "127.0.0.1", 0, &b);
	peer = udp_bound(AF_INET, "127.0.0.1", 0, &c);
	v6 = udp_bound(AF_INET6, "::1", 0, &d);
	dual = udp_bound(AF_INET6, "::", 0, &e);
	if (!tap_check(t, bound >= 0 && conn >= 0 && peer >= 0 && v6 >= 0 && dual >= 0 &&
		       !connect(conn, (struct sockaddr *)&c, sizeof(struct sockaddr_in)),
		       "UDP sockets bound to addresses, to any, and one connected"))
		goto out;
	pa = port_of(&a), pb = port_of(&b), pc = port_of(&c);
	pd = port_of(&d), pe = port_of(&e);

	ipv4_packet(&args, "127.0.0.1", 9, "127.0.0.1", pa);
	expect_restore(t, skel, bound, &args, 0, "a packet to the bound address is queued");
	ipv4_packet(&args, "127.0.0.1", 9, "127.0.0.2", pa);
	expect_restore(t, skel, bound, &args, -EINVAL,
		       "a packet to another address than the bound one is refused");
	ipv4_packet(&args, "127.0.0.1", pc, "127.0.0.1", pb);
	expect_restore(t, skel, conn, &args, 0, "a packet from the peer is queued");
	ipv4_packet(&args, "127.0.0.1", 9, "127.0.0.1", pb);
	expect_restore(t, skel, conn, &args, -EINVAL,
		       "a packet from another port than the peer's is refused");
	ipv4_packet(&args, "127.0.0.3", pc, "127.0.0.1", pb);
	expect_restore(t, skel, conn, &args, -EINVAL,
		       "a packet from another address than the peer's is refused");
	ipv6_packet(&args, "::1", 9, "::1", pd);
	expect_restore(t, skel, v6, &args, 0, "an IPv6 packet to the bound address is queued");
	ipv6_packet(&args, "::1", 9, "fe80::1", pd);
	expect_restore(t, skel, v6, &args, -EINVAL,
		       "an IPv6 packet to another address than the bound one is refused");
	ipv4_packet(&args, "127.0.0.1", 9, "127.0.0.5", pe);
	expect_restore(t, skel, dual, &args, 0,
		       "an IPv4 packet to any address is queued on a socket bound to ::");
out:
	if (bound >= 0)
		close(bound);
	if (conn >= 0)
		close(conn);
	if (peer >= 0)
		close(peer);
	if (v6 >= 0)
		close(v6);
	if (dual >= 0)
		close(dual);
}

int main(void)
{
	struct crib_datagram *skel;
	struct tap t = {};
	char err[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (crib_libbpf_init(err, sizeof(err))) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	skel = crib_datagram__open_and_load();
	if (!skel) {
		printf("Bail out! crib_datagram does not load: %s\n", strerror(errno));
		return 1;
	}
	check_write_room(&t, skel);
	check_restore_addresses(&t, skel);
	crib_datagram__destroy(skel);
	return tap_done(&t);
}
