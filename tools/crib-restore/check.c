// SPDX-License-Identifier: GPL-2.0
/*
 * What is checked before anything is created: that this machine can take
 * the snapshot (architecture, page size, kernel), that the PIDs are free
 * (tree.c), and that every file a process had open or mapped is still
 * there as it was.  A restore that would fail half-way is refused here, with the
 * reason, while nothing exists yet.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check.h"
#include "events.h"
#include "ghost.h"
#include "inotify.h"
#include "plan.h"
#include "shmem.h"
#include "sockets.h"
#include "tree.h"

/* Character devices that are the same everywhere, so reopening one is exact. */
static const char *const portable_chardevs[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
};

static int check_machine(const struct restore_tree *plan, struct tool_error *err)
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

/*
 * A pipe or FIFO whose ends are all in the tree.  Those no descriptor of
 * the tree holds were closed by all when ends_outside is 0; a 1.0
 * snapshot, which does not say, is refused as 1.0 restorers refused it.
 */
static int check_pipe(const struct restore_tree *tree, const struct plan_desc *d,
		      const struct crib_file *f, struct tool_error *err)
{
	const struct plan_pipe *pp = d->pipe;
	struct stat st;

	if (!pp)
		return tool_fail(err, 0, "fd %llu is a pipe the snapshot does not describe",
				 (unsigned long long)f->fd);
	if (pp->ends_outside)
		return tool_fail(err, 0, "fd %llu is a pipe with %llu end%s outside the snapshot; "
				 "that cannot be restored", (unsigned long long)f->fd,
				 (unsigned long long)pp->ends_outside,
				 pp->ends_outside == 1 ? "" : "s");
	if (!tree->header.version_minor && (!pp->has_read_end || !pp->has_write_end))
		return tool_fail(err, 0, "fd %llu is one end of a pipe whose other end is "
				 "outside the snapshot; that cannot be restored",
				 (unsigned long long)f->fd);
	if (f->type != CRIB_FILE_FIFO)
		return 0;
	if (!f->path || f->path[0] != '/')
		return tool_fail(err, 0, "fd %llu: a FIFO without a usable path",
				 (unsigned long long)f->fd);
	if (stat(f->path, &st))
		return tool_fail(err, errno, "fd %llu: %s", (unsigned long long)f->fd, f->path);
	if (!S_ISFIFO(st.st_mode))
		return tool_fail(err, 0, "fd %llu: %s is no longer a FIFO",
				 (unsigned long long)f->fd, f->path);
	return 0;
}

/* A descriptor or mapping of a ghost: the snapshot holds it, and it can be made. */
static int check_ghost(const struct restore_tree *tree, uint64_t id, const char *what,
		       struct tool_error *err)
{
	const struct plan_ghost *pg = ghost_find(tree, id);

	if (!pg)
		return tool_fail(err, 0, "%s is ghost %llu, which the snapshot does not hold",
				 what, (unsigned long long)id);
	if (ghost_check_dir(pg, err)) {
		char text[sizeof(err->msg)];

		snprintf(text, sizeof(text), "%s: %.*s", what, (int)sizeof(text) - 64, err->msg);
		memcpy(err->msg, text, sizeof(err->msg));
		return -1;
	}
	return 0;
}

static int check_file(const struct restore_tree *tree, const struct restore_plan *plan,
		      const struct plan_fd *pf, struct tool_error *err)
{
	const struct plan_desc *d = &tree->descs.items[pf->desc];
	const struct crib_file *f = d->file;
	char what[96];
	struct stat st;

	if (f->ghost_id) {
		snprintf(what, sizeof(what), "fd %llu (%s)", (unsigned long long)f->fd,
			 f->path ? f->path : "");
		if (f->type != CRIB_FILE_REGULAR && f->type != CRIB_FILE_MEMFD)
			return tool_fail(err, 0, "%s is a %s, not a file", what,
					 crib_file_type_name(f->type));
		return check_ghost(tree, f->ghost_id, what, err);
	}
	if (f->type == CRIB_FILE_PIPE || f->type == CRIB_FILE_FIFO)
		return check_pipe(tree, d, f, err);
	if (events_is_event_file(f->type))
		return events_check(tree, plan, f, err);
	if (f->type == CRIB_FILE_SOCKET)
		return plan_find_socket_fd(tree, plan, pf->fd) ? 0 :
			tool_fail(err, 0, "fd %llu is a socket the snapshot does not describe",
				  (unsigned long long)pf->fd);
	if (f->type != CRIB_FILE_REGULAR && f->type != CRIB_FILE_DIR &&
	    f->type != CRIB_FILE_CHARDEV)
		return tool_fail(err, 0, "fd %llu is a %s, which cannot be restored",
				 (unsigned long long)f->fd, crib_file_type_name(f->type));
	if (!f->path || f->path[0] != '/')
		return tool_fail(err, 0, "fd %llu has no usable path", (unsigned long long)f->fd);
	/* under /proc/PID/ of a process not made yet: there once it is (files.c) */
	if (d->proc_owner)
		return 0;
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

static int check_vma(const struct restore_tree *tree, const struct plan_vma *pv,
		     struct tool_error *err)
{
	const struct crib_vma *v = &pv->v;
	const struct plan_shmem *sh;
	struct stat st;

	switch (v->kind) {
	case CRIB_VMA_SHARED_ANON:
		if (!v->shmem_id)
			return 0;
		sh = shmem_find(tree, v->shmem_id);
		if (!sh || v->pgoff > sh->size / tree->header.page_size ||
		    v->end - v->start > sh->size - v->pgoff * tree->header.page_size)
			return tool_fail(err, 0, "the shared memory at %#llx maps object %llu, "
					 "which the snapshot does not hold so large",
					 (unsigned long long)v->start,
					 (unsigned long long)v->shmem_id);
		return 0;
	case CRIB_VMA_ANON:
	case CRIB_VMA_HEAP:
	case CRIB_VMA_STACK:
	case CRIB_VMA_VDSO:
	case CRIB_VMA_VVAR:
	case CRIB_VMA_VSYSCALL:
		return 0;
	case CRIB_VMA_FILE:
		if (v->ghost_id) {
			char what[96];

			snprintf(what, sizeof(what), "the mapping at %#llx", (unsigned long long)v->start);
			return check_ghost(tree, v->ghost_id, what, err);
		}
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

	char parent[PATH_MAX];

	if (plan->proc.cwd_unlinked) {
		/* made again, and removed, in the directory it was in */
		snprintf(parent, sizeof(parent), "%s", plan->proc.cwd);
		if (plan->proc.cwd[0] != '/' || stat(dirname(parent), &st) || !S_ISDIR(st.st_mode))
			return tool_fail(err, 0, "cannot make the removed working directory %s "
					 "again: its parent %s is missing", plan->proc.cwd, parent);
	} else if (stat(plan->proc.cwd, &st) || !S_ISDIR(st.st_mode)) {
		return tool_fail(err, 0, "the working directory %s is gone", plan->proc.cwd);
	}
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

/* What a process of the tree needs; a zombie needs nothing but its PID. */
static int check_process(const struct restore_tree *tree, const struct restore_plan *plan,
			 struct tool_error *err)
{
	size_t i;

	if (plan->proc.zombie)
		return 0;
	if (check_dirs(plan, err) || check_signals(plan, err))
		return -1;
	for (i = 0; i < plan->fds.n; i++)
		if (check_file(tree, plan, &plan->fds.items[i], err))
			return -1;
	for (i = 0; i < plan->vmas.n; i++)
		if (check_vma(tree, &plan->vmas.items[i], err))
			return -1;
	return 0;
}

/* The sentence of @err says which process, when the tree has several. */
static int in_process(const struct restore_tree *tree, const struct restore_plan *plan,
		      struct tool_error *err)
{
	char text[sizeof(err->msg)];

	if (tree->procs.n > 1) {
		snprintf(text, sizeof(text), "process %llu: %.*s",
			 (unsigned long long)plan->proc.pid, (int)sizeof(text) - 48, err->msg);
		memcpy(err->msg, text, sizeof(err->msg));
	}
	return -1;
}

int plan_check(const struct restore_tree *tree, struct tool_error *err)
{
	size_t i;

	if (check_machine(tree, err) || tree_check_pids(tree, err) || sockets_check(tree, err) ||
	    events_check_items(tree, err) || inotify_check(tree, err))
		return -1;
	for (i = 0; i < tree->procs.n; i++)
		if (check_process(tree, tree->procs.items[i], err))
			return in_process(tree, tree->procs.items[i], err);
	return 0;
}
