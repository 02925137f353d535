// SPDX-License-Identifier: GPL-2.0
/*
 * crib-dump: a process's identity, credentials, scheduling attributes,
 * limits, fs context and mm layout (dump_task), and the kernel side of one
 * of its threads (dump_thread).  Registers are not here: they are only
 * consistent once the thread is stopped, and ptrace reads them then.
 *
 * Fields are read with plain loads through the task pointer (the verifier
 * turns them into faulting-safe loads); the few arrays whose element type
 * is not a struct are copied with bpf_probe_read_kernel().
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "dump.h"
#include "crib_kfuncs.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} task_records SEC(".maps");

static __always_inline s32 pid_nr_of(struct task_struct *task, enum pid_type type)
{
	struct pid *pid = task->signal->pids[type];

	return pid ? pid->numbers[0].nr : 0;
}

static __always_inline void inode_id_of(struct dentry *dentry, struct dump_inode_id *id)
{
	struct inode *inode = dentry ? dentry->d_inode : NULL;

	if (!inode)
		return;
	id->ino = inode->i_ino;
	id->dev = inode->i_sb->s_dev;
	id->present = 1;
}

static __always_inline void read_creds(struct task_struct *task, struct dump_task_rec *t)
{
	const struct cred *cred = task->cred;
	struct group_info *gi = cred->group_info;

	t->uid = cred->uid.val;
	t->gid = cred->gid.val;
	t->euid = cred->euid.val;
	t->egid = cred->egid.val;
	t->suid = cred->suid.val;
	t->sgid = cred->sgid.val;
	t->fsuid = cred->fsuid.val;
	t->fsgid = cred->fsgid.val;
	t->cap_eff = cred->cap_effective.val;
	t->cap_prm = cred->cap_permitted.val;
	t->cap_inh = cred->cap_inheritable.val;
	t->cap_bnd = cred->cap_bset.val;
	t->cap_amb = cred->cap_ambient.val;
	t->ngroups = gi ? gi->ngroups : 0;
	if (t->ngroups)
		bpf_probe_read_kernel(t->groups, sizeof(t->groups), &gi->gid);
}

static __always_inline void read_fs(struct task_struct *task, struct dump_task_rec *t)
{
	struct fs_struct *fs = task->fs;

	if (!fs)
		return;
	t->umask = fs->umask;
	inode_id_of(fs->pwd.dentry, &t->cwd);
	inode_id_of(fs->root.dentry, &t->root);
}

static __always_inline void read_mm(struct task_struct *task, struct dump_task_rec *t)
{
	struct mm_struct *mm = task->mm;

	if (!mm)
		return;
	t->has_mm = 1;
	t->map_count = mm->map_count;
	t->mm_flags = mm->flags;
	t->start_code = mm->start_code;
	t->end_code = mm->end_code;
	t->start_data = mm->start_data;
	t->end_data = mm->end_data;
	t->start_brk = mm->start_brk;
	t->brk = mm->brk;
	t->start_stack = mm->start_stack;
	t->arg_start = mm->arg_start;
	t->arg_end = mm->arg_end;
	t->env_start = mm->env_start;
	t->env_end = mm->env_end;
	t->vdso = (u64)mm->context.vdso;
	if (mm->exe_file)
		inode_id_of(mm->exe_file->f_path.dentry, &t->exe);
	bpf_probe_read_kernel(t->auxv, sizeof(t->auxv), &mm->saved_auxv);
}

SEC("crib")
int dump_task(struct dump_ctx *ctx)
{
	struct task_struct *task;
	struct dump_task_rec *t;
	int i;

	task = bpf_task_from_vpid(ctx->pid);
	if (!task)
		return DUMP_NO_TASK;
	t = bpf_ringbuf_reserve(&task_records, sizeof(*t), 0);
	if (!t) {
		bpf_task_release(task);
		return DUMP_NO_ROOM;
	}
	dump_zero(t, sizeof(*t));
	t->kind = DUMP_REC_TASK;
	t->pid = task->pid;
	t->tgid = task->tgid;
	t->ppid = task->real_parent->tgid;
	t->pgid = pid_nr_of(task, PIDTYPE_PGID);
	t->sid = pid_nr_of(task, PIDTYPE_SID);
	t->nr_threads = task->signal->nr_threads;
	bpf_probe_read_kernel(t->comm, sizeof(t->comm), &task->comm);

	read_creds(task, t);

	t->sched_policy = task->policy;
	t->rt_priority = task->rt_priority;
	t->nice = task->static_prio - 120;	/* MAX_RT_PRIO + NICE_WIDTH / 2 */
	t->personality = task->personality;
	t->no_new_privs = task->atomic_flags & 1;	/* PFA_NO_NEW_PRIVS */
	t->start_boottime = task->start_boottime;
	for (i = 0; i < DUMP_NR_RLIMITS; i++) {
		t->rlim[i].cur = task->signal->rlim[i].rlim_cur;
		t->rlim[i].max = task->signal->rlim[i].rlim_max;
	}

	read_fs(task, t);
	read_mm(task, t);

	bpf_task_release(task);
	bpf_ringbuf_submit(t, 0);
	return DUMP_OK;
}

SEC("crib")
int dump_thread(struct dump_ctx *ctx)
{
	struct task_struct *task;
	struct dump_thread_rec *t;

	task = bpf_task_from_vpid(ctx->pid);
	if (!task)
		return DUMP_NO_TASK;
	if (task->tgid != ctx->tgid) {
		bpf_task_release(task);
		return DUMP_NOT_OURS;
	}
	t = bpf_ringbuf_reserve(&task_records, sizeof(*t), 0);
	if (!t) {
		bpf_task_release(task);
		return DUMP_NO_ROOM;
	}
	dump_zero(t, sizeof(*t));
	t->kind = DUMP_REC_THREAD;
	t->tid = task->pid;
	t->tgid = task->tgid;
	bpf_probe_read_kernel(t->comm, sizeof(t->comm), &task->comm);
	t->blocked = task->blocked.sig[0];
	t->sas_ss_sp = task->sas_ss_sp;
	t->sas_ss_size = task->sas_ss_size;
	t->sas_ss_flags = task->sas_ss_flags;
	t->clear_child_tid = (u64)task->clear_child_tid;
	t->robust_list = (u64)task->robust_list;
	bpf_task_release(task);
	bpf_ringbuf_submit(t, 0);
	return DUMP_OK;
}
