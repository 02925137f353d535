// SPDX-License-Identifier: GPL-2.0
/*
 * What is checked before anything is created: that this machine can take
 * the snapshot (architecture, page size, kernel), that the PIDs are free,
 * and that every file the process had open or mapped is still there as it
 * was.  A restore that would fail half-way is refused here, with the
 * reason, while nothing exists yet.
 */
#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "crib-restore.h"

/* Character devices that are the same everywhere, so reopening one is exact. */
static const char *const portable_chardevs[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
};

static int check_machine(const struct restore_plan *plan, struct tool_error *err)
{
	struct utsname u;

	if (uname(&u))
		return tool_fail(err, errno, "uname");
	if (strcmp(plan->header.arch, "x86_64") || strcmp(u.machine, "x86_64"))
		return tool_fail(err, 0, "the snapshot is for %s and this machine is %s; "
				 "only x86_64 is supported", plan->header.arch, u.machine);
	if (plan->header.page_size != (uint64_t)sysconf(_SC_PAGESIZE))
		return tool_fail(err, 0, "the snapshot has %llu-byte pages, this machine %ld",
				 (unsigned long long)plan->header.page_size,
				 sysconf(_SC_PAGESIZE));
	/*
	 * The restored process keeps using the vDSO it had, whose code comes
	 * with the kernel; another kernel's would sit at other offsets.
	 */
	if (strcmp(plan->header.kernel_release, u.release))
		return tool_fail(err, 0, "the snapshot was taken on kernel %s and this is %s: "
				 "its vDSO would not match", plan->header.kernel_release,
				 u.release);
	return 0;
}

static int check_pids(const struct restore_plan *plan, struct tool_error *err)
{
	size_t i;
	pid_t tid;

	if (plan->threads.items[0].tid != (pid_t)plan->proc.pid)
		return tool_fail(err, 0, "the snapshot's first thread %d is not the process %llu",
				 (int)plan->threads.items[0].tid, (unsigned long long)plan->proc.pid);
	for (i = 0; i < plan->threads.n; i++) {
		tid = plan->threads.items[i].tid;
		if (tid <= 0)
			return tool_fail(err, 0, "thread with a bad TID %d", (int)tid);
		if (!kill(tid, 0) || errno == EPERM)
			return tool_fail(err, 0, "PID %d is in use: is the dumped process "
					 "still running?", (int)tid);
	}
	return 0;
}

static int check_regular(const struct crib_file *f, const struct stat *st,
			 struct tool_error *err)
{
	if (!S_ISREG(st->st_mode))
		return tool_fail(err, 0, "fd %llu: %s is no longer a regular file",
				 (unsigned long long)f->fd, f->path);
	if ((uint64_t)st->st_size != f->size)
		return tool_fail(err, 0, "fd %llu: %s changed size since the dump "
				 "(%llu bytes then, %lld now)", (unsigned long long)f->fd,
				 f->path, (unsigned long long)f->size, (long long)st->st_size);
	return 0;
}

static int check_chardev(const struct crib_file *f, struct tool_error *err)
{
	size_t i;

	for (i = 0; i < sizeof(portable_chardevs) / sizeof(portable_chardevs[0]); i++)
		if (!strcmp(f->path, portable_chardevs[i]))
			return 0;
	return tool_fail(err, 0, "fd %llu: the character device %s cannot be restored "
			 "(only /dev/null, zero, full, random, urandom)",
			 (unsigned long long)f->fd, f->path);
}

static int check_pipe(const struct restore_plan *plan, const struct crib_file *f,
		      struct tool_error *err)
{
	struct plan_pipe *pp = NULL;
	size_t i;

	for (i = 0; i < plan->pipe_fds.n; i++)
		if (plan->pipe_fds.items[i].fd == f->fd)
			pp = plan_find_pipe((struct restore_plan *)plan, plan->pipe_fds.items[i].pipe_id);
	if (!pp)
		return tool_fail(err, 0, "fd %llu is a pipe the snapshot does not describe",
				 (unsigned long long)f->fd);
	/* Half a pipe would read end-of-file or write into nothing. */
	if (!pp->has_read_end || !pp->has_write_end)
		return tool_fail(err, 0, "fd %llu is one end of a pipe whose other end is "
				 "outside the process; that cannot be restored",
				 (unsigned long long)f->fd);
	return 0;
}

static int check_file(const struct restore_plan *plan, const struct crib_file *f,
		      struct tool_error *err)
{
	struct stat st;

	if (f->type == CRIB_FILE_PIPE)
		return check_pipe(plan, f, err);
	if (f->type == CRIB_FILE_SOCKET)
		return plan_find_socket_fd(plan, f->fd) ? 0 :
			tool_fail(err, 0, "fd %llu is a socket the snapshot does not describe",
				  (unsigned long long)f->fd);
	if (f->type != CRIB_FILE_REGULAR && f->type != CRIB_FILE_DIR &&
	    f->type != CRIB_FILE_CHARDEV)
		return tool_fail(err, 0, "fd %llu is a %s, which cannot be restored",
				 (unsigned long long)f->fd, crib_file_type_name(f->type));
	if (!f->path || f->path[0] != '/')
		return tool_fail(err, 0, "fd %llu has no usable path", (unsigned long long)f->fd);
	if (stat(f->path, &st))
		return tool_fail(err, errno, "fd %llu: %s", (unsigned long long)f->fd, f->path);
	switch (f->type) {
	case CRIB_FILE_REGULAR:
		return check_regular(f, &st, err);
	case CRIB_FILE_DIR:
		return S_ISDIR(st.st_mode) ? 0 :
			tool_fail(err, 0, "fd %llu: %s is no longer a directory",
				  (unsigned long long)f->fd, f->path);
	default:
		return check_chardev(f, err);
	}
}

static int check_vma(const struct plan_vma *pv, struct tool_error *err)
{
	const struct crib_vma *v = &pv->v;
	struct stat st;

	switch (v->kind) {
	case CRIB_VMA_ANON:
	case CRIB_VMA_HEAP:
	case CRIB_VMA_STACK:
	case CRIB_VMA_SHARED_ANON:
	case CRIB_VMA_VDSO:
	case CRIB_VMA_VVAR:
	case CRIB_VMA_VSYSCALL:
		return 0;
	case CRIB_VMA_FILE:
		break;
	default:
		return tool_fail(err, 0, "the %s mapping at %#llx cannot be restored",
				 crib_vma_kind_name(v->kind), (unsigned long long)v->start);
	}
	if (!v->path || v->path[0] != '/')
		return tool_fail(err, 0, "the file mapping at %#llx has no usable path",
				 (unsigned long long)v->start);
	if (stat(v->path, &st))
		return tool_fail(err, errno, "%s, mapped at %#llx", v->path,
				 (unsigned long long)v->start);
	if (!S_ISREG(st.st_mode))
		return tool_fail(err, 0, "%s, mapped at %#llx, is no longer a regular file",
				 v->path, (unsigned long long)v->start);
	return 0;
}

static int check_dirs(const struct restore_plan *plan, struct tool_error *err)
{
	struct stat st;

	if (stat(plan->proc.cwd, &st) || !S_ISDIR(st.st_mode))
		return tool_fail(err, 0, "the working directory %s is gone", plan->proc.cwd);
	if (stat(plan->proc.root, &st) || !S_ISDIR(st.st_mode))
		return tool_fail(err, 0, "the root directory %s is gone", plan->proc.root);
	return 0;
}

static int check_signals(const struct restore_plan *plan, struct tool_error *err)
{
	const struct crib_posix_timer *pt;
	size_t i;

	for (i = 0; i < plan->timers.n_posix; i++) {
		pt = &plan->timers.posix[i];
		if (pt->id > INT32_MAX)
			return tool_fail(err, 0, "POSIX timer id %llu is out of range",
					 (unsigned long long)pt->id);
	}
	return 0;
}

int plan_check(const struct restore_plan *plan, struct tool_error *err)
{
	size_t i;

	if (check_machine(plan, err) || check_pids(plan, err) || check_dirs(plan, err) ||
	    check_signals(plan, err) || sockets_check(plan, err))
		return -1;
	for (i = 0; i < plan->files.n; i++)
		if (check_file(plan, &plan->files.items[i], err))
			return -1;
	for (i = 0; i < plan->vmas.n; i++)
		if (check_vma(&plan->vmas.items[i], err))
			return -1;
	return 0;
}
