// SPDX-License-Identifier: GPL-2.0
/*
 * Datagrams as the CRIB kfuncs hand them out and take them back, for
 * crib_datagram.c: the bytes of a datagram being built in a write queue,
 * and a packet restored into a receive queue, which the kernel accepts
 * only where the UDP lookup would have delivered it.
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "crib_kfuncs.h"
#include "crib_target.h"

char LICENSE[] SEC("license") = "GPL";

#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD
#define NO_SOCKET	-1000
#define NO_SKB		-1001

#define WRITTEN_MAX	512
#define PAYLOAD		16
#define IPV4_PACKET	(20 + 8 + PAYLOAD)
#define IPV6_PACKET	(40 + 8 + PAYLOAD)

struct datagram_args {
	struct crib_target target;	/* the process the run is about */
	int pid;
	int fd;
	int ipv6;			/* restore: an IPv6 packet, else IPv4 */
	/* restore: IP and UDP headers, payload */
	__u8 packet[IPV6_PACKET] __attribute__((aligned(8)));
};

/* What write_queue_bytes() read: the first skb's bytes from where they start. */
__u8 written[WRITTEN_MAX];
__u32 written_len;

static struct sock *sock_of(struct datagram_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct sock *sk;

	if (!task)
		return NULL;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	return sk;
}

/*
 * The bytes the skb_data iterator gives of the first skb of the write
 * queue of the sock at args->fd, in one chunk: 0, or why not.
 */
SEC("crib.s")
int write_queue_bytes(struct datagram_args *args)
{
	struct bpf_iter_skb_data data;
	struct bpf_iter_skb it;
	struct sk_buff *skb;
	struct sock *sk;
	int ret = NO_SKB;

	sk = sock_of(args);
	if (!sk)
		return NO_SOCKET;
	bpf_iter_skb_new(&it, sk, &sk->sk_write_queue);
	skb = bpf_iter_skb_next(&it);
	if (skb) {
		bpf_iter_skb_data_new(&data, skb, WRITTEN_MAX);
		if (bpf_iter_skb_data_next(&data)) {
			ret = bpf_iter_skb_data_read(&data, written, sizeof(written));
			if (ret > 0) {
				written_len = ret;
				ret = 0;
			}
		}
		bpf_iter_skb_data_destroy(&data);
	}
	bpf_iter_skb_destroy(&it);
	bpf_sock_release(sk);
	return ret;
}

/*
 * Restore args->packet into the sock at args->fd: what
 * bpf_restore_skb_rcv_queue() said, or why it was not reached.
 */
SEC("crib.s")
int restore_packet(struct datagram_args *args)
{
	struct bpf_crib_skb_info info = {
		.len = PAYLOAD,
		.mac_header = 0xffff,
		.network_header = 0,
	};
	__u8 packet[IPV6_PACKET];
	struct sk_buff___init *rskb;
	struct sock *sk;
	int ret;

	__builtin_memcpy(packet, args->packet, sizeof(packet));
	if (args->ipv6) {
		info.headroom = 40 + 8;
		info.protocol = bpf_htons(ETH_P_IPV6);
		info.transport_header = 40;
	} else {
		info.headroom = 20 + 8;
		info.protocol = bpf_htons(ETH_P_IP);
		info.transport_header = 20;
	}
	sk = sock_of(args);
	if (!sk)
		return NO_SOCKET;
	rskb = bpf_restore_skb_alloc(sk, &info);
	bpf_sock_release(sk);
	if (!rskb)
		return NO_SKB;
	if (args->ipv6)
		ret = bpf_restore_skb_data(rskb, 0, packet, IPV6_PACKET);
	else
		ret = bpf_restore_skb_data(rskb, 0, packet, IPV4_PACKET);
	if (ret < 0) {
		bpf_restore_skb_discard(rskb);
		return ret;
	}
	return bpf_restore_skb_rcv_queue(rskb);
}
