// SPDX-License-Identifier: GPL-2.0
/*
 * Programs the verifier must reject, each for one specific reason, plus
 * controls it must accept.  crib_verifier.c loads them one at a time and
 * checks the verifier log.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct neg_args {
	int pid;
	int fd;
};

extern struct task_struct *bpf_task_from_vpid(s32 vpid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;
extern struct file *bpf_file_from_task_fd(struct task_struct *task, int fd) __ksym;
extern void bpf_file_release(struct file *file) __ksym;
extern int bpf_iter_task_file_new(struct bpf_iter_task_file *it,
				  struct task_struct *task) __ksym;
extern struct file *bpf_iter_task_file_next(struct bpf_iter_task_file *it) __ksym;
extern void bpf_iter_task_file_destroy(struct bpf_iter_task_file *it) __ksym;
extern struct sock *bpf_sock_from_task_fd(struct task_struct *task, int fd) __ksym;
extern void bpf_sock_release(struct sock *sk) __ksym;
extern struct socket *bpf_socket_from_file(struct file *file) __ksym;
extern int bpf_inet_src_addr_from_socket(struct socket *sock,
					 struct sockaddr_in *addr) __ksym;
extern struct sk_buff_head *bpf_receive_queue_from_sock(struct sock *sk) __ksym;
extern struct sk_buff_head *
bpf_reader_queue_from_udp_sock(struct udp_sock *up) __ksym;
extern struct sk_buff *bpf_skb_peek_tail(struct sock *sk,
					 struct sk_buff_head *head) __ksym;
extern void bpf_skb_release(struct sk_buff *skb) __ksym;
extern struct sk_buff___init *
bpf_restore_skb_alloc(struct sock *sk, struct bpf_crib_skb_info *skb_info) __ksym;
extern int bpf_restore_skb_data(struct sk_buff___init *rskb, int offset,
				const __u8 *data, __u32 data__sz) __ksym;
extern int bpf_restore_skb_rcv_queue(struct sk_buff___init *rskb) __ksym;
extern void bpf_restore_skb_discard(struct sk_buff___init *rskb) __ksym;

/* A file reference is never released. */
SEC("crib")
int leak_file(struct neg_args *args)
{
	struct task_struct *task = bpf_task_from_vpid(args->pid);
	struct file *file;

	if (!task)
		return 0;
	file = bpf_file_from_task_fd(task, args->fd);
	bpf_task_release(task);
	return file ? 1 : 0;
}

/* A sock reference is released on one path only. */
SEC("crib")
int leak_sock(struct neg_args *args)
{
	struct task_struct *task = bpf_task_from_vpid(args->pid);
	struct sock *sk;

	if (!task)
		return 0;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!sk)
		return 0;
	if (args->fd == 3)
		return 1;
	bpf_sock_release(sk);
	return 0;
}

/* An skb reference is never released. */
SEC("crib.s")
int leak_skb(struct neg_args *args)
{
	struct task_struct *task = bpf_task_from_vpid(args->pid);
	struct sk_buff *skb;
	struct sock *sk;

	if (!task)
		return 0;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!sk)
		return 0;
	skb = bpf_skb_peek_tail(sk, bpf_receive_queue_from_sock(sk));
	bpf_sock_release(sk);
	/* (reading skb->len also gives libbpf the full struct sk_buff) */
	return skb ? skb->len : 0;
}

/* An skb to restore, allocated for the sock at args->fd, or NULL. */
static __always_inline struct sk_buff___init *restore_skb(struct neg_args *args)
{
	struct task_struct *task = bpf_task_from_vpid(args->pid);
	struct bpf_crib_skb_info info = {};
	struct sk_buff___init *rskb;
	struct sock *sk;

	if (!task)
		return NULL;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!sk)
		return NULL;
	rskb = bpf_restore_skb_alloc(sk, &info);
	bpf_sock_release(sk);
	return rskb;
}

/* A restored skb is left unqueued when filling it fails. */
SEC("crib.s")
int leak_restore_skb(struct neg_args *args)
{
	struct sk_buff___init *rskb = restore_skb(args);
	__u8 byte = 0;
	int ret;

	if (!rskb)
		return 0;
	ret = bpf_restore_skb_data(rskb, 0, &byte, 1);
	if (ret < 0)
		return ret;
	return bpf_restore_skb_rcv_queue(rskb);
}

/* A restored skb is written to once queued. */
SEC("crib.s")
int write_queued_skb(struct neg_args *args)
{
	struct sk_buff___init *rskb = restore_skb(args);
	__u8 byte = 0;

	if (!rskb)
		return 0;
	bpf_restore_skb_rcv_queue(rskb);
	return bpf_restore_skb_data(rskb, 0, &byte, 1);
}

/* A clone of a queued skb is passed as an skb to restore. */
SEC("crib.s")
int write_clone(struct neg_args *args)
{
	struct task_struct *task = bpf_task_from_vpid(args->pid);
	struct sk_buff *skb;
	struct sock *sk;
	__u8 byte = 0;
	int ret;

	if (!task)
		return 0;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!sk)
		return 0;
	skb = bpf_skb_peek_tail(sk, bpf_receive_queue_from_sock(sk));
	bpf_sock_release(sk);
	if (!skb)
		return 0;
	ret = bpf_restore_skb_data((struct sk_buff___init *)skb, 0, &byte, 1);
	bpf_skb_release(skb);
	return ret;
}

/* An skb to restore is released as a plain skb. */
SEC("crib.s")
int release_restore_skb(struct neg_args *args)
{
	struct sk_buff___init *rskb = restore_skb(args);

	if (!rskb)
		return 0;
	bpf_skb_release((struct sk_buff *)rskb);
	return 0;
}

/* The same kfuncs, used correctly, are accepted. */
SEC("crib.s")
int restore_accepted(struct neg_args *args)
{
	struct sk_buff___init *rskb = restore_skb(args);
	__u8 byte = 0;
	int ret;

	if (!rskb)
		return 0;
	ret = bpf_restore_skb_data(rskb, 0, &byte, 1);
	if (ret < 0) {
		bpf_restore_skb_discard(rskb);
		return ret;
	}
	return bpf_restore_skb_rcv_queue(rskb);
}

/* A task_file iterator is never destroyed. */
SEC("crib")
int leak_iter(struct neg_args *args)
{
	struct task_struct *task = bpf_task_from_vpid(args->pid);
	struct bpf_iter_task_file it;
	int n = 0;

	if (!task)
		return 0;
	bpf_iter_task_file_new(&it, task);
	while (bpf_iter_task_file_next(&it))
		n++;
	bpf_task_release(task);
	return n;
}

/* A file is read after its reference was released. */
SEC("crib")
int use_after_release(struct neg_args *args)
{
	struct task_struct *task = bpf_task_from_vpid(args->pid);
	struct file *file;

	if (!task)
		return 0;
	file = bpf_file_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!file)
		return 0;
	bpf_file_release(file);
	return file->f_flags;
}

/* A socket obtained from a file is used after the file was released. */
SEC("crib")
int obtained_after_release(struct neg_args *args)
{
	struct task_struct *task = bpf_task_from_vpid(args->pid);
	struct socket *sock;
	struct file *file;

	if (!task)
		return 0;
	file = bpf_file_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!file)
		return 0;
	sock = bpf_socket_from_file(file);
	bpf_file_release(file);
	if (!sock)
		return 0;
	return sock->type;
}

/* A pointer walked from a trusted one is not trusted. */
SEC("crib")
int untrusted_arg(struct neg_args *args)
{
	struct task_struct *task = bpf_task_from_vpid(args->pid);
	struct sockaddr_in addr;
	struct sock *sk;
	int ret;

	if (!task)
		return 0;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!sk)
		return 0;
	ret = bpf_inet_src_addr_from_socket(sk->sk_socket, &addr);
	bpf_sock_release(sk);
	return ret;
}

/* A sock is passed where a udp_sock is expected. */
SEC("crib")
int wrong_type(struct neg_args *args)
{
	struct task_struct *task = bpf_task_from_vpid(args->pid);
	struct sk_buff_head *q;
	struct sock *sk;

	if (!task)
		return 0;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!sk)
		return 0;
	q = bpf_reader_queue_from_udp_sock((struct udp_sock *)sk);
	bpf_sock_release(sk);
	return q ? 1 : 0;
}

/* A sleepable kfunc is called from a non-sleepable program. */
SEC("crib")
int sleepable_kfunc(struct neg_args *args)
{
	struct task_struct *task = bpf_task_from_vpid(args->pid);
	struct sk_buff *skb;
	struct sock *sk;

	if (!task)
		return 0;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!sk)
		return 0;
	skb = bpf_skb_peek_tail(sk, bpf_receive_queue_from_sock(sk));
	bpf_sock_release(sk);
	if (skb)
		bpf_skb_release(skb);
	return 0;
}

/* A CRIB kfunc is called from another program type. */
SEC("syscall")
int not_crib(struct neg_args *args)
{
	struct task_struct *task = bpf_task_from_vpid(args->pid);
	struct file *file;

	if (!task)
		return 0;
	file = bpf_file_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (file)
		bpf_file_release(file);
	return 0;
}

/* The context is written. */
SEC("crib")
int write_ctx(struct neg_args *args)
{
	args->fd = 0;
	return 0;
}

/* Control: correct use of the same kfuncs is accepted. */
SEC("crib")
int accepted(struct neg_args *args)
{
	struct task_struct *task = bpf_task_from_vpid(args->pid);
	struct socket *sock;
	struct file *file;
	int ret = 0;

	if (!task)
		return 0;
	file = bpf_file_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!file)
		return 0;
	sock = bpf_socket_from_file(file);
	if (sock)
		ret = sock->type;
	bpf_file_release(file);
	return ret;
}
