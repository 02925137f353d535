// SPDX-License-Identifier: GPL-2.0
/*
 * The tree a restore makes: every process forked by its parent with its
 * PID, in its session and process group, zombies ended as they ended.
 *
 * A session is made by its leader (setsid()) and entered only by birth; a
 * group is made by its leader and joined from inside its session.  So,
 * as CRIU's pstree.c orders it: a process forks the children that were
 * born in the session it was born in before it makes its own, and the
 * others after (tree_link() finds the "born session" of every process on
 * the way from a child to its session's leader); a process makes its
 * group, or waits until the group's leader made it and joins.  A group
 * whose leader is gone is made by a helper with the leader's PID, which
 * its first member forks and waits for once every member joined.  The
 * root's session and group, when it leads neither, are those crib-restore
 * runs in, and so are those of the processes that shared them with the
 * root.  A session whose leader is gone, or a zombie, cannot be made
 * again: it is refused.  The forks themselves are the child's (child.c),
 * each child going on in child_restore(); this file only orders them.
 *
 * The processes tell each other that a group is made through words of a
 * shared mapping (struct tree_ctl) that they all inherit, waited on with
 * futexes.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plan.h"
#include "tree.h"

/* Words per process and per helper: it exists, its group is made; and what failed. */
struct ctl_slot {
	uint32_t born;		/* processes: /proc/PID is there */
	uint32_t made;
	uint32_t joined;	/* helpers: members that joined */
	char message[240];	/* a zombie's or a helper's failure */
};

struct tree_ctl {
	size_t len;
	pid_t ext_pgid;		/* crib-restore's group, the root's when it leads none */
	struct ctl_slot slots[];	/* processes, then helpers */
};

/* ---- the plan of the tree ---- */

static int by_pid(const void *a, const void *b)
{
	const struct restore_plan *x = *(struct restore_plan *const *)a;
	const struct restore_plan *y = *(struct restore_plan *const *)b;

	return x->proc.pid < y->proc.pid ? -1 : x->proc.pid > y->proc.pid;
}

static int link_parents(struct restore_tree *tree, struct tool_error *err)
{
	struct restore_plan *plan, *parent, **slot;
	size_t i;

	for (i = 1; i < tree->procs.n; i++) {
		plan = tree->procs.items[i];
		parent = plan_find(tree, plan->proc.ppid);
		if (!parent || parent->index >= plan->index)
			return tool_fail(err, 0, "process %llu: its parent %llu is not in the "
					 "snapshot before it", (unsigned long long)plan->proc.pid,
					 (unsigned long long)plan->proc.ppid);
		if (parent->proc.zombie)
			return tool_fail(err, 0, "process %llu: its parent %llu is a zombie",
					 (unsigned long long)plan->proc.pid,
					 (unsigned long long)plan->proc.ppid);
		plan->parent = parent;
		slot = array_push(&parent->children);
		if (!slot)
			return tool_fail(err, 0, "out of memory");
		*slot = plan;
	}
	for (i = 0; i < tree->procs.n; i++)
		qsort(tree->procs.items[i]->children.items, tree->procs.items[i]->children.n,
		      sizeof(struct restore_plan *), by_pid);
	return 0;
}

/*
 * How @plan came into its session: from the nearest ancestor in it, each
 * process on the way having been born in it before making a session of
 * its own (each forks its children of that session first).  Beyond the
 * root, the session it was born in, led by no process of the tree: a
 * restore makes that crib-restore's, so there can be only one.
 */
static int link_session(struct restore_tree *tree, struct restore_plan *plan,
			struct tool_error *err)
{
	uint64_t sid = plan->proc.sid;
	struct restore_plan *leader = plan_find(tree, sid), *a;

	if (sid == plan->proc.pid)
		return 0;
	if (leader && leader->proc.zombie)
		return tool_fail(err, 0, "process %llu is in session %llu, whose leader is a "
				 "zombie: that cannot be restored",
				 (unsigned long long)plan->proc.pid, (unsigned long long)sid);
	for (a = plan->parent; a; a = a->parent) {
		if (a->proc.sid == sid)
			return 0;
		if (a->proc.sid != a->proc.pid)
			return tool_fail(err, 0, "process %llu is in session %llu, which its "
					 "ancestor %llu, in session %llu, cannot have passed on",
					 (unsigned long long)plan->proc.pid, (unsigned long long)sid,
					 (unsigned long long)a->proc.pid,
					 (unsigned long long)a->proc.sid);
		if (a->born_sid != -1 && a->born_sid != (int64_t)sid)
			return tool_fail(err, 0, "process %llu was born in session %lld or %llu: "
					 "that cannot be told", (unsigned long long)a->proc.pid,
					 (long long)a->born_sid, (unsigned long long)sid);
		a->born_sid = (int64_t)sid;
	}
	if (leader)
		return tool_fail(err, 0, "process %llu is in session %llu, but not by birth "
				 "from its leader: that cannot be restored",
				 (unsigned long long)plan->proc.pid, (unsigned long long)sid);
	if (tree->ext_sid && tree->ext_sid != sid)
		return tool_fail(err, 0, "process %llu is in session %llu, whose leader is not "
				 "in the snapshot: that cannot be restored",
				 (unsigned long long)plan->proc.pid, (unsigned long long)sid);
	tree->ext_sid = sid;
	return 0;
}

static struct plan_helper *helper_of(struct restore_tree *tree, uint64_t pgid)
{
	for (size_t i = 0; i < tree->helpers.n; i++)
		if ((uint64_t)tree->helpers.items[i].pid == pgid)
			return &tree->helpers.items[i];
	return NULL;
}

/*
 * Who makes @plan's group: itself, its leader in the tree, crib-restore's
 * group for the root's, or else a helper its first member forks.
 */
static int link_group(struct restore_tree *tree, struct restore_plan *plan,
		      struct tool_error *err)
{
	uint64_t pgid = plan->proc.pgid;
	struct restore_plan *leader = plan_find(tree, pgid);
	struct plan_helper *h;

	if (pgid == plan->proc.pid || (tree->ext_pgid && pgid == tree->ext_pgid))
		return 0;
	if (leader) {
		if (leader->proc.sid != plan->proc.sid)
			return tool_fail(err, 0, "process %llu: its group %llu is in another "
					 "session", (unsigned long long)plan->proc.pid,
					 (unsigned long long)pgid);
		return 0;
	}
	h = helper_of(tree, pgid);
	if (h) {
		if ((uint64_t)h->sid != plan->proc.sid)
			return tool_fail(err, 0, "process %llu: its group %llu is in another "
					 "session", (unsigned long long)plan->proc.pid,
					 (unsigned long long)pgid);
		h->members++;
		if (!h->maker && !plan->proc.zombie) {
			h->maker = plan;
			plan->group_helper = (size_t)(h - tree->helpers.items) + 1;
		}
		return 0;
	}
	h = array_push(&tree->helpers);
	if (!h)
		return tool_fail(err, 0, "out of memory");
	*h = (struct plan_helper){ .pid = (pid_t)pgid, .sid = (pid_t)plan->proc.sid,
				   .members = 1 };
	if (!plan->proc.zombie) {
		h->maker = plan;
		plan->group_helper = tree->helpers.n;
	}
	return 0;
}

int tree_link(struct restore_tree *tree, struct tool_error *err)
{
	struct restore_plan *root = plan_root(tree), *plan;
	size_t i;

	if (link_parents(tree, err))
		return -1;
	if (root->proc.sid != root->proc.pid)
		tree->ext_sid = root->proc.sid;
	if (root->proc.pgid != root->proc.pid)
		tree->ext_pgid = root->proc.pgid;
	for (i = 1; i < tree->procs.n; i++)
		if (link_session(tree, tree->procs.items[i], err))
			return -1;
	for (i = 1; i < tree->procs.n; i++)
		if (link_group(tree, tree->procs.items[i], err))
			return -1;
	for (i = 0; i < tree->helpers.n; i++)
		if (!tree->helpers.items[i].maker)
			return tool_fail(err, 0, "group %d: its leader is gone and its members are "
					 "zombies: that cannot be restored",
					 (int)tree->helpers.items[i].pid);
	for (i = 0; i < tree->procs.n; i++) {
		plan = tree->procs.items[i];
		if (plan->proc.zombie && (plan->proc.exit_status & 0x80))
			return tool_fail(err, 0, "zombie %llu died with a core dump, which cannot "
					 "be made again", (unsigned long long)plan->proc.pid);
		if (plan->proc.zombie && i == 0)
			return tool_fail(err, 0, "the root %llu is a zombie",
					 (unsigned long long)plan->proc.pid);
	}
	return 0;
}

/* A live process's session and group ids, which keep those PIDs taken. */
struct id_user {
	pid_t pid, pgrp, sid;
};

struct id_users {
	ARRAY(struct id_user);
};

/*
 * Every process's session and group id: a PID stays taken as long as a
 * process has it as one of those (clone3() says EEXIST), though no process
 * has it as its own.  A session leader's member that left the tree (a
 * daemon forked twice) outlives the dump that killed the leader.
 */
static int read_id_users(struct id_users *users, struct tool_error *err)
{
	char path[64], buf[512], *p;
	struct id_user *u;
	struct dirent *de;
	long pid, pgrp, sid;
	DIR *dir = opendir("/proc");
	FILE *f;

	if (!dir)
		return tool_fail(err, errno, "cannot list /proc");
	while ((de = readdir(dir))) {
		pid = strtol(de->d_name, &p, 10);
		if (pid <= 0 || *p)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		/* after the name: state, ppid, pgrp, session */
		if (!p || sscanf(p + 2, "%*c %*d %ld %ld", &pgrp, &sid) != 2)
			continue;
		u = array_push(users);
		if (!u) {
			closedir(dir);
			return tool_fail(err, 0, "out of memory");
		}
		*u = (struct id_user){ (pid_t)pid, (pid_t)pgrp, (pid_t)sid };
	}
	closedir(dir);
	return 0;
}

static int pid_free(pid_t pid, const char *what, const struct id_users *users,
		    struct tool_error *err)
{
	const struct id_user *u;
	size_t i;

	if (pid <= 0)
		return tool_fail(err, 0, "%s has a bad PID %d", what, (int)pid);
	if (!kill(pid, 0) || errno == EPERM)
		return tool_fail(err, 0, "PID %d (%s) is in use: is the dumped process still "
				 "running?", (int)pid, what);
	for (i = 0; i < users->n; i++) {
		u = &users->items[i];
		if (u->sid == pid || u->pgrp == pid)
			return tool_fail(err, 0, "PID %d (%s) is in use as the %s id of process "
					 "%d, which is not in the snapshot: it must end first",
					 (int)pid, what, u->sid == pid ? "session" : "group",
					 (int)u->pid);
	}
	return 0;
}

int tree_check_pids(const struct restore_tree *tree, struct tool_error *err)
{
	const struct restore_plan *plan;
	struct id_users users = { 0 };
	char what[64];
	size_t i, j;
	int ret = -1;

	if (read_id_users(&users, err))
		goto out;
	for (i = 0; i < tree->procs.n; i++) {
		plan = tree->procs.items[i];
		snprintf(what, sizeof(what), "process %llu", (unsigned long long)plan->proc.pid);
		if (pid_free((pid_t)plan->proc.pid, what, &users, err))
			goto out;
		if (!plan->proc.zombie && plan->threads.items[0].tid != (pid_t)plan->proc.pid) {
			tool_fail(err, 0, "process %llu: its first thread %d is not its leader",
				  (unsigned long long)plan->proc.pid, (int)plan->threads.items[0].tid);
			goto out;
		}
		for (j = 1; j < plan->threads.n; j++) {
			snprintf(what, sizeof(what), "a thread of process %llu",
				 (unsigned long long)plan->proc.pid);
			if (pid_free(plan->threads.items[j].tid, what, &users, err))
				goto out;
		}
	}
	for (i = 0; i < tree->helpers.n; i++) {
		snprintf(what, sizeof(what), "the leader of group %d", (int)tree->helpers.items[i].pid);
		if (pid_free(tree->helpers.items[i].pid, what, &users, err))
			goto out;
	}
	ret = 0;
out:
	array_free(&users);
	return ret;
}

/* ---- what the processes tell each other ---- */

struct tree_ctl *tree_ctl_new(const struct restore_tree *tree, struct tool_error *err)
{
	size_t len = sizeof(struct tree_ctl) +
		     (tree->procs.n + tree->helpers.n) * sizeof(struct ctl_slot);
	struct tree_ctl *ctl;

	ctl = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ctl == MAP_FAILED) {
		tool_fail(err, errno, "cannot map the tree's control words");
		return NULL;
	}
	ctl->len = len;
	ctl->ext_pgid = getpgrp();
	return ctl;
}

void tree_ctl_free(struct tree_ctl *ctl, const struct restore_tree *tree)
{
	(void)tree;
	if (ctl)
		munmap(ctl, ctl->len);
}

const char *tree_ctl_message(const struct tree_ctl *ctl, size_t slot)
{
	return ctl->slots[slot].message;
}

char *tree_ctl_message_slot(struct tree_ctl *ctl, size_t slot, size_t *len)
{
	*len = sizeof(ctl->slots[slot].message);
	return ctl->slots[slot].message;
}

static void ctl_set(uint32_t *word, uint32_t value)
{
	__atomic_store_n(word, value, __ATOMIC_RELEASE);
	syscall(SYS_futex, word, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

static void ctl_add(uint32_t *word)
{
	__atomic_add_fetch(word, 1, __ATOMIC_ACQ_REL);
	syscall(SYS_futex, word, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

/* Until *@word is at least @want; crib-restore's timeout ends a wait that never does. */
static void ctl_wait(uint32_t *word, uint32_t want)
{
	struct timespec ts = { 1, 0 };
	uint32_t v;

	while ((v = __atomic_load_n(word, __ATOMIC_ACQUIRE)) < want)
		syscall(SYS_futex, word, FUTEX_WAIT, v, &ts, NULL, 0);
}

/* ---- in the processes, while they run crib-restore's code ---- */

void tree_mark_born(const struct restore_ctx *ctx, const struct restore_plan *plan)
{
	ctl_set(&ctx->ctl->slots[plan->index].born, 1);
}

void tree_wait_born(const struct restore_ctx *ctx, const struct restore_plan *plan)
{
	ctl_wait(&ctx->ctl->slots[plan->index].born, 1);
}

pid_t fork_with_pid(pid_t pid)
{
	struct clone_args ca = {
		.exit_signal = SIGCHLD,
		.set_tid = (uint64_t)(uintptr_t)&pid,
		.set_tid_size = 1,
	};

	return (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
}

static size_t helper_slot(const struct restore_tree *tree, const struct plan_helper *h)
{
	return tree->procs.n + (size_t)(h - tree->helpers.items);
}

/* A helper's whole life: lead the group until every member is in it. */
static void __attribute__((noreturn)) helper_main(const struct restore_ctx *ctx,
						  const struct plan_helper *h)
{
	struct ctl_slot *s = &ctx->ctl->slots[helper_slot(ctx->tree, h)];

	if (setpgid(0, 0)) {
		snprintf(s->message, sizeof(s->message), "the helper of group %d: setpgid: %s",
			 (int)h->pid, strerror(errno));
		_exit(1);
	}
	ctl_set(&s->made, 1);
	ctl_wait(&s->joined, h->members);
	_exit(0);
}

static int fork_helper(const struct restore_ctx *ctx, const struct plan_helper *h,
		       struct tool_error *err)
{
	pid_t pid = fork_with_pid(h->pid);

	if (pid == 0)
		helper_main(ctx, h);
	if (pid < 0)
		return tool_fail(err, errno, "cannot fork the helper of group %d", (int)h->pid);
	return 0;
}

int tree_join_group(const struct restore_ctx *ctx, const struct restore_plan *plan,
		    struct tool_error *err)
{
	const struct restore_tree *tree = ctx->tree;
	const struct plan_helper *h = NULL, *mine = NULL;
	pid_t pgid = (pid_t)plan->proc.pgid;
	const struct restore_plan *leader;
	uint32_t *made = NULL;
	size_t i;

	if (plan->group_helper) {
		mine = &tree->helpers.items[plan->group_helper - 1];
		if (fork_helper(ctx, mine, err))
			return -1;
	}
	if (pgid == (pid_t)plan->proc.pid) {
		if (getpgrp() != pgid && setpgid(0, 0))
			return tool_fail(err, errno, "cannot make group %d", (int)pgid);
		ctl_set(&ctx->ctl->slots[plan->index].made, 1);
		goto wait_helper;
	}
	if (tree->ext_pgid && plan->proc.pgid == tree->ext_pgid) {
		pgid = ctx->ctl->ext_pgid;	/* the root's: crib-restore's */
	} else {
		leader = plan_find(tree, plan->proc.pgid);
		if (leader) {
			made = &ctx->ctl->slots[leader->index].made;
		} else {
			for (i = 0; i < tree->helpers.n && !h; i++)
				if (tree->helpers.items[i].pid == pgid)
					h = &tree->helpers.items[i];
			if (h)
				made = &ctx->ctl->slots[helper_slot(tree, h)].made;
		}
		if (made)
			ctl_wait(made, 1);
	}
	if (getpgrp() != pgid && setpgid(0, pgid))
		return tool_fail(err, errno, "cannot join group %d", (int)pgid);
	if (h)
		ctl_add(&ctx->ctl->slots[helper_slot(tree, h)].joined);
wait_helper:
	if (mine && waitpid(mine->pid, NULL, __WALL) != mine->pid)
		return tool_fail(err, errno, "waiting for the helper of group %d", (int)mine->pid);
	/*
	 * Its zombie children ended before it goes on: their SIGCHLD came
	 * (crib-restore dropped it), and none comes later, while the
	 * restorer blocks signals.
	 */
	for (i = 0; i < plan->children.n; i++) {
		siginfo_t si;

		if (!plan->children.items[i]->proc.zombie)
			continue;
		while (waitid(P_PID, (id_t)plan->children.items[i]->proc.pid, &si,
			      WEXITED | WNOWAIT) && errno == EINTR)
			;
	}
	return 0;
}

void tree_end_zombie(const struct restore_ctx *ctx, const struct restore_plan *plan)
{
	uint64_t status = plan->proc.exit_status;
	struct ctl_slot *s = &ctx->ctl->slots[plan->index];
	struct tool_error err = { 0 };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t one;
	int sig = (int)(status & 0x7f);

	if (tree_join_group(ctx, plan, &err)) {
		snprintf(s->message, sizeof(s->message), "zombie %llu: %.*s",
			 (unsigned long long)plan->proc.pid, (int)sizeof(s->message) - 32, err.msg);
		_exit(1);
	}
	if (plan->proc.comm)
		prctl(PR_SET_NAME, plan->proc.comm, 0, 0, 0);
	if (!sig)
		_exit((int)(status >> 8) & 0xff);
	/* Killed by @sig, without the core dump a core signal would write. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	kill(getpid(), sig);
	for (;;)
		pause();
}
