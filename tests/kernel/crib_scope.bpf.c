// SPDX-License-Identifier: GPL-2.0
/*
 * The tasks a CRIB run may find and reach into: crib_target.c names a
 * target in the run's context and asks for tasks inside and outside its
 * tree, for the children and threads of a task, and reaches into a task
 * the run did not give (a parent, through task->real_parent).
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

#define NO_TASK		-1000
#define PIDS		8

/* What list_children and list_threads copied */
int pids[PIDS];

/* How many children args->vpid has (their pids in pids[]), or why not. */
SEC("crib")
int list_children(struct target_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->vpid);
	int n;

	if (!task)
		return NO_TASK;
	n = bpf_crib_task_children(task, 0, pids, sizeof(pids));
	bpf_task_release(task);
	return n;
}

/* How many threads args->vpid's process has (their ids in pids[]), or why not. */
SEC("crib")
int list_threads(struct target_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->vpid);
	int n;

	if (!task)
		return NO_TASK;
	n = bpf_crib_task_threads(task, 0, pids, sizeof(pids));
	bpf_task_release(task);
	return n;
}

extern struct task_struct *bpf_task_acquire(struct task_struct *p) __ksym;

#define REFUSED_CHILDREN	1
#define REFUSED_MAPPINGS	2
#define REFUSED_FILE		4

/*
 * The parent of args->vpid, reached through task->real_parent rather than
 * given by the run: which of the kfuncs that reach into a task refuse it
 * (REFUSED_* bits), or NO_TASK.
 */
SEC("crib")
int reach_parent(struct target_args *args)
{
	struct task_struct *task = bpf_crib_task_from_vpid(args->vpid);
	struct bpf_iter_crib_vma it;
	struct task_struct *parent;
	struct file *file;
	s32 kids[1];
	int refused = 0;

	if (!task)
		return NO_TASK;
	parent = bpf_task_acquire(task->real_parent);
	bpf_task_release(task);
	if (!parent)
		return NO_TASK;
	if (bpf_crib_task_children(parent, 0, kids, sizeof(kids)) == -EPERM)
		refused |= REFUSED_CHILDREN;
	if (bpf_iter_crib_vma_new(&it, parent, 0) == -EPERM)
		refused |= REFUSED_MAPPINGS;
	bpf_iter_crib_vma_destroy(&it);
	file = bpf_file_from_task_fd(parent, 0);
	if (file)
		bpf_put_file(file);
	else
		refused |= REFUSED_FILE;
	bpf_task_release(parent);
	return refused;
}
