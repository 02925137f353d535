/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by restore_sockets.bpf.c and crib-restore: the context the
 * program is run with and the samples crib-restore writes into its user
 * ring buffer.  Fixed-size types only.
 *
 * restore_udp_queue refills the receive queue of the UDP socket @fd of
 * @pid with the packets waiting in the ring buffer, in order: each sample
 * is a struct restore_skb_hdr followed by the packet's bytes from
 * skb->head, headroom (the IP and UDP headers recvmsg() reads the source
 * from) then payload.
 */
#ifndef CRIB_RESTORE_SOCKETS_H
#define CRIB_RESTORE_SOCKETS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "crib_target.h"

#define RESTORE_SKB_MAX		(65535 + 64)	/* headroom + payload, at most */
#define RESTORE_SKB_MASK	0x1ffff		/* a power of two less one above it */
#define RESTORE_RING_SIZE	(1024 * 1024)

/* The program's results, as negative return values. */
enum restore_udp_result {
	RESTORE_NO_SOCKET = 1,	/* no such socket in that process */
	RESTORE_BAD_SAMPLE = 2,	/* a sample shorter than it says */
	RESTORE_ALLOC = 3,	/* bpf_restore_skb_alloc() refused the packet */
	RESTORE_DATA = 4,	/* bpf_restore_skb_data() refused a range */
	RESTORE_QUEUE = 5,	/* bpf_restore_skb_rcv_queue() failed: see queue_err */
};

/* Run by the new process on itself: it is the run's target. */
struct restore_udp_ctx {
	struct crib_target target;
	__s32 pid;
	__s32 fd;
};

/* Laid out as the kernel's struct bpf_crib_skb_info, which it is handed to. */
struct restore_skb_hdr {
	__u64 tstamp;
	__u32 headroom;
	__u32 len;
	__u16 protocol;		/* network byte order */
	__u16 mac_header;	/* 0xffff: none */
	__u16 network_header;
	__u16 transport_header;
};

#endif /* CRIB_RESTORE_SOCKETS_H */
