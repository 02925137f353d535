// SPDX-License-Identifier: GPL-2.0
/*
 * Namespaces.  A snapshot carries none yet: crib-restore makes every
 * process in its own namespaces, so a process of the tree in another
 * namespace than crib-dump's would come back with its hostname, mounts,
 * network, IPC objects or PID numbering gone, without a word.  Until they
 * are carried, such a tree is refused here, naming the process (or
 * thread), the namespace and both inodes.
 *
 * The time namespace is the exception: its clocks are carried (clocks.c),
 * but a process that unshared one its children have not entered yet is
 * refused, since that namespace would be lost.
 *
 * The tree's inodes come from dump_task (struct dump_namespaces);
 * crib-dump's own from /proc/self/ns.  A kernel without a kind of
 * namespace has no file for it there, and that kind is not compared.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "crib-dump.h"

/* /proc/PID/ns files, by enum dump_ns_kind. */
static const char *const ns_files[DUMP_NR_NS] = {
	[DUMP_NS_PID_FOR_CHILDREN] = "pid_for_children",
	[DUMP_NS_MNT] = "mnt",
	[DUMP_NS_NET] = "net",
	[DUMP_NS_UTS] = "uts",
	[DUMP_NS_IPC] = "ipc",
	[DUMP_NS_CGROUP] = "cgroup",
	[DUMP_NS_USER] = "user",
	[DUMP_NS_TIME] = "time",
	[DUMP_NS_TIME_FOR_CHILDREN] = "time_for_children",
};

/*
 * Their kinds, as the links show them: "pid_for_children" is the pid
 * namespace children are born in, which is the process's own but between
 * unshare(CLONE_NEWPID) and fork(), and which setns(2) changes alone.
 */
static const char *const ns_names[DUMP_NR_NS] = {
	[DUMP_NS_PID_FOR_CHILDREN] = "pid",
	[DUMP_NS_MNT] = "mnt",
	[DUMP_NS_NET] = "net",
	[DUMP_NS_UTS] = "uts",
	[DUMP_NS_IPC] = "ipc",
	[DUMP_NS_CGROUP] = "cgroup",
	[DUMP_NS_USER] = "user",
	[DUMP_NS_TIME] = "time",
	[DUMP_NS_TIME_FOR_CHILDREN] = "time",
};

/* What a process or thread in another namespace of @kind would lose. */
static const char *const ns_losses[DUMP_NR_NS] = {
	[DUMP_NS_PID_FOR_CHILDREN] = "its PID numbering",
	[DUMP_NS_MNT] = "its mounts",
	[DUMP_NS_NET] = "its network devices, addresses and sockets' namespace",
	[DUMP_NS_UTS] = "its hostname",
	[DUMP_NS_IPC] = "its System V IPC objects and POSIX message queues",
	[DUMP_NS_CGROUP] = "its cgroup root",
	[DUMP_NS_USER] = "its user and group ID mappings and capabilities",
};

/* crib-dump's own namespaces; 0 for a kind this kernel has not. */
static int read_own(struct dump_namespaces *own, struct tool_error *err)
{
	char path[64];
	struct stat st;
	int i;

	for (i = 0; i < DUMP_NR_NS; i++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns_files[i]);
		if (stat(path, &st)) {
			if (errno != ENOENT)
				return tool_fail(err, errno, "cannot stat %s", path);
			own->ino[i] = 0;
			continue;
		}
		own->ino[i] = (uint32_t)st.st_ino;
	}
	return 0;
}

static int refuse(struct dump_tree *tree, const char *who, int kind, uint32_t theirs,
		  uint32_t ours)
{
	return tool_fail(&tree->err, 0, "%s is in another %s namespace than crib-dump "
			 "(%s:[%u], not %s:[%u]): namespaces are not carried yet, and a restore "
			 "would lose %s", who, ns_names[kind], ns_names[kind], theirs,
			 ns_names[kind], ours, ns_losses[kind]);
}

/* The first namespace of @ns that is not @own's, or -1. */
static int first_other(const struct dump_namespaces *ns, const struct dump_namespaces *own)
{
	int i;

	for (i = 0; i < DUMP_NR_NS; i++) {
		if (i == DUMP_NS_TIME || i == DUMP_NS_TIME_FOR_CHILDREN)
			continue;	/* carried as clocks, or checked below */
		if (own->ino[i] && ns->ino[i] && ns->ino[i] != own->ino[i])
			return i;
	}
	return -1;
}

static int check_process(struct dump_tree *tree, const struct dump_job *job,
			 const struct dump_namespaces *own, uint32_t root_level)
{
	const struct dump_task_rec *t = &job->task;
	char who[96];
	int kind;

	snprintf(who, sizeof(who), "process %d (%.*s)", (int)job->pid, DUMP_COMM_LEN, t->comm);
	if (t->ns.pid_level != root_level)
		return tool_fail(&tree->err, 0, "%s is in a pid namespace %u level(s) below "
				 "crib-dump's: namespaces are not carried yet, and a restore would "
				 "lose its PID numbering", who, t->ns.pid_level - root_level);
	kind = first_other(&t->ns, own);
	if (kind >= 0)
		return refuse(tree, who, kind, t->ns.ino[kind], own->ino[kind]);
	if (t->ns.ino[DUMP_NS_TIME_FOR_CHILDREN] != t->ns.ino[DUMP_NS_TIME])
		return tool_fail(&tree->err, 0, "%s has unshared a time namespace for its "
				 "children (time:[%u], its own is time:[%u]): a restore would "
				 "lose it", who, t->ns.ino[DUMP_NS_TIME_FOR_CHILDREN],
				 t->ns.ino[DUMP_NS_TIME]);
	if (t->ns_odd_tid) {
		for (kind = 0; !(t->ns_odd_mask & 1u << kind); kind++)
			;
		snprintf(who, sizeof(who), "thread %d of process %d (%.*s)", t->ns_odd_tid,
			 (int)job->pid, DUMP_COMM_LEN, t->comm);
		return tool_fail(&tree->err, 0, "%s is in another %s namespace than its "
				 "leader: namespaces are not carried yet, and a restore would "
				 "lose %s", who, ns_names[kind],
				 ns_losses[kind] ? ns_losses[kind] : "it");
	}
	return 0;
}

int namespaces_check(struct dump_tree *tree)
{
	struct dump_namespaces own;
	uint32_t root_level = tree_root(tree)->task.ns.pid_level;
	size_t i;

	if (read_own(&own, &tree->err))
		return -1;
	for (i = 0; i < tree->procs.n; i++)
		if (check_process(tree, tree->procs.items[i], &own, root_level))
			return -1;
	return 0;
}
