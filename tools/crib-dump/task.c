// SPDX-License-Identifier: GPL-2.0
/*
 * The process record: identity, credentials, scheduling, limits, fs
 * context, membarrier registrations, and the process's place in its tree
 * (its parent, a zombie's status, a job-control stop).
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <limits.h>
#include <signal.h>
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
	struct dump_ctx ctx = { .target = dump_target(job), .pid = job->pid,
				.tgid = job->pid };
	int ret;

	ret = program_collect(&job->progs.task, job->progs.task_records, &ctx, sizeof(ctx),
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
	if ((job->task.exit_state & EXIT_ZOMBIE) && job->task.threads_live) {
		ret = tool_fail(&job->err, 0, "process %d: its leader thread exited while %u "
				"other threads run on, which cannot be dumped", (int)job->pid,
				job->task.threads_live);
		goto out;
	}
	if (job->task.exit_state & EXIT_ZOMBIE) {
		ret = job->zombie ? 0 : tool_fail(&job->err, 0, "process %d has exited",
						  (int)job->pid);
		goto out;
	}
	if (!job->task.has_mm) {
		ret = tool_fail(&job->err, 0, "process %d has no address space (a kernel thread?)",
				(int)job->pid);
		goto out;
	}
	if (job->task.creds.ngroups > DUMP_MAX_GROUPS) {
		ret = tool_fail(&job->err, 0, "process %d has %u supplementary groups, more than the %d supported",
				(int)job->pid, job->task.creds.ngroups, DUMP_MAX_GROUPS);
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

/*
 * The membarrier(2) registrations an address space's state records, as the
 * MEMBARRIER_CMD_REGISTER_* commands that made them, or'ed; -1 when those
 * commands would not make that state again exactly: a registration caught
 * half made, or a bit this does not know.  Each command sets its READY bit
 * last, with the bits it needs, which the private ones share.
 */
long membarrier_commands(unsigned int state)
{
	static const struct {
		unsigned int ready, sets, command;
	} regs[] = {
		{ MEMBARRIER_STATE_GLOBAL_EXPEDITED_READY, MEMBARRIER_STATE_GLOBAL_EXPEDITED,
		  MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED },
		{ MEMBARRIER_STATE_PRIVATE_EXPEDITED_READY, MEMBARRIER_STATE_PRIVATE_EXPEDITED,
		  MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED },
		{ MEMBARRIER_STATE_PRIVATE_EXPEDITED_SYNC_CORE_READY,
		  MEMBARRIER_STATE_PRIVATE_EXPEDITED | MEMBARRIER_STATE_PRIVATE_EXPEDITED_SYNC_CORE,
		  MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE },
		{ MEMBARRIER_STATE_PRIVATE_EXPEDITED_RSEQ_READY,
		  MEMBARRIER_STATE_PRIVATE_EXPEDITED | MEMBARRIER_STATE_PRIVATE_EXPEDITED_RSEQ,
		  MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ },
	};
	unsigned int made = 0;
	long commands = 0;
	size_t i;

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		if (!(state & regs[i].ready))
			continue;
		made |= regs[i].ready | regs[i].sets;
		commands |= regs[i].command;
	}
	return made == state ? commands : -1;
}

/* What two processes of a tree can share that a restore does not share again. */
static const char *shared_with(const struct dump_task_rec *a, const struct dump_task_rec *b)
{
	if (a->mm_obj && a->mm_obj == b->mm_obj)
		return "its memory (vfork() or clone() with CLONE_VM)";
	if (a->sighand_obj && a->sighand_obj == b->sighand_obj)
		return "its signal handlers (clone() with CLONE_SIGHAND)";
	if (a->files_obj && a->files_obj == b->files_obj)
		return "its descriptor table (clone() with CLONE_FILES)";
	if (a->fs_obj && a->fs_obj == b->fs_obj)
		return "its directories and umask (clone() with CLONE_FS)";
	return NULL;
}

/*
 * What the restore of a tree needs of each process but the root: a parent
 * that is told of its exit by SIGCHLD, as fork() makes it (clone() can
 * choose another signal, which a restore does not make again), and
 * nothing shared with another process of the tree but what fork() shares
 * (what clone() can share besides, a restore makes once per process).
 */
int task_check(struct dump_tree *tree)
{
	const struct dump_job *job, *other;
	const char *what;
	size_t i, j;

	for (i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		if (!job->zombie && membarrier_commands(job->task.membarrier_state) < 0)
			return tool_fail(&tree->err, 0, "process %d: its membarrier(2) registrations "
					 "(state %#x) are not what registering makes: that cannot "
					 "be restored", (int)job->pid, job->task.membarrier_state);
		if (i && job->task.exit_signal != SIGCHLD)
			return tool_fail(&tree->err, 0, "process %d was made by clone() with exit "
					 "signal %d, not SIGCHLD: that cannot be restored",
					 (int)job->pid, job->task.exit_signal);
		for (j = 0; !job->zombie && j < i; j++) {
			other = tree->procs.items[j];
			what = other->zombie ? NULL : shared_with(&job->task, &other->task);
			if (what)
				return tool_fail(&tree->err, 0, "process %d shares %s with process "
						 "%d: that cannot be restored", (int)job->pid, what,
						 (int)other->pid);
		}
	}
	return 0;
}

/* A zombie's record: who it was, where in the tree, how it ended. */
static int write_zombie(struct dump_job *job)
{
	const struct dump_task_rec *t = &job->task;
	char comm[DUMP_COMM_LEN + 1];
	struct crib_process p;

	memcpy(comm, t->comm, DUMP_COMM_LEN);
	comm[DUMP_COMM_LEN] = '\0';
	p = (struct crib_process) {
		.pid = t->pid, .tgid = t->tgid, .ppid = t->ppid, .sid = t->sid, .pgid = t->pgid,
		.comm = comm, .start_time = t->start_boottime,
		.zombie = true, .exit_status = t->exit_code,
	};
	if (crib_write_process(job->writer, &p))
		return tool_fail(&job->err, 0, "writing the record of zombie %d: %s",
				 (int)job->pid, crib_writer_error(job->writer)->msg);
	return 0;
}

/*
 * A working directory removed while the process was in it: procfs shows
 * "PATH (deleted)"; the snapshot has PATH and says it was removed.
 */
static int cwd_unlinked(struct dump_job *job, char *cwd, bool *unlinked)
{
	char proc_path[64];
	struct stat st;

	snprintf(proc_path, sizeof(proc_path), "/proc/%d/cwd", (int)job->pid);
	if (stat(proc_path, &st))
		return tool_fail(&job->err, errno, "cannot stat %s", proc_path);
	*unlinked = ghost_path_unlinked(cwd, &st);
	if (*unlinked)
		ghost_strip_deleted(cwd);
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
	bool unlinked = false;
	unsigned int i;

	if (job->zombie)
		return write_zombie(job);
	if (resolve_checked_path(job, "cwd", &t->cwd, cwd, sizeof(cwd)) ||
	    resolve_checked_path(job, "root", &t->root, root, sizeof(root)) ||
	    cwd_unlinked(job, cwd, &unlinked))
		return -1;
	if (t->exe.present && resolve_checked_path(job, "exe", &t->exe, exe, sizeof(exe)))
		return -1;
	for (i = 0; i < t->creds.ngroups; i++)
		groups[i] = t->creds.groups[i];
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
		.uid = t->creds.uid, .gid = t->creds.gid, .euid = t->creds.euid,
		.egid = t->creds.egid, .suid = t->creds.suid, .sgid = t->creds.sgid,
		.fsuid = t->creds.fsuid, .fsgid = t->creds.fsgid,
		.groups = groups, .n_groups = t->creds.ngroups,
		.cap_eff = t->creds.cap_eff, .cap_prm = t->creds.cap_prm,
		.cap_inh = t->creds.cap_inh, .cap_bnd = t->creds.cap_bnd,
		.cap_amb = t->creds.cap_amb,
		.sched_policy = t->attrs.policy, .sched_priority = t->attrs.rt_priority,
		.nice = t->attrs.nice, .personality = t->personality, .umask = t->umask,
		.rlimits = rlimits, .n_rlimits = DUMP_NR_RLIMITS,
		.cwd = cwd, .root = root, .exe = exe,
		.no_new_privs = t->no_new_privs,
		.dumpable = t->mm_flags & MMF_DUMPABLE_MASK,
		.start_time = t->start_boottime,
		/* a stop its parent was told of leaves no code: it was SIGSTOP or kin */
		.stop_signal = t->stopped ? (t->stop_code ? t->stop_code : SIGSTOP) : 0,
		.child_subreaper = t->child_subreaper,
		.cwd_unlinked = unlinked,
		.oom_score_adj = t->oom_score_adj,
		.cpus = t->attrs.cpus,
		.timer_slack_ns = t->attrs.timer_slack_ns,
		.sched_reset_on_fork = t->attrs.reset_on_fork,
		.membarrier = (uint64_t)membarrier_commands(t->membarrier_state),
	};
	if (crib_write_process(job->writer, &p))
		return tool_fail(&job->err, 0, "writing the process record: %s",
				 crib_writer_error(job->writer)->msg);
	return 0;
}
