// SPDX-License-Identifier: GPL-2.0
/*
 * Event programs for crib_holds.c: they read a target's epoll items and
 * inotify watches, some of them throwing from a global function right
 * after, so that a lock of the target left held by a program that ends
 * early would show.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "crib_kfuncs.h"
#include "crib_target.h"

char LICENSE[] SEC("license") = "GPL";

extern void bpf_throw(__u64 cookie) __ksym;

struct holds_args {
	struct crib_target target;	/* the process the run is about */
	int pid;
	int fd;
};

#define NO_TASK		-1000
#define BATCH		4

/* The file at args->fd, referenced; or NULL. */
static __always_inline struct file *file_at(const struct holds_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct file *file;

	if (!task)
		return NULL;
	file = bpf_file_from_task_fd(task, args->fd);
	bpf_task_release(task);
	return file;
}

/* How many items the epoll at args->fd has, all read in batches. */
SEC("crib")
int epoll_read(struct holds_args *args)
{
	struct bpf_crib_epoll_item items[BATCH];
	struct file *file = file_at(args);
	__u32 start = 0;
	int n, i;

	if (!file)
		return NO_TASK;
	for (i = 0; i < 16; i++) {
		n = bpf_epoll_get_items(file, start, items, sizeof(items));
		if (n <= BATCH)
			break;
		start += BATCH;
	}
	bpf_put_file(file);
	return n < 0 ? n : start + n;
}

/*
 * Reads a batch of the epoll's items, then ends the program early: a
 * global function throws past its caller, whatever it holds.
 */
__noinline int epoll_read_and_throw(int pid, int fd)
{
	struct holds_args args = { .pid = pid, .fd = fd };
	struct bpf_crib_epoll_item items[BATCH];
	struct file *file = file_at(&args);

	if (!file)
		return NO_TASK;
	bpf_epoll_get_items(file, 0, items, sizeof(items));
	bpf_put_file(file);
	bpf_throw(1);
	return 0;
}

SEC("crib")
int epoll_throw(struct holds_args *args)
{
	return epoll_read_and_throw(args->pid, args->fd);
}

/* How many watches the inotify at args->fd has, each path read. */
SEC("crib.s")
int inotify_read(struct holds_args *args)
{
	struct bpf_crib_inotify_watch watches[BATCH];
	struct file *file = file_at(args);
	int n, i, paths = 0;
	char path[64];

	if (!file)
		return NO_TASK;
	n = bpf_inotify_get_watches(file, 0, watches, sizeof(watches));
	for (i = 0; i < BATCH && i < n; i++)
		if (bpf_inotify_watch_get_path(file, watches[i].wd, path, sizeof(path)) > 0)
			paths++;
	bpf_put_file(file);
	return n < 0 ? n : paths;
}

/* Reads a batch of the inotify's watches, then ends the program early. */
__noinline int inotify_read_and_throw(int pid, int fd)
{
	struct bpf_crib_inotify_watch watches[BATCH];
	struct holds_args args = { .pid = pid, .fd = fd };
	struct file *file = file_at(&args);

	if (!file)
		return NO_TASK;
	bpf_inotify_get_watches(file, 0, watches, sizeof(watches));
	bpf_put_file(file);
	bpf_throw(1);
	return 0;
}

SEC("crib")
int inotify_throw(struct holds_args *args)
{
	return inotify_read_and_throw(args->pid, args->fd);
}
