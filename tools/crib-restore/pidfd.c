// SPDX-License-Identifier: GPL-2.0
/*
 * Pidfds (spec §5.3, pidfd).  A pidfd cannot be made before what it refers
 * to exists again, and a thread of the tree exists only once its
 * restorer made it: so, unlike every other description, a pidfd is made
 * when the whole tree waits in its restore areas, by its holders
 * themselves, each made by the tracer to run the system calls (run).
 *
 * The first descriptor of a description, in snapshot order, gets it from
 * pidfd_open(2) on the restored process or thread, with PIDFD_THREAD and
 * PIDFD_NONBLOCK as the description had them; a process that had exited
 * and been reaped is replaced by one of crib-restore's, made for it,
 * which has exited by then and is reaped once the pidfd refers to it, so
 * that the pidfd reads as exited.  Another descriptor of the description
 * in the same process is a dup3() of the first; in another process it
 * takes it with pidfd_getfd(2) through a pidfd of the first's process,
 * so that descriptors that shared a description share one again (its
 * status flags with it).  Each descriptor gets its FD_CLOEXEC.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pidfd.h"
#include "plan.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL
#endif
#ifndef PIDFD_NONBLOCK
#define PIDFD_NONBLOCK	O_NONBLOCK
#endif

int pidfd_take(struct restore_tree *tree, const struct crib_pidfd *p, struct tool_error *err)
{
	struct crib_pidfd *slot = array_push(&tree->pidfds);

	if (!slot)
		return tool_fail(err, 0, "out of memory");
	*slot = *p;
	return 0;
}

void pidfd_free(struct restore_tree *tree)
{
	array_free(&tree->pidfds);
}

static const struct crib_pidfd *find_record(const struct restore_tree *tree, uint64_t pid,
					    uint64_t fd)
{
	size_t i;

	for (i = 0; i < tree->pidfds.n; i++)
		if (tree->pidfds.items[i].pid == pid && tree->pidfds.items[i].fd == fd)
			return &tree->pidfds.items[i];
	return NULL;
}

static bool thread_in_tree(const struct restore_tree *tree, uint64_t tid)
{
	const struct restore_plan *plan;
	size_t i, j;

	for (i = 0; i < tree->procs.n; i++) {
		plan = tree->procs.items[i];
		for (j = 0; j < plan->threads.n; j++)
			if ((uint64_t)plan->threads.items[j].tid == tid)
				return true;
	}
	return false;
}

int pidfd_check(const struct restore_tree *tree, const struct restore_plan *plan,
		const struct crib_file *f, struct tool_error *err)
{
	const struct crib_pidfd *p = find_record(tree, plan->proc.pid, f->fd);

	if (!p)
		return tool_fail(err, 0, "fd %llu is a pidfd the snapshot does not describe",
				 (unsigned long long)f->fd);
	if (f->owner_pid || f->signal || (f->flags & O_ASYNC))
		return tool_fail(err, 0, "fd %llu: a pidfd with signal-driven I/O, which cannot "
				 "be restored", (unsigned long long)f->fd);
	if (p->dead)
		return 0;
	if (p->thread ? !thread_in_tree(tree, p->target) : !plan_find(tree, p->target))
		return tool_fail(err, 0, "fd %llu is a pidfd of %s %llu, which is not in the "
				 "snapshot", (unsigned long long)f->fd,
				 p->thread ? "thread" : "process", (unsigned long long)p->target);
	return 0;
}

/* What one description's making needs: where its first descriptor went. */
struct making {
	const struct restore_tree *tree;
	pidfd_syscall_fn run;
	void *ctx;
	struct tool_error *err;
	size_t first_proc;		/* index in tree->procs */
	uint64_t first_fd;
	bool made;
};

/* Process @p runs @nr; its result, or a failure naming what it was for. */
static int call(struct making *m, size_t p, const struct plan_fd *pf, const char *what,
		long nr, uint64_t a0, uint64_t a1, uint64_t a2, long *ret)
{
	const struct restore_plan *plan = m->tree->procs.items[p];

	if (m->run(m->ctx, p, nr, a0, a1, a2, 0, ret))
		return -1;
	if (*ret < 0)
		return tool_fail(m->err, (int)-*ret, "process %llu, fd %llu (pidfd): %s",
				 (unsigned long long)plan->proc.pid,
				 (unsigned long long)pf->fd, what);
	return 0;
}

/*
 * @got, a new descriptor of process @p (close-on-exec, as pidfd_open()
 * and pidfd_getfd() make them), moved to its place with its FD_CLOEXEC.
 */
static int place(struct making *m, size_t p, const struct plan_fd *pf, long got)
{
	long ret;

	if ((uint64_t)got == pf->fd)
		return call(m, p, pf, "cannot set its FD_CLOEXEC", SYS_fcntl, pf->fd, F_SETFD,
			    pf->cloexec ? FD_CLOEXEC : 0, &ret);
	if (call(m, p, pf, "cannot move it to its number", SYS_dup3, (uint64_t)got, pf->fd,
		 pf->cloexec ? O_CLOEXEC : 0, &ret))
		return -1;
	return call(m, p, pf, "cannot close the copy it was made as", SYS_close, (uint64_t)got,
		    0, 0, &ret);
}

/* A process of crib-restore's that has exited, not yet reaped: the dead one's stand-in. */
static pid_t exited_process(struct tool_error *err)
{
	siginfo_t info;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0) {
		tool_fail(err, errno, "cannot make a process for a pidfd of a dead one");
		return -1;
	}
	/* exited, and left a zombie until the pidfd refers to it */
	if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT)) {
		tool_fail(err, errno, "waiting for the process made for a pidfd of a dead one");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

/* The description's first descriptor: pidfd_open() on what it refers to. */
static int open_first(struct making *m, size_t p, const struct plan_fd *pf,
		      const struct crib_pidfd *rec, const struct crib_file *f)
{
	uint64_t flags = (rec->thread ? PIDFD_THREAD : 0) |
			 ((f->flags & O_NONBLOCK) ? PIDFD_NONBLOCK : 0);
	pid_t target = (pid_t)rec->target;
	char what[96];
	long got;
	int ret;

	if (rec->dead) {
		target = exited_process(m->err);
		if (target < 0)
			return -1;
	}
	snprintf(what, sizeof(what), "cannot open a pidfd of %s %llu", rec->thread ? "thread" :
		 "process", rec->dead ? 0ULL : (unsigned long long)rec->target);
	ret = call(m, p, pf, what, SYS_pidfd_open, (uint64_t)target, flags, 0, &got);
	if (rec->dead)
		waitpid(target, NULL, 0);
	if (ret || place(m, p, pf, got))
		return -1;
	m->first_proc = p;
	m->first_fd = pf->fd;
	m->made = true;
	return 0;
}

/* Another descriptor of a description made in process m->first_proc. */
static int share(struct making *m, size_t p, const struct plan_fd *pf)
{
	const struct restore_plan *first = m->tree->procs.items[m->first_proc];
	long holder, got, ret;

	if (p == m->first_proc)
		return call(m, p, pf, "cannot duplicate the descriptor it shares a description with",
			    SYS_dup3, m->first_fd, pf->fd, pf->cloexec ? O_CLOEXEC : 0, &ret);
	if (call(m, p, pf, "cannot open a pidfd of the process it shares a description with",
		 SYS_pidfd_open, first->proc.pid, 0, 0, &holder))
		return -1;
	if (call(m, p, pf, "cannot take the description it shares (pidfd_getfd)",
		 SYS_pidfd_getfd, (uint64_t)holder, m->first_fd, 0, &got))
		return -1;
	/* first: the pidfd used may sit where the descriptor goes */
	if (call(m, p, pf, "cannot close a pidfd it used", SYS_close, (uint64_t)holder, 0, 0,
		 &ret))
		return -1;
	return place(m, p, pf, got);
}

static int make_description(struct making *m, size_t desc)
{
	const struct restore_tree *tree = m->tree;
	const struct restore_plan *plan;
	const struct crib_pidfd *rec;
	const struct plan_fd *pf;
	size_t p, i;

	for (p = 0; p < tree->procs.n; p++) {
		plan = tree->procs.items[p];
		for (i = 0; !plan->proc.zombie && i < plan->fds.n; i++) {
			pf = &plan->fds.items[i];
			if (pf->desc != desc)
				continue;
			if (m->made) {
				if (share(m, p, pf))
					return -1;
				continue;
			}
			rec = find_record(tree, plan->proc.pid, pf->fd);
			if (!rec)
				return tool_fail(m->err, 0, "process %llu, fd %llu: a pidfd the "
						 "snapshot does not describe",
						 (unsigned long long)plan->proc.pid,
						 (unsigned long long)pf->fd);
			if (open_first(m, p, pf, rec, tree->descs.items[desc].file))
				return -1;
		}
	}
	return 0;
}

int pidfd_make(const struct restore_tree *tree, pidfd_syscall_fn run, void *ctx,
	       struct tool_error *err)
{
	struct making m;
	size_t i;

	for (i = 0; i < tree->descs.n; i++) {
		if (tree->descs.items[i].file->type != CRIB_FILE_PIDFD)
			continue;
		m = (struct making){ .tree = tree, .run = run, .ctx = ctx, .err = err };
		if (make_description(&m, i))
			return -1;
	}
	return 0;
}
