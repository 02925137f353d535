// SPDX-License-Identifier: GPL-2.0
/*
 * Programs the verifier must reject, each for one specific reason, plus
 * controls it must accept.  crib_verifier.c loads them one at a time and
 * checks the verifier log.  A program that uses memory after it was freed
 * is also run, should it ever load, so that KASAN reports the use.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "crib_kfuncs.h"
#include "crib_target.h"

char LICENSE[] SEC("license") = "GPL";

struct neg_args {
	struct crib_target target;	/* the process the run is about */
	int pid;
	int fd;
};

/* A file reference is never released. */
SEC("crib")
int leak_file(struct neg_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct file *file;

	if (!task)
		return 0;
	file = bpf_file_from_task_fd(task, args->fd);
	bpf_task_release(task);
	return file ? 1 : 0;
}

/* The sock at args->fd of args->pid, or NULL. */
static __always_inline struct sock *sock_of(struct neg_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct sock *sk;

	if (!task)
		return NULL;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	return sk;
}

/* An skb is read after the next step of its iterator freed it. */
SEC("crib.s")
int skb_after_next(struct neg_args *args)
{
	struct sk_buff *prev, *skb;
	struct bpf_iter_skb it;
	struct sock *sk = sock_of(args);
	int size = 0;

	if (!sk)
		return 0;
	bpf_iter_skb_new(&it, sk, &sk->sk_receive_queue);
	prev = bpf_iter_skb_next(&it);
	skb = bpf_iter_skb_next(&it);
	if (prev && skb)
		size = bpf_skb_buf_size(prev);
	bpf_iter_skb_destroy(&it);
	bpf_sock_release(sk);
	return size;
}

/* An skb kept on the stack is read after the next step freed it. */
SEC("crib.s")
int skb_spilled_after_next(struct neg_args *args)
{
	struct sk_buff *skb, *saved;
	struct bpf_iter_skb it;
	struct sock *sk = sock_of(args);
	int len = 0;

	if (!sk)
		return 0;
	bpf_iter_skb_new(&it, sk, &sk->sk_receive_queue);
	saved = bpf_iter_skb_next(&it);
	asm volatile ("" : "+m"(saved));	/* kept on the stack */
	skb = bpf_iter_skb_next(&it);
	if (skb) {
		skb = saved;
		if (skb)
			len = skb->len;
	}
	bpf_iter_skb_destroy(&it);
	bpf_sock_release(sk);
	return len;
}

/* An skb is referenced after its iterator was destroyed. */
SEC("crib.s")
int skb_after_destroy(struct neg_args *args)
{
	struct bpf_iter_skb it;
	struct sock *sk = sock_of(args);
	struct sk_buff *skb, *kept;

	if (!sk)
		return 0;
	bpf_iter_skb_new(&it, sk, &sk->sk_receive_queue);
	skb = bpf_iter_skb_next(&it);
	bpf_iter_skb_destroy(&it);
	if (skb) {
		kept = bpf_skb_acquire(skb);
		if (kept)
			bpf_skb_release(kept);
	}
	bpf_sock_release(sk);
	return 0;
}

/* A file is used after the next step of its iterator dropped it. */
SEC("crib")
int file_after_next(struct neg_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct bpf_iter_task_file it;
	struct file *prev, *file;
	int n = 0;

	if (!task)
		return 0;
	bpf_iter_task_file_new(&it, task);
	prev = bpf_iter_task_file_next(&it);
	file = bpf_iter_task_file_next(&it);
	if (prev && file && bpf_socket_from_file(prev))
		n = 1;
	bpf_iter_task_file_destroy(&it);
	bpf_task_release(task);
	return n;
}

/* A file is read after its iterator was destroyed. */
SEC("crib")
int file_after_destroy(struct neg_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct bpf_iter_task_file it;
	struct file *file;
	int flags = 0;

	if (!task)
		return 0;
	bpf_iter_task_file_new(&it, task);
	file = bpf_iter_task_file_next(&it);
	bpf_iter_task_file_destroy(&it);
	if (file)
		flags = file->f_flags;
	bpf_task_release(task);
	return flags;
}

/* A socket obtained from a file is used after the next step dropped the file. */
SEC("crib")
int obtained_after_next(struct neg_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct bpf_iter_task_file it;
	struct socket *sock = NULL;
	struct file *file;
	struct sock *sk;

	if (!task)
		return 0;
	bpf_iter_task_file_new(&it, task);
	while ((file = bpf_iter_task_file_next(&it))) {
		sock = bpf_socket_from_file(file);
		if (sock)
			break;
	}
	file = bpf_iter_task_file_next(&it);
	if (file && sock) {
		sk = bpf_sock_from_socket(sock);
		if (sk)
			bpf_sock_release(sk);
	}
	bpf_iter_task_file_destroy(&it);
	bpf_task_release(task);
	return 0;
}

/* A socket obtained from a file is used after its iterator was destroyed. */
SEC("crib")
int obtained_after_destroy(struct neg_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct bpf_iter_task_file it;
	struct socket *sock = NULL;
	struct file *file;
	struct sock *sk;

	if (!task)
		return 0;
	bpf_iter_task_file_new(&it, task);
	while ((file = bpf_iter_task_file_next(&it))) {
		sock = bpf_socket_from_file(file);
		if (sock)
			break;
	}
	bpf_iter_task_file_destroy(&it);
	if (sock) {
		sk = bpf_sock_from_socket(sock);
		if (sk)
			bpf_sock_release(sk);
	}
	bpf_task_release(task);
	return 0;
}

/* An obtained pointer owns no reference, so it cannot be released. */
SEC("crib")
int obtained_released(struct neg_args *args)
{
	struct sock *sk = sock_of(args);
	struct udp_sock *up;

	if (!sk)
		return 0;
	up = bpf_udp_sock_from_sock(sk);
	if (up)
		bpf_sock_release((struct sock *)up);
	bpf_sock_release(sk);
	return 0;
}

/* A reference on an skb the program does not own may fail. */
SEC("crib.s")
int skb_acquire_unchecked(struct neg_args *args)
{
	struct sk_buff *skb, *kept;
	struct bpf_iter_skb it;
	struct sock *sk = sock_of(args);

	if (!sk)
		return 0;
	bpf_iter_skb_new(&it, sk, &sk->sk_receive_queue);
	skb = bpf_iter_skb_next(&it);
	if (skb) {
		kept = bpf_skb_acquire(skb);
		bpf_skb_release(kept);
	}
	bpf_iter_skb_destroy(&it);
	bpf_sock_release(sk);
	return 0;
}

/* An iterated skb kept with its own reference outlives the iterator. */
SEC("crib.s")
int skb_kept_accepted(struct neg_args *args)
{
	struct sk_buff *skb, *kept = NULL;
	struct bpf_iter_skb it;
	struct sock *sk = sock_of(args);
	int size = 0;

	if (!sk)
		return 0;
	bpf_iter_skb_new(&it, sk, &sk->sk_receive_queue);
	skb = bpf_iter_skb_next(&it);
	if (skb)
		kept = bpf_skb_acquire(skb);
	bpf_iter_skb_next(&it);
	bpf_iter_skb_destroy(&it);
	if (kept) {
		size = bpf_skb_buf_size(kept);
		bpf_skb_release(kept);
	}
	bpf_sock_release(sk);
	return size;
}

/* A sock reference is released on one path only. */
SEC("crib")
int leak_sock(struct neg_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
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
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct sk_buff *skb;
	struct sock *sk;

	if (!task)
		return 0;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!sk)
		return 0;
	skb = bpf_skb_peek_tail(sk, &sk->sk_receive_queue);
	bpf_sock_release(sk);
	/* (reading skb->len also gives libbpf the full struct sk_buff) */
	return skb ? skb->len : 0;
}

/* An skb to restore, allocated for the sock at args->fd, or NULL. */
static __always_inline struct sk_buff___init *restore_skb(struct neg_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
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
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
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
	skb = bpf_skb_peek_tail(sk, &sk->sk_receive_queue);
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
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
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
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct file *file;

	if (!task)
		return 0;
	file = bpf_file_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!file)
		return 0;
	bpf_put_file(file);
	return file->f_flags;
}

/* A socket obtained from a file is used after the file was released. */
SEC("crib")
int obtained_after_release(struct neg_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct socket *sock;
	struct file *file;

	if (!task)
		return 0;
	file = bpf_file_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!file)
		return 0;
	sock = bpf_socket_from_file(file);
	bpf_put_file(file);
	if (!sock)
		return 0;
	return sock->type;
}

/* A pointer walked from a trusted one is not trusted. */
SEC("crib")
int untrusted_arg(struct neg_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
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

/* A sock is passed where a socket is expected. */
SEC("crib")
int wrong_type(struct neg_args *args)
{
	struct sock *sk = sock_of(args);
	struct sockaddr_in addr;
	int ret;

	if (!sk)
		return 0;
	ret = bpf_inet_src_addr_from_socket((struct socket *)sk, &addr);
	bpf_sock_release(sk);
	return ret;
}

/* A sleepable kfunc is called from a non-sleepable program. */
SEC("crib")
int sleepable_kfunc(struct neg_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct sk_buff *skb;
	struct sock *sk;

	if (!task)
		return 0;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!sk)
		return 0;
	skb = bpf_skb_peek_tail(sk, &sk->sk_receive_queue);
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
		bpf_put_file(file);
	return 0;
}

/* The context is written. */
SEC("crib")
int write_ctx(struct neg_args *args)
{
	args->fd = 0;
	return 0;
}

extern int bpf_iter_css_new(struct bpf_iter_css *it, struct cgroup_subsys_state *start,
			    unsigned int flags) __ksym;
extern struct cgroup_subsys_state *bpf_iter_css_next(struct bpf_iter_css *it) __ksym;
extern void bpf_iter_css_destroy(struct bpf_iter_css *it) __ksym;

/* A task from nothing but its pid: tasks come from the CRIB kfuncs. */
SEC("crib")
int task_from_pid(struct neg_args *args)
{
	struct task_struct *task = bpf_task_from_pid(args->pid);

	if (!task)
		return 0;
	bpf_task_release(task);
	return 1;
}

/* A task from its pid in the caller's namespace, anywhere in the system. */
SEC("crib")
int task_from_vpid(struct neg_args *args)
{
	struct task_struct *task = bpf_task_from_vpid(args->pid);

	if (!task)
		return 0;
	bpf_task_release(task);
	return 1;
}

extern struct task_struct *bpf_iter_task_next(struct bpf_iter_task *it) __ksym;
extern void bpf_iter_task_destroy(struct bpf_iter_task *it) __ksym;

/* Every process, through the task iterator. */
SEC("crib")
int task_iter(struct neg_args *args)
{
	struct bpf_iter_task it;
	int n = 0;

	bpf_iter_task_new(&it, NULL, BPF_TASK_ITER_ALL_PROCS);
	while (bpf_iter_task_next(&it))
		n++;
	bpf_iter_task_destroy(&it);
	return n;
}

extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __ksym;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __ksym;

/*
 * The mappings of the task's parent through the generic task_vma
 * iterator, which takes any task it is handed.
 */
SEC("crib")
int task_vma_iter(struct neg_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct bpf_iter_task_vma it;
	int n = 0;

	if (!task)
		return 0;
	bpf_iter_task_vma_new(&it, task->real_parent, 0);
	while (bpf_iter_task_vma_next(&it))
		n++;
	bpf_iter_task_vma_destroy(&it);
	bpf_task_release(task);
	return n;
}

/* Every cgroup, through an iterator of the common kfunc set. */
SEC("crib")
int css_iter(struct neg_args *args)
{
	struct bpf_iter_css it;
	int n = 0;

	bpf_iter_css_new(&it, NULL, 0);
	while (bpf_iter_css_next(&it))
		n++;
	bpf_iter_css_destroy(&it);
	return n;
}

/* The current task, whoever runs the program. */
SEC("crib")
int current_task(struct neg_args *args)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return task->pid;
}

/* A read at any user address. */
SEC("crib")
int read_user(struct neg_args *args)
{
	long word = 0;

	bpf_probe_read_user(&word, sizeof(word), (void *)(long)args->fd);
	return word;
}

/* Control: a process's children, threads and mappings, kept to the run's tree. */
SEC("crib")
int tree_accepted(struct neg_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct bpf_iter_crib_vma it;
	s32 pids[4];
	int n;

	if (!task)
		return 0;
	n = bpf_crib_task_children(task, 0, pids, sizeof(pids));
	n += bpf_crib_task_threads(task, 0, pids, sizeof(pids));
	bpf_iter_crib_vma_new(&it, task, 0);
	while (bpf_iter_crib_vma_next(&it))
		n++;
	bpf_iter_crib_vma_destroy(&it);
	bpf_task_release(task);
	return n;
}

/* Control: correct use of the same kfuncs is accepted. */
SEC("crib")
int accepted(struct neg_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
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
	bpf_put_file(file);
	return ret;
}
