// SPDX-License-Identifier: GPL-2.0
/*
 * crib-restore: refill the receive queue of a restored UDP socket
 * (restore_udp_queue).
 *
 * crib-restore writes each packet into the user ring buffer udp_packets:
 * its description, then its bytes from skb->head, headers included, which
 * crib-restore builds from the recorded source address.  One run drains
 * the ring buffer: for each packet an skb is allocated for the socket,
 * filled, and queued on it the way the UDP receive path queues one, or
 * freed if anything fails; the verifier checks every allocated skb is one
 * or the other.  Sleepable: allocating a packet of up to 64 KiB may sleep.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "restore_sockets.h"
#include "crib_kfuncs.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_USER_RINGBUF);
	__uint(max_entries, RESTORE_RING_SIZE);
} udp_packets SEC(".maps");

/*
 * Where a packet is copied out of the ring buffer before it goes into its
 * skb: all of it first, so the sample's dynptr, which the verifier does
 * not let a program keep on its stack, is used right away.
 */
struct staging {
	struct bpf_crib_skb_info info;
	__u8 buf[RESTORE_SKB_MASK + 1];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct staging);
} staging SEC(".maps");

/* Why the last run stopped, when a kfunc said so: its error code. */
int queue_err;

struct drain_state {
	s32 pid;
	s32 fd;
	int err;
};

static struct sock *socket_of(struct drain_state *st)
{
	struct task_struct *task;
	struct sock *sk;

	task = bpf_crib_task_from_vpid(st->pid);
	if (!task)
		return NULL;
	sk = bpf_sock_from_task_fd(task, st->fd);
	bpf_task_release(task);
	return sk;
}

/*
 * @n, which the program knows to be at most RESTORE_SKB_MAX, masked where
 * the verifier sees it: the compiler would drop a mask written in C.
 */
static __always_inline __u64 bounded(__u64 n)
{
	asm volatile("%[n] &= %[m]" : [n] "+r"(n) : [m] "i"(RESTORE_SKB_MASK));
	return n;
}

/* The packet of @sample into @stg; its length, or 0 if the sample is bad. */
static __u64 take_sample(const struct bpf_dynptr *sample, struct staging *stg)
{
	__u64 total;

	if (bpf_dynptr_read(&stg->info, sizeof(stg->info), sample, 0, 0))
		return 0;
	total = (__u64)stg->info.headroom + stg->info.len;
	if (!total || total > RESTORE_SKB_MAX)
		return 0;
	total = bounded(total);
	if (bpf_dynptr_read(stg->buf, total, sample, sizeof(struct restore_skb_hdr), 0))
		return 0;
	return total;
}

static long restore_packet(struct bpf_dynptr *sample, void *data)
{
	struct drain_state *st = data;
	struct sk_buff___init *rskb;
	struct staging *stg;
	struct sock *sk;
	__u32 key = 0;
	__u64 total;
	int err;

	stg = bpf_map_lookup_elem(&staging, &key);
	if (!stg)
		return 1;
	total = take_sample(sample, stg);
	if (!total || total > RESTORE_SKB_MAX) {
		st->err = -RESTORE_BAD_SAMPLE;
		return 1;
	}
	sk = socket_of(st);
	if (!sk) {
		st->err = -RESTORE_NO_SOCKET;
		return 1;
	}
	/* the skb holds its own reference on the sock */
	rskb = bpf_restore_skb_alloc(sk, &stg->info);
	bpf_sock_release(sk);
	if (!rskb) {
		st->err = -RESTORE_ALLOC;
		return 1;
	}
	total = bounded(total);
	if (bpf_restore_skb_data(rskb, 0, stg->buf, total) != (int)total) {
		bpf_restore_skb_discard(rskb);
		st->err = -RESTORE_DATA;
		return 1;
	}
	err = bpf_restore_skb_rcv_queue(rskb);
	if (err) {
		queue_err = err;
		st->err = -RESTORE_QUEUE;
		return 1;
	}
	return 0;
}

/* Returns how many packets were queued, or -enum restore_udp_result. */
SEC("crib.s")
int restore_udp_queue(struct restore_udp_ctx *ctx)
{
	struct drain_state st = { .pid = ctx->pid, .fd = ctx->fd };
	long n;

	queue_err = 0;
	n = bpf_user_ringbuf_drain(&udp_packets, restore_packet, &st, 0);
	if (st.err)
		return st.err;
	return (int)n;
}
