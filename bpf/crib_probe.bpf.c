// SPDX-License-Identifier: GPL-2.0
/*
 * Read the basics of one task: identity, credentials, thread count and
 * address-space size.  The smallest useful CRIB program: it shows the
 * program type, BPF_PROG_RUN with a context, a task reference taken and
 * released, CO-RE reads, and a ring buffer back to user space.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "crib_probe.h"
#include "crib_kfuncs.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} basics SEC(".maps");

static __always_inline s32 pid_of(struct task_struct *task, enum pid_type type)
{
	struct pid *pid = BPF_CORE_READ(task, signal, pids[type]);

	return pid ? BPF_CORE_READ(pid, numbers[0].nr) : 0;
}

SEC("crib")
int probe_task(struct crib_probe_ctx *ctx)
{
	struct crib_task_basics *b;
	struct task_struct *task;
	struct mm_struct *mm;
	const struct cred *cred;

	task = bpf_crib_task_from_vpid(ctx->pid);
	if (!task)
		return CRIB_PROBE_NO_TASK;

	b = bpf_ringbuf_reserve(&basics, sizeof(*b), 0);
	if (!b) {
		bpf_task_release(task);
		return CRIB_PROBE_NO_ROOM;
	}
	b->pid = BPF_CORE_READ(task, pid);
	b->tgid = BPF_CORE_READ(task, tgid);
	b->ppid = BPF_CORE_READ(task, real_parent, tgid);
	b->pgid = pid_of(task, PIDTYPE_PGID);
	b->sid = pid_of(task, PIDTYPE_SID);
	cred = BPF_CORE_READ(task, cred);
	b->uid = BPF_CORE_READ(cred, uid.val);
	b->gid = BPF_CORE_READ(cred, gid.val);
	b->euid = BPF_CORE_READ(cred, euid.val);
	b->egid = BPF_CORE_READ(cred, egid.val);
	b->nr_threads = BPF_CORE_READ(task, signal, nr_threads);
	mm = BPF_CORE_READ(task, mm);
	b->map_count = mm ? BPF_CORE_READ(mm, map_count) : 0;
	b->total_vm_pages = mm ? BPF_CORE_READ(mm, total_vm) : 0;
	b->pad = 0;
	b->start_time_ns = BPF_CORE_READ(task, start_time);
	bpf_core_read(&b->comm, sizeof(b->comm), &task->comm);
	bpf_task_release(task);

	bpf_ringbuf_submit(b, 0);
	return CRIB_PROBE_OK;
}
