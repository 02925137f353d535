// SPDX-License-Identifier: GPL-2.0
/*
 * crib-dump: a process's identity, credentials, scheduling attributes,
 * limits, fs context, mm layout and place in its tree (dump_task), the
 * kernel side of one of its threads (dump_thread), and its children
 * (dump_children).  Registers are not here: they are only consistent once
 * the thread is stopped, and ptrace reads them then.
 *
 * Fields are read with plain loads through the task pointer (the verifier
 * turns them into faulting-safe loads); the few arrays whose element type
 * is not a struct are copied with bpf_probe_read_kernel().
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "dump.h"
#include "crib_kfuncs.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} task_records SEC(".maps");

/* include/linux/sched.h, include/linux/sched/signal.h */
#define EXIT_ZOMBIE		0x20
#define SIGNAL_STOP_STOPPED	0x1

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

/* The credentials of one thread: the kernel keeps them per thread. */
static __always_inline void read_creds(struct task_struct *task, struct dump_creds *c)
{
	const struct cred *cred = task->cred;
	struct group_info *gi = cred->group_info;

	c->uid = cred->uid.val;
	c->gid = cred->gid.val;
	c->euid = cred->euid.val;
	c->egid = cred->egid.val;
	c->suid = cred->suid.val;
	c->sgid = cred->sgid.val;
	c->fsuid = cred->fsuid.val;
	c->fsgid = cred->fsgid.val;
	c->cap_eff = cred->cap_effective.val;
	c->cap_prm = cred->cap_permitted.val;
	c->cap_inh = cred->cap_inheritable.val;
	c->cap_bnd = cred->cap_bset.val;
	c->cap_amb = cred->cap_ambient.val;
	c->securebits = cred->securebits;
	c->ngroups = gi ? gi->ngroups : 0;
	if (c->ngroups)
		bpf_probe_read_kernel(c->groups, sizeof(c->groups), &gi->gid);
}

/*
 * Where the process is in its tree beyond its ids: a zombie and how it
 * ended, a group stop and the signal its parent has yet to be told of,
 * the signal its parent gets when it exits, a child subreaper, and what it
 * may share with another process.
 */
static __always_inline void read_tree_state(struct task_struct *task, struct dump_task_rec *t)
{
	struct signal_struct *sig = task->signal;

	t->exit_state = task->exit_state;
	t->exit_code = task->exit_code;
	t->exit_signal = task->exit_signal;
	t->stopped = sig->flags & SIGNAL_STOP_STOPPED ? 1 : 0;
	t->stop_code = t->stopped ? sig->group_exit_code : 0;
	t->child_subreaper = BPF_CORE_READ_BITFIELD(sig, is_child_subreaper);
	t->threads_live = sig->live.counter;
	t->mm_obj = (u64)task->mm;
	t->files_obj = (u64)task->files;
	t->fs_obj = (u64)task->fs;
	t->sighand_obj = (u64)task->sighand;
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
	if (bpf_core_field_exists(mm->membarrier_state))
		t->membarrier_state = mm->membarrier_state.counter;
	if (mm->exe_file)
		inode_id_of(mm->exe_file->f_path.dentry, &t->exe);
	bpf_probe_read_kernel(t->auxv, sizeof(t->auxv), &mm->saved_auxv);
}

/*
 * The namespaces @task is in.  The kernel keeps them per thread: nsproxy
 * and the credentials' user namespace.  An exited task has no nsproxy.
 */
static __always_inline void read_namespaces(struct task_struct *task, struct dump_namespaces *ns)
{
	struct nsproxy *nsp = task->nsproxy;
	struct pid *pid = task->thread_pid;

	ns->pid_level = pid ? pid->level : 0;
	ns->ino[DUMP_NS_USER] = task->cred->user_ns->ns.inum;
	if (!nsp)
		return;
	ns->ino[DUMP_NS_PID_FOR_CHILDREN] = nsp->pid_ns_for_children ?
					    nsp->pid_ns_for_children->ns.inum : 0;
	ns->ino[DUMP_NS_MNT] = nsp->mnt_ns->ns.inum;
	ns->ino[DUMP_NS_NET] = nsp->net_ns->ns.inum;
	ns->ino[DUMP_NS_UTS] = nsp->uts_ns->ns.inum;
	ns->ino[DUMP_NS_IPC] = nsp->ipc_ns->ns.inum;
	ns->ino[DUMP_NS_CGROUP] = nsp->cgroup_ns->ns.inum;
	ns->ino[DUMP_NS_TIME] = nsp->time_ns->ns.inum;
	ns->ino[DUMP_NS_TIME_FOR_CHILDREN] = nsp->time_ns_for_children->ns.inum;
}

/* Thread ids and children's pids copied per kfunc call, on the stack. */
#define PID_BATCH	16
#define MAX_PIDS	(1 << 20)

/* Which of @task's namespaces differ from those in @ns, as a mask. */
static __always_inline __u32 odd_namespaces(struct task_struct *task,
					    const struct dump_namespaces *ns)
{
	struct dump_namespaces theirs;
	__u32 mask = 0;
	int i;

	dump_zero(&theirs, sizeof(theirs));
	read_namespaces(task, &theirs);
	for (i = 0; i < DUMP_NR_NS; i++)
		if (theirs.ino[i] != ns->ino[i])
			mask |= 1u << i;
	return mask;
}

/* Whether thread @tid of @leader's process is in namespaces of its own; noted in @t. */
static __always_inline bool odd_thread(s32 tid, struct task_struct *leader, struct dump_task_rec *t)
{
	struct task_struct *task;
	__u32 mask = 0;

	task = bpf_crib_task_from_vpid(tid);
	if (!task)	/* exited since its id was copied */
		return false;
	if (task != leader && !task->exit_state)
		mask = odd_namespaces(task, &t->ns);
	if (mask) {
		t->ns_odd_tid = task->pid;
		t->ns_odd_mask = mask;
	}
	bpf_task_release(task);
	return mask != 0;
}

/*
 * The first thread of @leader's process whose namespaces are not the
 * leader's (setns(2) and unshare(2) act on the calling thread alone), and
 * which of them differ.  One loop over the threads, which refills a batch
 * of their ids whenever it starts one, so that the verifier checks its
 * body once rather than once per id of a batch.
 */
static __always_inline void find_odd_thread(struct task_struct *leader, struct dump_task_rec *t)
{
	s32 tids[PID_BATCH] = {};
	struct bpf_iter_num it;
	__u32 skip = 0, i;
	int n = 0, *step;

	bpf_iter_num_new(&it, 0, MAX_PIDS);
	while ((step = bpf_iter_num_next(&it))) {
		i = (__u32)*step % PID_BATCH;
		if (i == 0) {
			n = bpf_crib_task_threads(leader, skip, tids, sizeof(tids));
			skip += PID_BATCH;
		}
		if ((int)i >= n || odd_thread(tids[i], leader, t))
			break;
	}
	bpf_iter_num_destroy(&it);
}

/* PR_SET_SPECULATION_CTRL's bits of task->atomic_flags: PFA_SPEC_SSB_DISABLE to PFA_SPEC_SSB_NOEXEC. */
#define PFA_SPEC_MASK	(0x1fu << 3)
#define DEFAULT_NICE_PRIO	120	/* MAX_RT_PRIO + NICE_WIDTH / 2 */

/*
 * The filters a thread runs under, walked from the last installed to the
 * first.  The thread is stopped and a filter is freed only when no task
 * holds it, so the chain does not change under the walk.
 */
static __always_inline void read_seccomp_chain(struct task_struct *task,
					       struct dump_thread_attrs *a)
{
	struct seccomp_filter *f = task->seccomp.filter;
	__u32 i;

	for (i = 0; i < DUMP_MAX_SECCOMP && f; i++) {
		a->seccomp_chain[i] = (__u64)f;
		if (f->log)
			a->seccomp_log |= 1u << i;
		if (f->notif)
			a->seccomp_listener |= 1u << i;
		f = f->prev;
	}
	a->seccomp_walked = i;
}

static __always_inline void read_thread_attrs(struct task_struct *task,
					      struct dump_thread_attrs *a)
{
	a->policy = task->policy;
	a->rt_priority = task->rt_priority;
	a->nice = task->static_prio - DEFAULT_NICE_PRIO;
	a->reset_on_fork = task->sched_reset_on_fork;
	a->timer_slack_ns = task->timer_slack_ns;
	a->cpus = task->cpus_mask.bits[0];
	a->nr_cpus_allowed = task->nr_cpus_allowed;
	a->seccomp_mode = task->seccomp.mode;
	a->seccomp_filters = task->seccomp.filter_count.counter;
	read_seccomp_chain(task, a);
	a->spec_flags = task->atomic_flags & PFA_SPEC_MASK;
	a->syscall_dispatch = !!(task->thread_info.syscall_work &
				 (1ul << bpf_core_enum_value(enum syscall_work_bit,
							     SYSCALL_WORK_BIT_SYSCALL_USER_DISPATCH)));
	if (bpf_core_field_exists(task->io_context) && task->io_context)
		a->ioprio = task->io_context->ioprio;
}

SEC("crib")
int dump_task(struct dump_ctx *ctx)
{
	struct task_struct *task;
	struct dump_task_rec *t;
	int i;

	task = bpf_crib_task_from_vpid(ctx->pid);
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

	read_creds(task, &t->creds);
	read_tree_state(task, t);

	t->personality = task->personality;
	t->no_new_privs = task->atomic_flags & 1;	/* PFA_NO_NEW_PRIVS */
	t->start_boottime = task->start_boottime;
	for (i = 0; i < DUMP_NR_RLIMITS; i++) {
		t->rlim[i].cur = task->signal->rlim[i].rlim_cur;
		t->rlim[i].max = task->signal->rlim[i].rlim_max;
	}

	t->oom_score_adj = task->signal->oom_score_adj;
	read_thread_attrs(task, &t->attrs);
	read_fs(task, t);
	read_mm(task, t);
	read_namespaces(task, &t->ns);
	if (t->nr_threads > 1)
		find_odd_thread(task, t);

	bpf_task_release(task);
	bpf_ringbuf_submit(t, 0);
	return DUMP_OK;
}

SEC("crib")
int dump_thread(struct dump_ctx *ctx)
{
	struct task_struct *task;
	struct dump_thread_rec *t;

	task = bpf_crib_task_from_vpid(ctx->pid);
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
	t->pdeath_signal = task->pdeath_signal;
	read_creds(task, &t->creds);
	read_thread_attrs(task, &t->attrs);
	bpf_task_release(task);
	bpf_ringbuf_submit(t, 0);
	return DUMP_OK;
}

/*
 * Send child @pid of the process, if it is still there, unless a run cut
 * short by DUMP_NO_ROOM sent it already (*@skipping until ctx->start).
 */
static __always_inline int send_child(s32 pid, const struct dump_ctx *ctx, bool *skipping)
{
	struct task_struct *task;
	struct dump_child_rec *c;

	if (*skipping) {
		*skipping = pid != (s32)ctx->start;
		return DUMP_OK;
	}
	task = bpf_crib_task_from_vpid(pid);
	if (!task)	/* reaped since its pid was copied */
		return DUMP_OK;
	c = bpf_ringbuf_reserve(&task_records, sizeof(*c), 0);
	if (!c) {
		bpf_task_release(task);
		return DUMP_NO_ROOM;
	}
	dump_zero(c, sizeof(*c));
	c->kind = DUMP_REC_CHILD;
	c->pid = pid;
	c->exit_state = task->exit_state;
	bpf_task_release(task);
	bpf_ringbuf_submit(c, 0);
	return DUMP_OK;
}

/*
 * The children of process ctx->pid: every process whose real parent is
 * one of its threads, their pids copied in batches by the kernel (one
 * loop, as in find_odd_thread()).  A run after DUMP_NO_ROOM goes on after
 * the child ctx->start, the last one sent: the parent is stopped, so its
 * children stay where they are.
 */
SEC("crib")
int dump_children(struct dump_ctx *ctx)
{
	bool skipping = ctx->start != 0;
	struct task_struct *parent;
	struct bpf_iter_num it;
	s32 pids[PID_BATCH] = {};
	int ret = DUMP_OK;
	__u32 skip = 0, i;
	int n = 0, *step;

	parent = bpf_crib_task_from_vpid(ctx->pid);
	if (!parent)
		return DUMP_NO_TASK;
	bpf_iter_num_new(&it, 0, MAX_PIDS);
	while ((step = bpf_iter_num_next(&it))) {
		i = (__u32)*step % PID_BATCH;
		if (i == 0) {
			n = bpf_crib_task_children(parent, skip, pids, sizeof(pids));
			skip += PID_BATCH;
		}
		if (n < 0) {
			ret = n == -EPERM ? DUMP_NO_ACCESS : DUMP_NO_TASK;
			break;
		}
		if ((int)i >= n)
			break;
		ret = send_child(pids[i], ctx, &skipping);
		if (ret != DUMP_OK)
			break;
	}
	bpf_iter_num_destroy(&it);
	bpf_task_release(parent);
	return ret;
}
