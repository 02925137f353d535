// SPDX-License-Identifier: GPL-2.0
/*
 * How many skbs the skb iterator copies at once.  It copies a batch of the
 * queue under the queue lock, then hands the copies out one by one; every
 * clone holds a reference on its original's data (skb_shinfo()->dataref),
 * so after each step the queued skbs whose data is referenced twice are
 * the ones with a copy out: the rest of the batch and the current one.
 * The most of them over a walk is the largest batch.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "crib_kfuncs.h"
#include "crib_target.h"

char LICENSE[] SEC("license") = "GPL";

struct batch_args {
	struct crib_target target;	/* the process the run is about */
	int pid;
	int fd;
};

__u32 steps;	/* skbs the iterator handed out */
__u32 peak;	/* the most queued skbs with a copy out at once */

/* A walk along the queue, by address: the skbs are only read. */
struct walk {
	__u64 pos;	/* the skb looked at */
	__u64 end;	/* the queue head, where the list ends */
	__u32 copied;	/* skbs whose data has a second reference */
};

static long count_copied(__u64 i, void *ctx)
{
	struct walk *w = ctx;
	unsigned char *head = NULL;
	__u32 end = 0;
	int dataref = 0;

	if (w->pos == w->end || !w->pos)
		return 1;
	bpf_probe_read_kernel(&head, sizeof(head),
			      (void *)(w->pos + bpf_core_field_offset(struct sk_buff, head)));
	bpf_probe_read_kernel(&end, sizeof(end),
			      (void *)(w->pos + bpf_core_field_offset(struct sk_buff, end)));
	bpf_probe_read_kernel(&dataref, sizeof(dataref),
			      head + end + bpf_core_field_offset(struct skb_shared_info, dataref));
	if (dataref > 1)
		w->copied++;
	bpf_probe_read_kernel(&w->pos, sizeof(w->pos),
			      (void *)(w->pos + bpf_core_field_offset(struct sk_buff, next)));
	return 0;
}

SEC("crib.s")
int batch_peak(struct batch_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct bpf_iter_skb it;
	struct walk w;
	struct sock *sk;

	if (!task)
		return -1;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!sk)
		return -1;
	steps = 0;
	peak = 0;
	bpf_iter_skb_new(&it, sk, &sk->sk_receive_queue);
	while (bpf_iter_skb_next(&it)) {
		w.end = (__u64)&sk->sk_receive_queue;
		w.pos = 0;
		bpf_probe_read_kernel(&w.pos, sizeof(w.pos), &sk->sk_receive_queue.next);
		w.copied = 0;
		bpf_loop(8192, count_copied, &w, 0);
		if (w.copied > peak)
			peak = w.copied;
		steps++;
	}
	bpf_iter_skb_destroy(&it);
	bpf_sock_release(sk);
	return 0;
}
