// SPDX-License-Identifier: GPL-2.0
/*
 * Socket programs for crib_holds.c: a sock's reference count is read
 * through a reference of the program's own; the refcount programs take
 * and drop references the way a dump does; the sockmap programs hand a
 * sock that a lookup did not reference (a bound UDP sock is
 * SOCK_RCU_FREE), and that no ptrace check reached, to the CRIB kfuncs,
 * which the verifier must refuse.  Only kfuncs of every version of the
 * series are used, so that these run on a kernel the event programs
 * (crib_holds.bpf.c) do not load on.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "crib_kfuncs.h"
#include "crib_target.h"

char LICENSE[] SEC("license") = "GPL";

struct holds_args {
	struct crib_target target;	/* the process the run is about */
	int pid;
	int fd;
};

#define NO_SOCK		-1001

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} socks SEC(".maps");

/* The sock at args->fd, referenced by a CRIB kfunc; or NULL. */
static __always_inline struct sock *sock_at(const struct holds_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct sock *sk;

	if (!task)
		return NULL;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	return sk;
}

/* The sock's reference count, less the reference read through. */
SEC("crib")
int sock_refcnt(struct holds_args *args)
{
	struct sock *sk = sock_at(args);
	int refs;

	if (!sk)
		return NO_SOCK;
	refs = sk->__sk_common.skc_refcnt.refs.counter - 1;
	bpf_sock_release(sk);
	return refs;
}

/* A reference taken and dropped: the count is what it was. */
SEC("crib")
int sock_get_put(struct holds_args *args)
{
	struct sock *sk = sock_at(args);

	if (!sk)
		return NO_SOCK;
	bpf_sock_release(sk);
	return 0;
}

/* The skb iterator takes a reference of its own, and drops it. */
SEC("crib.s")
int sock_iter_skb(struct holds_args *args)
{
	struct sock *sk = sock_at(args);
	struct bpf_iter_skb it;
	struct sk_buff *skb;
	int n = 0;

	if (!sk)
		return NO_SOCK;
	bpf_iter_skb_new(&it, sk, &sk->sk_receive_queue);
	while ((skb = bpf_iter_skb_next(&it)))
		n += skb->len > 0;
	bpf_iter_skb_destroy(&it);
	bpf_sock_release(sk);
	return n;
}

/* Refused: a sockmap's sock, referenced or not, released as if it were. */
SEC("?crib")
int sockmap_release(struct holds_args *args)
{
	__u32 key = 0;
	struct sock *sk;

	sk = bpf_map_lookup_elem(&socks, &key);
	if (!sk)
		return NO_SOCK;
	bpf_sock_release(sk);
	return 0;
}

/*
 * Refused: a sockmap's sock, which no ptrace check reached, handed to the
 * skb iterator (whose new() and destroy() take and drop a reference of
 * their own), then released as if the lookup had referenced it.
 */
SEC("?crib")
int sockmap_iter_skb(struct holds_args *args)
{
	struct sock *own = sock_at(args), *sk;
	struct bpf_iter_skb it;
	__u32 key = 0;
	int err = 0;

	if (!own)
		return NO_SOCK;
	sk = bpf_map_lookup_elem(&socks, &key);
	if (sk) {
		err = bpf_iter_skb_new(&it, sk, &own->sk_receive_queue);
		bpf_iter_skb_destroy(&it);
		bpf_sock_release(sk);
	}
	bpf_sock_release(own);
	return err;
}
