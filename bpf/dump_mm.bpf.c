// SPDX-License-Identifier: GPL-2.0
/*
 * crib-dump: every VMA of a process, in address order, through the CRIB
 * vma open-coded iterator (the task_vma one, kept to the run's tree).  When the
 * ring buffer fills up the program stops with DUMP_NO_ROOM; user space
 * drains it and runs the program again from the end of the last VMA it got.
 *
 * Paths of backing files are not resolved here: a CRIB program cannot call
 * bpf_d_path(), and a bounded d_parent walk stops at mount points.  The
 * program gives the file's device and inode; crib-dump resolves the path
 * and checks it names that same inode.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "dump.h"
#include "crib_kfuncs.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} vma_records SEC(".maps");

SEC("crib")
int dump_vmas(struct dump_ctx *ctx)
{
	struct bpf_iter_crib_vma it;
	struct vm_area_struct *vma;
	struct task_struct *task;
	struct inode *inode;
	struct dump_vma_rec *v;
	int ret = DUMP_OK, err;

	task = bpf_crib_task_from_vpid(ctx->pid);
	if (!task)
		return DUMP_NO_TASK;
	if (!task->mm) {
		bpf_task_release(task);
		return DUMP_NO_MM;
	}
	err = bpf_iter_crib_vma_new(&it, task, ctx->start);
	if (err) {
		/* -EPERM (no ptrace rights), -EAGAIN or -EBUSY (the task is
		 * executing a program, or holds its alloc lock), -ENOENT (mm gone)
		 */
		ret = err == -EPERM ? DUMP_NO_ACCESS : task->mm ? DUMP_BUSY : DUMP_NO_MM;
		goto out;
	}
	while ((vma = bpf_iter_crib_vma_next(&it))) {
		v = bpf_ringbuf_reserve(&vma_records, sizeof(*v), 0);
		if (!v) {
			ret = DUMP_NO_ROOM;
			break;
		}
		dump_zero(v, sizeof(*v));
		v->kind = DUMP_REC_VMA;
		v->start = vma->vm_start;
		v->end = vma->vm_end;
		v->vm_flags = vma->vm_flags;
		v->pgoff = vma->vm_pgoff;
		if (vma->vm_file) {
			inode = vma->vm_file->f_inode;
			v->has_file = 1;
			v->ino = inode->i_ino;
			v->dev = inode->i_sb->s_dev;
			v->i_mode = inode->i_mode;
			v->size = inode->i_size;
		}
		bpf_ringbuf_submit(v, 0);
	}
out:
	bpf_iter_crib_vma_destroy(&it);
	bpf_task_release(task);
	return ret;
}
