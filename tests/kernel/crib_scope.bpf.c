// SPDX-License-Identifier: GPL-2.0
/*
 * The task a CRIB run may find: crib_target.c names a target in the
 * run's context and asks for tasks inside and outside its tree.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "crib_kfuncs.h"

char LICENSE[] SEC("license") = "GPL";

/* struct bpf_crib_ctx, then the pid to look for */
struct target_args {
	int target_pidfd;
	unsigned int flags;
	int vpid;
};

/* 1 if the task args->vpid was found, 0 if not. */
SEC("crib")
int find_task(struct target_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->vpid);

	if (!task)
		return 0;
	bpf_task_release(task);
	return 1;
}
