// SPDX-License-Identifier: GPL-2.0
/*
 * A timerfd's state as bpf_timerfd_get_state() reports it, for
 * crib_timerfd.c to hold against timerfd_gettime() and read().
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "crib_kfuncs.h"
#include "crib_target.h"

char LICENSE[] SEC("license") = "GPL";

struct timerfd_args {
	struct crib_target target;	/* the process the run is about */
	int pid;
	int fd;
};

#define NO_FILE		-1000

/* What the kfunc reported */
__s64 value, interval;
__u64 ticks;

/* 0 with the timerfd at args->fd read into state, or why not. */
SEC("crib")
int timerfd_state(struct timerfd_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->pid);
	struct bpf_crib_timerfd state = {};
	struct file *file;
	int ret;

	if (!task)
		return NO_FILE;
	file = bpf_file_from_task_fd(task, args->fd);
	bpf_task_release(task);
	if (!file)
		return NO_FILE;
	ret = bpf_timerfd_get_state(file, &state);
	bpf_put_file(file);
	value = state.value;
	interval = state.interval;
	ticks = state.ticks;
	return ret;
}
