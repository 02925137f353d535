/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a loaded CRIB program as another caller: a child that drops to a
 * uid and a set of capabilities, then runs the program through
 * BPF_PROG_RUN.  Shared by crib_access.c and crib_lockdown.c.
 */
#ifndef CRIB_TESTS_ACCESS_H
#define CRIB_TESTS_ACCESS_H

#include <errno.h>
#include <grp.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include <bpf/bpf.h>

#include "crib_target.h"

/* The context of crib_access.bpf.c's programs. */
struct access_args {
	struct crib_target target;	/* the process the run is about */
	int pid;
	int fd;
};

/* Returned by those programs when the task or socket could not be had. */
#define ACCESS_NO_TASK	-1000

/* A caller: its uid (and gid) and the capabilities it keeps. */
struct caller {
	const char *name;
	uid_t uid;
	uint64_t caps;		/* 1 << CAP_x; all of them for uid 0 */
};

#define CAP(c)	(1ULL << (c))

static inline int caller_become(const struct caller *c)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};

	if (c->uid == 0)
		return 0;
	if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) ||
	    setresgid(c->uid, c->uid, c->uid) || setresuid(c->uid, c->uid, c->uid))
		return -1;
	d[0].effective = d[0].permitted = (uint32_t)c->caps;
	d[1].effective = d[1].permitted = (uint32_t)(c->caps >> 32);
	return syscall(SYS_capset, &h, d) ? -1 : 0;
}

/*
 * Run @prog_fd with the context @ctx of @size bytes and the run @flags as
 * @c, in a child.  *@retval gets the program's return value; returns 0,
 * or the -errno of BPF_PROG_RUN (or of dropping privileges, as
 * -EOWNERDEAD).
 */
static inline int run_ctx_as(const struct caller *c, int prog_fd, const void *ctx,
			     size_t size, unsigned int flags, int *retval)
{
	struct { int err, retval; } res = { -EOWNERDEAD, 0 };
	int p[2], status;
	pid_t pid;

	if (pipe(p))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = ctx, .ctx_size_in = size,
			    .flags = flags);

		close(p[0]);
		if (!caller_become(c)) {
			res.err = bpf_prog_test_run_opts(prog_fd, &o) ? -errno : 0;
			res.retval = (int)o.retval;
		}
		_exit(write(p[1], &res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], &res, sizeof(res)) != sizeof(res))
		res.err = -EPIPE;
	close(p[0]);
	waitpid(pid, &status, 0);
	*retval = res.retval;
	return res.err;
}

/*
 * run_ctx_as() with the access tests' context, the run scoped to process
 * @about (a pidfd of it is opened here, before @c's privileges drop).
 */
static inline int run_as(const struct caller *c, int prog_fd, pid_t about,
			 struct access_args *args, int *retval)
{
	int err;

	args->target.pidfd = (int)syscall(SYS_pidfd_open, about, 0);
	if (args->target.pidfd < 0)
		return -errno;
	args->target.flags = 0;
	err = run_ctx_as(c, prog_fd, args, sizeof(*args), CRIB_RUN_TARGET, retval);
	close(args->target.pidfd);
	return err;
}

#endif /* CRIB_TESTS_ACCESS_H */
