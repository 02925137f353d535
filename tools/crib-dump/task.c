// SPDX-License-Identifier: GPL-2.0
/* The process record: identity, credentials, scheduling, limits, fs context. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <bpf/libbpf.h>

#include "crib-dump.h"
#include "dump_task.skel.h"
#include "kabi.h"

int task_read(struct dump_job *job)
{
	struct record_list recs = { .kind = DUMP_REC_TASK, .size = sizeof(job->task) };
	struct dump_ctx ctx = { .pid = job->pid, .tgid = job->pid };
	int ret;

	ret = program_collect(job->progs.task->progs.dump_task,
			      bpf_map__fd(job->progs.task->maps.task_records), &ctx, sizeof(ctx),
			      &recs, &job->err);
	if (ret < 0)
		goto out;
	if (ret == DUMP_NO_TASK) {
		ret = tool_fail(&job->err, 0, "no process with pid %d", (int)job->pid);
		goto out;
	}
	if (ret != DUMP_OK || recs.n != 1) {
		ret = tool_fail(&job->err, 0, "dump_task failed (result %d, %zu records)", ret,
				recs.n);
		goto out;
	}
	memcpy(&job->task, recs.items, sizeof(job->task));
	if (job->task.tgid != job->pid) {
		ret = tool_fail(&job->err, 0, "%d is a thread of process %d: dump the process",
				(int)job->pid, job->task.tgid);
		goto out;
	}
	if (!job->task.has_mm) {
		ret = tool_fail(&job->err, 0, "process %d has no address space (a kernel thread?)",
				(int)job->pid);
		goto out;
	}
	if (job->task.ngroups > DUMP_MAX_GROUPS) {
		ret = tool_fail(&job->err, 0, "process %d has %u supplementary groups, more than the %d supported",
				(int)job->pid, job->task.ngroups, DUMP_MAX_GROUPS);
		goto out;
	}
	ret = 0;
out:
	record_list_free(&recs);
	return ret;
}

/*
 * The path of /proc/PID/@what (cwd, root, exe), checked to name the object
 * the CRIB program saw.  Paths come from procfs because a CRIB program
 * cannot call bpf_d_path() and a d_parent walk in BPF does not cross mount
 * points; the device and inode from the program keep the two honest.
 */
int resolve_checked_path(struct dump_job *job, const char *what, const struct dump_inode_id *id,
			 char *buf, size_t size)
{
	char proc_path[64];
	struct stat st;
	int ret;

	ret = proc_readlink(job->pid, what, buf, size);
	if (ret)
		return tool_fail(&job->err, -ret, "cannot resolve /proc/%d/%s", (int)job->pid,
				 what);
	snprintf(proc_path, sizeof(proc_path), "/proc/%d/%s", (int)job->pid, what);
	if (stat(proc_path, &st))
		return tool_fail(&job->err, errno, "cannot stat %s", proc_path);
	if (st.st_ino != id->ino || st.st_dev != kernel_dev_to_st_dev(id->dev))
		return tool_fail(&job->err, 0, "%s (%s) is not the object the kernel reports",
				 proc_path, buf);
	return 0;
}

int task_write(struct dump_job *job)
{
	const struct dump_task_rec *t = &job->task;
	struct crib_rlimit rlimits[DUMP_NR_RLIMITS];
	uint64_t groups[DUMP_MAX_GROUPS];
	char cwd[PATH_MAX], root[PATH_MAX], exe[PATH_MAX] = "";
	char comm[DUMP_COMM_LEN + 1];
	struct crib_process p;
	unsigned int i;

	if (resolve_checked_path(job, "cwd", &t->cwd, cwd, sizeof(cwd)) ||
	    resolve_checked_path(job, "root", &t->root, root, sizeof(root)))
		return -1;
	if (t->exe.present && resolve_checked_path(job, "exe", &t->exe, exe, sizeof(exe)))
		return -1;
	for (i = 0; i < t->ngroups; i++)
		groups[i] = t->groups[i];
	for (i = 0; i < DUMP_NR_RLIMITS; i++) {
		rlimits[i].resource = i;
		rlimits[i].cur = t->rlim[i].cur;
		rlimits[i].max = t->rlim[i].max;
	}
	memcpy(comm, t->comm, DUMP_COMM_LEN);
	comm[DUMP_COMM_LEN] = '\0';

	p = (struct crib_process) {
		.pid = t->pid, .tgid = t->tgid, .ppid = t->ppid, .sid = t->sid, .pgid = t->pgid,
		.comm = comm,
		.uid = t->uid, .gid = t->gid, .euid = t->euid, .egid = t->egid,
		.suid = t->suid, .sgid = t->sgid, .fsuid = t->fsuid, .fsgid = t->fsgid,
		.groups = groups, .n_groups = t->ngroups,
		.cap_eff = t->cap_eff, .cap_prm = t->cap_prm, .cap_inh = t->cap_inh,
		.cap_bnd = t->cap_bnd, .cap_amb = t->cap_amb,
		.sched_policy = t->sched_policy, .sched_priority = t->rt_priority,
		.nice = t->nice, .personality = t->personality, .umask = t->umask,
		.rlimits = rlimits, .n_rlimits = DUMP_NR_RLIMITS,
		.cwd = cwd, .root = root, .exe = exe,
		.no_new_privs = t->no_new_privs,
		.dumpable = t->mm_flags & MMF_DUMPABLE_MASK,
		.start_time = t->start_boottime,
	};
	if (crib_write_process(job->writer, &p))
		return tool_fail(&job->err, 0, "writing the process record: %s",
				 crib_writer_error(job->writer)->msg);
	return 0;
}
