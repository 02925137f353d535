// SPDX-License-Identifier: GPL-2.0
/*
 * Children in the states only a tree has, under a child subreaper:
 *
 *   root                 PR_SET_CHILD_SUBREAPER
 *    +- z1               exited with status 7: a zombie the root has not waited for
 *    +- z2               killed by its own SIGTERM: a zombie too
 *    +- t                stopped by SIGSTOP (job control); continued, it
 *    |                   checks its parent and exits 0
 *    +- m
 *        +- p            PR_SET_PDEATHSIG(SIGUSR2): when m dies, p gets
 *                        SIGUSR2 and, handed to the root (the subreaper),
 *                        writes DIR/pdeath.p
 *
 *   children DIR
 *
 * The root writes DIR/ready once the zombies are zombies and t is stopped,
 * without waiting for them in a way that would tell it (WNOWAIT).
 * SIGUSR1 to the root: it waits for z1, z2 and t's stop, checking each
 * status, continues t and waits for it to exit 0; writes DIR/check.root.
 */
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "tree.h"

static pid_t root_pid;

static pid_t spawn(const char *role)
{
	pid_t pid = fork();

	if (pid < 0)
		tree_die("fork %s", role);
	if (pid == 0)
		tree_become(role);
	return pid;
}

/* Wait for @pid in the way @how says, checking what is reported. */
static void expect(pid_t pid, int how, int code, int status, const char *what)
{
	siginfo_t si = { 0 };
	int ret;

	do
		ret = waitid(P_PID, (id_t)pid, &si, how);
	while (ret < 0 && errno == EINTR);
	if (ret)
		tree_fail("%s: waitid: %s", what, strerror(errno));
	else if (si.si_pid != pid || si.si_code != code || si.si_status != status)
		tree_fail("%s: pid %d, code %d, status %d; not %d, %d, %d", what, (int)si.si_pid,
			  si.si_code, si.si_status, (int)pid, code, status);
}

static void __attribute__((noreturn)) stopped_child(void)
{
	tree_announce();
	raise(SIGSTOP);
	/* continued */
	exit(getppid() == root_pid ? 0 : 1);
}

static void __attribute__((noreturn)) orphan_to_be(void)
{
	if (prctl(PR_SET_PDEATHSIG, SIGUSR2))
		tree_die("PR_SET_PDEATHSIG");
	tree_announce();
	for (;;) {
		tree_wait_signal();
		if (tree_usr2) {
			tree_usr2 = 0;
			if (getppid() != root_pid)
				tree_fail("handed to %d, not to the subreaper %d", (int)getppid(),
					  (int)root_pid);
			tree_report_to("pdeath");
		}
		if (tree_term)
			exit(0);
		tree_usr1 = 0;
	}
}

static void __attribute__((noreturn)) middle(void)
{
	if (!spawn("p"))
		orphan_to_be();
	tree_announce();
	for (;;) {
		tree_wait_signal();
		if (tree_term)
			exit(0);
		tree_usr1 = tree_usr2 = 0;
	}
}

static void check_children(pid_t z1, pid_t z2, pid_t t)
{
	expect(z1, WEXITED | WNOHANG, CLD_EXITED, 7, "z1");
	expect(z2, WEXITED | WNOHANG, CLD_KILLED, SIGTERM, "z2");
	expect(t, WSTOPPED | WNOHANG, CLD_STOPPED, SIGSTOP, "t stopped");
	if (kill(t, SIGCONT))
		tree_fail("t: SIGCONT: %s", strerror(errno));
	expect(t, WEXITED, CLD_EXITED, 0, "t continued");
	tree_report_to("check");
}

int main(int argc, char **argv)
{
	siginfo_t si;
	pid_t z1, z2, t;

	if (argc != 2) {
		fprintf(stderr, "usage: children DIR\n");
		return 2;
	}
	tree_dir = argv[1];
	tree_become("root");
	root_pid = getpid();
	tree_catch_signals();
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		tree_die("PR_SET_CHILD_SUBREAPER");
	z1 = spawn("z1");
	if (!z1)
		exit(7);
	z2 = spawn("z2");
	if (!z2) {
		signal(SIGTERM, SIG_DFL);
		raise(SIGTERM);
		exit(1);
	}
	t = spawn("t");
	if (!t)
		stopped_child();
	if (!spawn("m"))
		middle();
	/* Until each is what it should be, without taking what wait(2) would report. */
	if (waitid(P_PID, (id_t)z1, &si, WEXITED | WNOWAIT) ||
	    waitid(P_PID, (id_t)z2, &si, WEXITED | WNOWAIT) ||
	    waitid(P_PID, (id_t)t, &si, WSTOPPED | WNOWAIT))
		tree_die("waitid");
	tree_announce();
	/* a zombie cannot say who it is */
	tree_announce_pid("z1", z1);
	tree_announce_pid("z2", z2);
	if (tree_wait_file("pid", "m", 120) || tree_wait_file("pid", "p", 120))
		tree_die("m or p did not start");
	tree_ready();
	for (;;) {
		tree_wait_signal();
		if (tree_usr1) {
			tree_usr1 = 0;
			check_children(z1, z2, t);
		}
		if (tree_term)
			exit(0);
		tree_usr2 = 0;
	}
}
