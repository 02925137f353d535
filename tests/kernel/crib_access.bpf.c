// SPDX-License-Identifier: GPL-2.0
/*
 * One program per kind of access a CRIB kfunc gives to another task:
 * looking up its files, its sockets, iterating over its files and its
 * mappings, reading
 * its socket queues, restoring packets into its sockets.  crib_access.c
 * runs them as callers with and without the privileges each needs; every
 * program returns what the kfunc granted, or a negative errno.
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "crib_kfuncs.h"
#include "crib_target.h"

char LICENSE[] SEC("license") = "GPL";

struct access_args {
	struct crib_target target;	/* the process the run is about */
	int pid;
	int fd;
};

#define ETH_P_IP	0x0800
#define NO_TASK		-1000

/* 1 if the file at args->fd could be had, else 0. */
SEC("crib")
int file_lookup(struct access_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct file *file;

	if (!task)
		return NO_TASK;
	file = bpf_file_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!file)
		return 0;
	bpf_put_file(file);
	return 1;
}

/* 1 if the sock at args->fd could be had, else 0. */
SEC("crib")
int sock_lookup(struct access_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct sock *sk;

	if (!task)
		return NO_TASK;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!sk)
		return 0;
	bpf_sock_release(sk);
	return 1;
}

/* How many files the iterator visits, or why it would not start. */
SEC("crib")
int file_iter(struct access_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct bpf_iter_task_file it;
	int ret;

	if (!task)
		return NO_TASK;
	ret = bpf_iter_task_file_new(&it, task);
	while (bpf_iter_task_file_next(&it))
		ret++;
	bpf_iter_task_file_destroy(&it);
	bpf_task_release(task);
	return ret;
}

/* How many mappings the memory map walk visits, or why it would not start. */
SEC("crib")
int vma_iter(struct access_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct bpf_iter_crib_vma it;
	int ret;

	if (!task)
		return NO_TASK;
	ret = bpf_iter_crib_vma_new(&it, task, 0);
	while (bpf_iter_crib_vma_next(&it))
		ret++;
	bpf_iter_crib_vma_destroy(&it);
	bpf_task_release(task);
	return ret;
}

/* How many skbs of the receive queue of the sock at args->fd can be read, or why not. */
SEC("crib.s")
int queue_read(struct access_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct bpf_iter_skb it;
	struct sock *sk;
	int ret;

	if (!task)
		return NO_TASK;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!sk)
		return NO_TASK;
	ret = bpf_iter_skb_new(&it, sk, &sk->sk_receive_queue);
	while (bpf_iter_skb_next(&it))
		ret++;
	bpf_iter_skb_destroy(&it);
	bpf_sock_release(sk);
	return ret;
}

/* 1 if an skb to restore into the sock at args->fd could be allocated. */
SEC("crib.s")
int restore_alloc(struct access_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct bpf_crib_skb_info info = {
		.headroom = 28,		/* an IPv4 header, then a UDP header */
		.len = 4,
		.protocol = bpf_htons(ETH_P_IP),
		.mac_header = 0xffff,
		.network_header = 0,
		.transport_header = 20,
	};
	struct sk_buff___init *rskb;
	struct sock *sk;

	if (!task)
		return NO_TASK;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!sk)
		return NO_TASK;
	rskb = bpf_restore_skb_alloc(sk, &info);
	bpf_sock_release(sk);
	if (!rskb)
		return 0;
	bpf_restore_skb_discard(rskb);
	return 1;
}

/* 1 if a copy of the last skb queued on the sock at args->fd could be had. */
SEC("crib.s")
int peek_tail(struct access_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct sk_buff *skb;
	struct sock *sk;

	if (!task)
		return NO_TASK;
	sk = bpf_sock_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!sk)
		return NO_TASK;
	skb = bpf_skb_peek_tail(sk, &sk->sk_receive_queue);
	bpf_sock_release(sk);
	if (!skb)
		return 0;
	bpf_skb_release(skb);
	return 1;
}
