// SPDX-License-Identifier: GPL-2.0
/*
 * A CRIB run is scoped to one target: the process whose pidfd its context
 * names (BPF_F_CRIB_TARGET).  The caller must be allowed to ptrace it, and
 * bpf_crib_task_from_vpid() finds the target's threads and descendants
 * only: not its parent, not a sibling, nothing at all in a run without a
 * target or whose target has exited.  The kfuncs that list a process's
 * children and threads, walk its mappings or look up its files refuse a
 * task outside the tree even when the program holds one (a parent,
 * reached through task->real_parent).  TAP output.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "access.h"
#include "crib_libbpf.h"
#include "crib_scope.skel.h"
#include "tap.h"

#ifndef CAP_CHECKPOINT_RESTORE
#define CAP_CHECKPOINT_RESTORE	40
#endif
#ifndef BPF_F_CRIB_TARGET
#define BPF_F_CRIB_TARGET	(1U << 0)
#endif

/* struct bpf_crib_ctx, then the pid to look for */
struct target_args {
	int target_pidfd;
	unsigned int flags;
	int vpid;
};

static const struct caller root = { "root", 0, 0 };
static const struct caller dumper = { "uid 1000 with CAP_CHECKPOINT_RESTORE", 1000,
				      CAP(CAP_CHECKPOINT_RESTORE) };

static int pidfd_open(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

/* A child that waits to be killed, as @uid (0: stays root). */
static pid_t sleeper(uid_t uid)
{
	pid_t pid = fork();

	if (pid == 0) {
		/* a changed uid leaves the process undumpable: ptrace it again */
		if (uid && (setresgid(uid, uid, uid) || setresuid(uid, uid, uid) ||
			    prctl(PR_SET_DUMPABLE, 1)))
			_exit(1);
		for (;;)
			pause();
	}
	return pid;
}

/* A child with a child of its own; *@grandchild gets the latter's pid. */
static pid_t parent_of_one(pid_t *grandchild)
{
	int p[2];
	pid_t pid, g;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		g = sleeper(0);
		if (write(p[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], grandchild, sizeof(*grandchild)) != sizeof(*grandchild))
		*grandchild = -1;
	close(p[0]);
	return pid;
}

/* One look-up of @vpid in a run targeting @pidfd: found (1), not (0). */
static void check_find(struct tap *t, const struct caller *c, int prog_fd, int pidfd,
		       pid_t vpid, int want, const char *what)
{
	struct target_args a = { .target_pidfd = pidfd, .vpid = vpid };
	int found = -1, err;

	err = run_ctx_as(c, prog_fd, &a, sizeof(a), BPF_F_CRIB_TARGET, &found);
	if (!tap_check(t, !err && found == want, "%s: %s (%s)", c->name, what,
		       want ? "found" : "not found"))
		tap_diag("BPF_PROG_RUN: %s, program returned %d", strerror(-err), found);
}

/* A run that BPF_PROG_RUN must refuse with @want_err. */
static void check_refused(struct tap *t, const struct caller *c, int prog_fd,
			  const struct target_args *a, size_t size, unsigned int flags,
			  int want_err, const char *what)
{
	int found = -1, err;

	err = run_ctx_as(c, prog_fd, a, size, flags, &found);
	if (!tap_check(t, err == -want_err, "%s: %s refused with %s", c->name, what,
		       strerror(want_err)))
		tap_diag("BPF_PROG_RUN: %s, program returned %d", strerror(-err), found);
}

/* reach_parent's bits: which kfuncs refused a task outside the run's tree */
#define REFUSED_CHILDREN	1
#define REFUSED_MAPPINGS	2
#define REFUSED_FILE		4

/* @prog lists exactly one pid, @want, for @vpid in a run targeting @pidfd. */
static void check_listing(struct tap *t, struct crib_scope *skel, struct bpf_program *prog,
			  int pidfd, pid_t vpid, pid_t want, const char *what)
{
	struct target_args a = { .target_pidfd = pidfd, .vpid = vpid };
	int n = -1, err;

	skel->bss->pids[0] = 0;
	err = run_ctx_as(&root, bpf_program__fd(prog), &a, sizeof(a), BPF_F_CRIB_TARGET, &n);
	if (!tap_check(t, !err && n == 1 && skel->bss->pids[0] == want, "%s are listed", what))
		tap_diag("BPF_PROG_RUN: %s, %d listed, first %d (want %d)", strerror(-err), n,
			 skel->bss->pids[0], (int)want);
}

int main(void)
{
	pid_t a, g = -1, b, mine, gone;
	int pa, pmine, pgone, fd, found = -1, err, status;
	struct crib_scope *skel;
	struct tap t = {};
	char msg[256];

	if (crib_libbpf_init(msg, sizeof(msg))) {
		printf("Bail out! %s\n", msg);
		return 1;
	}
	skel = crib_scope__open_and_load();
	if (!skel) {
		printf("Bail out! cannot load crib_scope: %s\n", strerror(errno));
		return 1;
	}
	fd = bpf_program__fd(skel->progs.find_task);

	a = parent_of_one(&g);
	b = sleeper(0);
	mine = sleeper(dumper.uid);
	gone = fork();
	if (gone == 0)
		_exit(0);
	pa = pidfd_open(a);
	pmine = pidfd_open(mine);
	pgone = pidfd_open(gone);
	waitpid(gone, &status, 0);
	if (a < 0 || g < 0 || b < 0 || mine < 0 || pa < 0 || pmine < 0 || pgone < 0) {
		printf("Bail out! cannot set up the processes: %s\n", strerror(errno));
		return 1;
	}

	check_find(&t, &root, fd, pa, a, 1, "the target itself");
	check_find(&t, &root, fd, pa, g, 1, "the target's child");
	check_find(&t, &root, fd, pa, getpid(), 0, "the target's parent");
	check_find(&t, &root, fd, pa, b, 0, "the target's sibling");
	check_find(&t, &root, fd, pgone, gone, 0, "a target that has exited");
	check_find(&t, &dumper, fd, pmine, mine, 1, "a target of its own uid");

	{
		struct target_args args = { .target_pidfd = pa, .vpid = a };

		err = run_ctx_as(&root, fd, &args, sizeof(args), 0, &found);
		tap_check(&t, !err && found == 0,
			  "a run without a target finds no task (err %d, found %d)", err, found);

		check_refused(&t, &dumper, fd, &args, sizeof(args), BPF_F_CRIB_TARGET, EPERM,
			      "a target it may not ptrace");
		args.target_pidfd = STDIN_FILENO;
		check_refused(&t, &root, fd, &args, sizeof(args), BPF_F_CRIB_TARGET, EBADF,
			      "a target that is no pidfd");
		args.target_pidfd = pa;
		args.flags = 1;
		check_refused(&t, &root, fd, &args, sizeof(args), BPF_F_CRIB_TARGET, EINVAL,
			      "unknown context flags");
		args.flags = 0;
		check_refused(&t, &root, fd, &args, 4, BPF_F_CRIB_TARGET, EINVAL,
			      "a context too short to name a target");
	}

	check_listing(&t, skel, skel->progs.list_children, pa, a, g, "the target's children");
	check_listing(&t, skel, skel->progs.list_threads, pa, a, a, "the target's threads");
	{
		struct target_args args = { .target_pidfd = pa, .vpid = g };

		err = run_ctx_as(&root, bpf_program__fd(skel->progs.list_children), &args,
				 sizeof(args), BPF_F_CRIB_TARGET, &found);
		tap_check(&t, !err && found == 0, "a childless process has no children listed "
			  "(err %d, listed %d)", err, found);
		args.vpid = a;
		err = run_ctx_as(&root, bpf_program__fd(skel->progs.reach_parent), &args,
				 sizeof(args), BPF_F_CRIB_TARGET, &found);
		if (!tap_check(&t, !err && found == (REFUSED_CHILDREN | REFUSED_MAPPINGS |
						      REFUSED_FILE),
			       "the target's parent, reached through its fields: its children, "
			       "mappings and files are refused"))
			tap_diag("BPF_PROG_RUN: %s, refused mask %d (want 7)", strerror(-err), found);
	}

	kill(a, SIGKILL);
	kill(g, SIGKILL);
	kill(b, SIGKILL);
	kill(mine, SIGKILL);
	waitpid(a, &status, 0);
	waitpid(b, &status, 0);
	waitpid(mine, &status, 0);
	crib_scope__destroy(skel);
	return tap_done(&t);
}
