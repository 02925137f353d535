/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kfuncs CRIB programs call, declared once: the CRIB kfuncs of the
 * kernel series (kernel/patches) and the generic ones the programs use.
 * Include it after vmlinux.h; pahole 1.24 puts no kfunc prototypes there.
 *
 * What each kfunc returns and how long it lives is in its kernel-doc in
 * kernel/bpf/crib/.  In short: a pointer from an iterator's next() is
 * valid until the following next() or destroy() of that iterator (the
 * verifier refuses a program that keeps it longer; take a reference to
 * keep it); a pointer a KF_OBTAIN kfunc derives from another is valid as
 * long as that other one; acquired pointers are released with their
 * release kfunc, and the kfuncs that acquire may return NULL.
 *
 * None is __weak: every program here runs on the CRIB kernel only (the
 * program type is its own), which has them all, and a kfunc missing from
 * a kernel should fail the load naming it, not a run.
 */
#ifndef CRIB_KFUNCS_H
#define CRIB_KFUNCS_H

/* The errno values the kfuncs return (macros, so not in vmlinux.h) */
#ifndef EPERM
#define EPERM		1
#define ENOENT		2
#define EAGAIN		11
#define ENOMEM		12
#define EINVAL		22
#define ENOSPC		28
#define EOPNOTSUPP	95
#endif

/*
 * The tasks of the run's target tree (kernel/bpf/crib/crib.c, task.c): a
 * task by pid, the ids of a process's threads and the pids of its
 * children copied in batches (a return below the batch means no more),
 * and a task's mappings.  Each refuses a task outside the tree (-EPERM).
 */
extern struct task_struct *bpf_crib_task_from_vpid(s32 vpid) __ksym;
extern int bpf_crib_task_threads(struct task_struct *task, __u32 skip, s32 *pids,
				 __u32 pids__sz) __ksym;
extern int bpf_crib_task_children(struct task_struct *task, __u32 skip, s32 *pids,
				  __u32 pids__sz) __ksym;
extern int bpf_iter_crib_vma_new(struct bpf_iter_crib_vma *it, struct task_struct *task,
				 __u64 addr) __ksym;
extern struct vm_area_struct *bpf_iter_crib_vma_next(struct bpf_iter_crib_vma *it) __ksym;
extern void bpf_iter_crib_vma_destroy(struct bpf_iter_crib_vma *it) __ksym;

/* Generic kfuncs (kernel/bpf/helpers.c) */
extern void bpf_task_release(struct task_struct *p) __ksym;
extern void *bpf_rdonly_cast(const void *obj__ign, __u32 btf_id__k) __ksym;
extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;

/*
 * Generic kfuncs the kernel refuses to CRIB programs, because they reach
 * tasks outside the run's tree; declared for the tests that show it.
 */
extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym;
extern struct task_struct *bpf_task_from_vpid(s32 vpid) __ksym;
extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task,
				 __u64 addr) __ksym;
extern int bpf_iter_task_new(struct bpf_iter_task *it, struct task_struct *task,
			     unsigned int flags) __ksym;

/*
 * Loops of up to thousands of steps go through the numbers iterator: the
 * verifier checks the body until the states converge instead of once per
 * step, as it would for a bounded C loop.  End with bpf_iter_num_destroy().
 */
#define for_each_step(it, max) \
	for (bpf_iter_num_new(&(it), 0, (max)); bpf_iter_num_next(&(it));)

/* Files (kernel/bpf/crib/files.c; bpf_put_file() is fs/bpf_fs_kfuncs.c's) */
extern struct file *bpf_file_from_task_fd(struct task_struct *task, int fd) __ksym;
extern void bpf_put_file(struct file *file) __ksym;
extern int bpf_iter_task_file_new(struct bpf_iter_task_file *it,
				  struct task_struct *task) __ksym;
extern struct file *bpf_iter_task_file_next(struct bpf_iter_task_file *it) __ksym;
extern int bpf_iter_task_file_get_fd(struct bpf_iter_task_file *it__iter) __ksym;
extern int bpf_iter_task_file_get_err(struct bpf_iter_task_file *it__iter) __ksym;
extern void bpf_iter_task_file_destroy(struct bpf_iter_task_file *it) __ksym;

/*
 * Event files (fs/eventfd.c, fs/timerfd.c, fs/signalfd.c, fs/eventpoll.c):
 * each returns -EINVAL for a file of another kind, so a program asks them
 * in turn what a file is.  An epoll's items are copied in batches, under
 * its mutex, which the kfunc takes (only tries: -EAGAIN while epoll_ctl()
 * or epoll_wait() hold it) and releases before returning; it returns how
 * many items there are from the one asked for on.  An item names the file
 * it watches by address only, to tell which file it is.
 */
extern int bpf_eventfd_get_state(struct file *file, struct bpf_crib_eventfd *state) __ksym;
extern int bpf_timerfd_get_state(struct file *file, struct bpf_crib_timerfd *state) __ksym;
extern int bpf_signalfd_get_mask(struct file *file, __u64 *mask) __ksym;
extern int bpf_epoll_get_items(struct file *file, __u32 start, struct bpf_crib_epoll_item *items,
			       __u32 items__sz) __ksym;

/*
 * Inotify (fs/notify/inotify/inotify_user.c): an instance's watches are
 * copied in batches as an epoll's items are, and its unread events
 * counted.  The path of a watch, named by its descriptor, is from the root
 * of its filesystem, and for sleepable programs only.
 */
extern int bpf_inotify_get_watches(struct file *file, __u32 start,
				   struct bpf_crib_inotify_watch *watches,
				   __u32 watches__sz) __ksym;
extern int bpf_inotify_get_queued(struct file *file) __ksym;
extern int bpf_inotify_watch_get_path(struct file *file, int wd, char *buf,
				      __u32 buf__sz) __ksym;

/* Sockets (kernel/bpf/crib/sock.c) */
extern struct sock *bpf_sock_from_task_fd(struct task_struct *task, int fd) __ksym;
extern struct sock *bpf_sock_from_socket(struct socket *sock) __ksym;
extern void bpf_sock_release(struct sock *sk) __ksym;
extern struct socket *bpf_socket_from_file(struct file *file) __ksym;
extern struct tcp_sock *bpf_tcp_sock_from_sock(struct sock *sk) __ksym;
extern struct udp_sock *bpf_udp_sock_from_sock(struct sock *sk) __ksym;
extern int bpf_inet_src_addr_from_socket(struct socket *sock, struct sockaddr_in *addr) __ksym;
extern int bpf_inet_dst_addr_from_socket(struct socket *sock, struct sockaddr_in *addr) __ksym;
extern int bpf_inet6_src_addr_from_socket(struct socket *sock,
					  struct sockaddr_in6 *addr) __ksym;
extern int bpf_inet6_dst_addr_from_socket(struct socket *sock,
					  struct sockaddr_in6 *addr) __ksym;

/*
 * Socket buffers (kernel/bpf/crib/skb.c).  Socket queues are passed as
 * &sk->sk_receive_queue, &sk->sk_write_queue, &up->reader_queue: the
 * verifier keeps members of a trusted pointer trusted.
 */
extern struct sk_buff *bpf_skb_acquire(struct sk_buff *skb) __ksym;
extern void bpf_skb_release(struct sk_buff *skb) __ksym;
extern unsigned int bpf_skb_buf_size(struct sk_buff *skb) __ksym;
extern struct sk_buff *bpf_skb_peek_tail(struct sock *sk, struct sk_buff_head *head) __ksym;
extern int bpf_iter_skb_new(struct bpf_iter_skb *it, struct sock *sk,
			    struct sk_buff_head *head) __ksym;
extern struct sk_buff *bpf_iter_skb_next(struct bpf_iter_skb *it) __ksym;
extern int bpf_iter_skb_get_err(struct bpf_iter_skb *it__iter) __ksym;
extern void bpf_iter_skb_destroy(struct bpf_iter_skb *it) __ksym;
extern int bpf_iter_skb_data_new(struct bpf_iter_skb_data *it, struct sk_buff *skb,
				 u32 chunk_size) __ksym;
extern unsigned int *bpf_iter_skb_data_next(struct bpf_iter_skb_data *it) __ksym;
extern int bpf_iter_skb_data_read(struct bpf_iter_skb_data *it__iter, u8 *buf,
				  u32 buf__sz) __ksym;
extern unsigned int bpf_iter_skb_data_get_offset(struct bpf_iter_skb_data *it__iter) __ksym;
extern unsigned int bpf_iter_skb_data_get_chunk_len(struct bpf_iter_skb_data *it__iter) __ksym;
extern void bpf_iter_skb_data_destroy(struct bpf_iter_skb_data *it) __ksym;

/* Restoring UDP receive queues (kernel/bpf/crib/restore.c) */
extern struct sk_buff___init *bpf_restore_skb_alloc(struct sock *sk,
						    struct bpf_crib_skb_info *skb_info) __ksym;
extern int bpf_restore_skb_data(struct sk_buff___init *rskb, int offset, const u8 *data,
				u32 data__sz) __ksym;
extern int bpf_restore_skb_rcv_queue(struct sk_buff___init *rskb) __ksym;
extern void bpf_restore_skb_discard(struct sk_buff___init *rskb) __ksym;

#endif /* CRIB_KFUNCS_H */
