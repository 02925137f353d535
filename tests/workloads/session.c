// SPDX-License-Identifier: GPL-2.0
/*
 * A session led by a process that is not the root, with several process
 * groups:
 *
 *   root                     in its starter's session and group
 *    +- s                    leads a session of its own, made after it forked y
 *        +- y                born before s made its session: in the root's
 *        +- a                leads group a
 *        +- b                in group a
 *        +- c                in s's group
 *        +- m                (--orphan-group) in group l, whose leader l
 *                            exited once m had joined it
 *    +- t                    (--sessions) leads a second session
 *        +- u                in t's session and group
 *        +- w                leads a third session, made after t made its
 *            +- x            in w's session and group
 *
 *   session [--orphan-group] [--sessions] DIR
 *
 * Each process writes DIR/pid.ROLE, the root DIR/ready once all are set
 * up.  SIGUSR1: the process checks its parent, session and group (by
 * whose they are: the root's, s's, a's, l's) and writes DIR/check.ROLE.
 * SIGUSR2: it writes DIR/usr2.ROLE, so the test can see who a signal to a
 * group reached.
 */
#include <stdbool.h>
#include <sys/wait.h>

#include "tree.h"

/* What a process should find: whose session and group it is in. */
struct place {
	const char *role;
	const char *parent;	/* NULL: the root, whose parent is its starter */
	const char *session;	/* the leader's role; NULL: the root's session */
	const char *group;	/* likewise: NULL, the root's group */
};

static const struct place places[] = {
	{ "root", NULL, NULL, NULL },
	{ "s", "root", "s", "s" },
	{ "y", "s", NULL, NULL },
	{ "a", "s", "s", "a" },
	{ "b", "s", "s", "a" },
	{ "c", "s", "s", "s" },
	{ "m", "s", "s", "l" },
	{ "t", "root", "t", "t" },
	{ "u", "t", "t", "t" },
	{ "w", "t", "w", "w" },
	{ "x", "w", "w", "w" },
};

static bool orphan_group, sessions;

static const struct place *my_place(void)
{
	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++)
		if (!strcmp(places[i].role, tree_role))
			return &places[i];
	tree_die("no place for %s", tree_role);
}

/* The pid @role stands for; NULL is the root's session or group, seen from the root. */
static pid_t expected(const char *role, pid_t (*of_root)(pid_t))
{
	pid_t root = tree_pid_of("root");

	if (role)
		return tree_pid_of(role);
	return root > 0 ? of_root(root) : -1;
}

static void self_check(void)
{
	const struct place *p = my_place();
	pid_t want;

	want = expected(p->session, getsid);
	if (getsid(0) != want)
		tree_fail("in session %d, not %d (%s's)", (int)getsid(0), (int)want,
			  p->session ? p->session : "the root");
	want = expected(p->group, getpgid);
	if (getpgrp() != want)
		tree_fail("in group %d, not %d (%s's)", (int)getpgrp(), (int)want,
			  p->group ? p->group : "the root");
	if (p->parent && getppid() != tree_pid_of(p->parent))
		tree_fail("its parent is %d, not %s (%d)", (int)getppid(), p->parent,
			  (int)tree_pid_of(p->parent));
	tree_report_to("check");
}

static void __attribute__((noreturn)) serve(void)
{
	for (;;) {
		tree_wait_signal();
		if (tree_usr1) {
			tree_usr1 = 0;
			self_check();
		}
		if (tree_usr2) {
			tree_usr2 = 0;
			tree_report_to("usr2");
		}
		if (tree_term)
			exit(0);
	}
}

static void __attribute__((noreturn)) live(void)
{
	tree_announce();
	serve();
}

static pid_t spawn(const char *role, pid_t group)
{
	pid_t pid = fork();

	if (pid < 0)
		tree_die("fork %s", role);
	if (pid == 0) {
		tree_become(role);
		if (group >= 0 && setpgid(0, group))
			tree_die("setpgid(0, %d)", (int)group);
		return 0;
	}
	/* Both sides set the group, as shells do: whichever runs first. */
	if (group >= 0 && setpgid(pid, group ? group : pid) && errno != EACCES)
		tree_die("setpgid(%d, %d)", (int)pid, (int)group);
	return pid;
}

/* l leads group l until m is in it, then exits; s waits for it. */
static void orphan(void)
{
	pid_t l, m;
	int status;

	l = spawn("l", 0);
	if (!l) {
		tree_announce();	/* the group's id, once l is gone */
		if (tree_wait_file("pid", "m", 120))
			tree_die("m did not join");
		exit(0);
	}
	m = spawn("m", l);
	if (!m)
		live();
	if (waitpid(l, &status, 0) != l)
		tree_die("waiting for l");
}

static void session_leader(void)
{
	pid_t a;

	if (!spawn("y", -1))
		live();
	if (setsid() < 0)
		tree_die("setsid");
	a = spawn("a", 0);
	if (!a)
		live();
	if (!spawn("b", a))
		live();
	if (!spawn("c", -1))
		live();
	if (orphan_group)
		orphan();
	live();
}

/* t and w: sessions of their own, one inside the other's, each with a member. */
static void more_sessions(void)
{
	if (setsid() < 0)
		tree_die("setsid");
	if (!spawn("u", -1))
		live();
	if (!spawn("w", -1)) {
		if (setsid() < 0)
			tree_die("setsid");
		if (!spawn("x", -1))
			live();
		live();
	}
	live();
}

static bool waited_for(const char *role)
{
	if (!strcmp(role, "m"))
		return orphan_group;
	if (strchr("tuwx", role[0]))
		return sessions;
	return true;
}

int main(int argc, char **argv)
{
	const char *all[] = { "root", "s", "y", "a", "b", "c", "m", "t", "u", "w", "x" };
	size_t n = sizeof(all) / sizeof(all[0]);

	for (; argc >= 3 && !strncmp(argv[1], "--", 2); argv++, argc--) {
		if (!strcmp(argv[1], "--orphan-group"))
			orphan_group = true;
		else if (!strcmp(argv[1], "--sessions"))
			sessions = true;
		else
			break;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: session [--orphan-group] [--sessions] DIR\n");
		return 2;
	}
	tree_dir = argv[1];
	tree_become("root");
	tree_catch_signals();
	if (!spawn("s", -1))
		session_leader();
	if (sessions && !spawn("t", -1))
		more_sessions();
	tree_announce();
	for (size_t i = 0; i < n; i++)
		if (waited_for(all[i]) && tree_wait_file("pid", all[i], 120))
			tree_die("%s did not start", all[i]);
	tree_ready();
	serve();
}
