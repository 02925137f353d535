// SPDX-License-Identifier: GPL-2.0
/*
 * Read a whole snapshot into a restore tree: a plan per process, and what
 * they share.  The reader checks the stream (framing, schema, trailer
 * checksum) as it goes; this file hands each record to the file of its
 * kind (task.c, threads.c, mm.c, pages.c, files.c, signals.c, timers.c,
 * the sockets', events' and ghosts' files), which takes it into the tree,
 * and checks, once the stream is read, that every process is whole.  The
 * snapshot stays mapped where it can, so that page contents are copied
 * from it (pages.c says where each run goes), and memory is never held
 * twice in the heap.  Only a stream read to its end without an error
 * yields a tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "direct.h"
#include "events.h"
#include "exit.h"
#include "files.h"
#include "ghost.h"
#include "inotify.h"
#include "locks.h"
#include "pidfd.h"
#include "tty.h"
#include "mm.h"
#include "pages.h"
#include "plan.h"
#include "progress.h"
#include "seccomp.h"
#include "shadow_fill.h"
#include "shmem.h"
#include "signals.h"
#include "snapshot.h"
#include "socket_filter.h"
#include "socket_plan.h"
#include "task.h"
#include "threads.h"
#include "timers.h"

static int take_header(struct restore_tree *tree, const struct crib_header *h)
{
	tree->header = *h;
	tree->header.kernel_release = plan_dup_str(h->kernel_release);
	tree->header.arch = plan_dup_str(h->arch);
	tree->header.tool_name = plan_dup_str(h->tool_name);
	tree->header.tool_version = plan_dup_str(h->tool_version);
	tree->header.hostname = plan_dup_str(h->hostname);
	tree->header.boot_id = plan_dup_str(h->boot_id);
	return tree->header.kernel_release && tree->header.arch ? 0 : -1;
}

/* The process a record of @pid belongs to, whose record came before it. */
static struct restore_plan *owner_of(struct restore_tree *tree, uint64_t pid, const char *what,
				     struct tool_error *err)
{
	struct restore_plan *plan = plan_find(tree, pid);

	if (!plan)
		tool_fail(err, 0, "a %s record of process %llu, which has no process record "
			  "before it", what, (unsigned long long)pid);
	else if (plan->proc.zombie)
		tool_fail(err, 0, "a %s record of process %llu, a zombie", what,
			  (unsigned long long)pid);
	return plan && !plan->proc.zombie ? plan : NULL;
}

/* A record of a process: to its plan, which must exist. */
static int take_proc_record(struct restore_tree *tree, const struct crib_record *rec,
			    uint64_t pid, struct tool_error *err)
{
	struct restore_plan *plan = owner_of(tree, pid, rec->info->name, err);

	if (!plan)
		return -1;
	switch (rec->type) {
	case CRIB_REC_THREAD:
		return threads_take(plan, &rec->u.thread, err);
	case CRIB_REC_SECCOMP:
		return seccomp_take(tree, plan, &rec->u.seccomp, err);
	case CRIB_REC_MM:
		return mm_take(plan, &rec->u.mm, err);
	case CRIB_REC_VMA:
		return mm_take_vma(plan, &rec->u.vma, err);
	case CRIB_REC_PAGES:
		return pages_take(tree, plan, &rec->u.pages, rec->stored, err);
	case CRIB_REC_FILE:
		return files_take(plan, &rec->u.file, err);
	case CRIB_REC_PIPE:
		return files_take_pipe(tree, &rec->u.pipe, err);
	case CRIB_REC_SOCKET:
		return plan_take_socket(tree, plan, &rec->u.socket, err);
	case CRIB_REC_SIGHAND:
		return signals_take_sighand(plan, &rec->u.sighand, err);
	case CRIB_REC_SIGPENDING:
		return signals_take_sigpending(plan, &rec->u.sigpending, err);
	case CRIB_REC_TIMERS:
		return timers_take(plan, &rec->u.timers, err);
	}
	return 0;
}

static int take_record(struct restore_tree *tree, const struct crib_record *rec,
		       struct tool_error *err)
{
	switch (rec->type) {
	case CRIB_REC_HEADER:
		return take_header(tree, &rec->u.header) ?
			tool_fail(err, 0, "out of memory") : 0;
	case CRIB_REC_PROCESS:
		return task_take(tree, &rec->u.process, err);
	case CRIB_REC_THREAD:
		return take_proc_record(tree, rec, rec->u.thread.pid, err);
	case CRIB_REC_SECCOMP_FILTER:
		return seccomp_take_filter(tree, &rec->u.seccomp_filter, err);
	case CRIB_REC_SECCOMP:
		return take_proc_record(tree, rec, rec->u.seccomp.pid, err);
	case CRIB_REC_MM:
		return take_proc_record(tree, rec, rec->u.mm.pid, err);
	case CRIB_REC_VMA:
		return take_proc_record(tree, rec, rec->u.vma.pid, err);
	case CRIB_REC_PAGES:
		return take_proc_record(tree, rec, rec->u.pages.pid, err);
	case CRIB_REC_SHMEM:
		return shmem_take(tree, &rec->u.shmem, err);
	case CRIB_REC_FILE:
		return take_proc_record(tree, rec, rec->u.file.pid, err);
	case CRIB_REC_PIPE:
		return take_proc_record(tree, rec, rec->u.pipe.pid, err);
	case CRIB_REC_PIPE_DATA:
		return files_take_pipe_data(tree, &rec->u.pipe_data, err);
	case CRIB_REC_TIMERFD:
		return events_take_timerfd(tree, &rec->u.timerfd, err);
	case CRIB_REC_EPOLL_ITEM:
		return events_take_epoll_item(tree, &rec->u.epoll_item, err);
	case CRIB_REC_INOTIFY_WATCH:
		return inotify_take_watch(tree, &rec->u.inotify_watch, err);
	case CRIB_REC_FILE_LOCK:
		return locks_take_record(tree, &rec->u.file_lock, err);
	case CRIB_REC_PIDFD:
		return pidfd_take(tree, &rec->u.pidfd, err);
	case CRIB_REC_TTY:
		return tty_take_record(tree, &rec->u.tty, err);
	case CRIB_REC_GHOST:
		return ghost_take(tree, &rec->u.ghost, err);
	case CRIB_REC_GHOST_DATA:
		return ghost_take_data(tree, &rec->u.ghost_data, err);
	case CRIB_REC_SIGHAND:
		return take_proc_record(tree, rec, rec->u.sighand.pid, err);
	case CRIB_REC_SIGPENDING:
		return take_proc_record(tree, rec, rec->u.sigpending.pid, err);
	case CRIB_REC_TIMERS:
		return take_proc_record(tree, rec, rec->u.timers.pid, err);
	case CRIB_REC_SOCKET:
		return take_proc_record(tree, rec, rec->u.socket.pid, err);
	case CRIB_REC_SOCKET_QUEUE:
		return plan_take_socket_queue(tree, &rec->u.socket_queue, err);
	case CRIB_REC_SOCKET_FILTER:
		return socket_filter_take(tree, &rec->u.socket_filter, err);
	case CRIB_REC_TRAILER:
		return 0;
	default:
		if (rec->type & CRIB_REC_ANCILLARY)
			return 0;
		return tool_fail(err, 0, "the snapshot holds %s records, which crib-restore "
				 "does not know", rec->info ? rec->info->name : "unknown");
	}
}

/* What is left to read of @fd, when it is a file. */
static uint64_t input_size(int fd)
{
	struct stat st;
	off_t at;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return 0;
	at = lseek(fd, 0, SEEK_CUR);
	return at >= 0 && st.st_size > at ? (uint64_t)(st.st_size - at) : 0;
}

/* What a process that is not a zombie must have. */
static int check_complete(struct restore_plan *plan, struct tool_error *err)
{
	if (plan->proc.zombie)
		return 0;
	if (!plan->have_mm || !plan->threads.n)
		return tool_fail(err, 0, "the snapshot has no %s record for process %llu",
				 !plan->have_mm ? "mm" : "thread",
				 (unsigned long long)plan->proc.pid);
	return seccomp_check(plan, err) || pages_index(plan, err) ? -1 : 0;
}

/*
 * A snapshot in a regular file is read where it lies, mapped: zstd then
 * decodes from the page cache, where read() would first copy every byte.
 * (A file cut short by someone else while it is read would fault; a
 * pipe or a file that cannot be mapped is read().)
 */
struct mapped_input {
	void *addr;		/* MAP_FAILED: read() it */
	size_t len;
	const uint8_t *start;	/* the snapshot, at the file's position */
	size_t size;
	off_t at;
};

static void map_input(struct mapped_input *m, int fd, uint64_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	off_t base;

	m->addr = MAP_FAILED;
	m->at = lseek(fd, 0, SEEK_CUR);
	if (!size || size > SIZE_MAX / 2 || m->at < 0 || page <= 0)
		return;
	base = m->at & ~(off_t)(page - 1);
	m->len = (size_t)size + (size_t)(m->at - base);
	m->addr = mmap(NULL, m->len, PROT_READ, MAP_PRIVATE, fd, base);
	if (m->addr == MAP_FAILED)
		return;
	madvise(m->addr, m->len, MADV_SEQUENTIAL);
	m->start = (const uint8_t *)m->addr + (m->at - base);
	m->size = (size_t)size;
}

/*
 * Threads decoding a mapped snapshot's zstd frames ahead of the reader:
 * one per CPU (decoding costs several times what taking the records
 * does), at least one and at most 8.
 */
static int decode_threads(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	return cpus > 1 ? (int)(cpus < 8 ? cpus : 8) : 1;
}

/*
 * The records of the snapshot, each taken into the tree's plans; the
 * progress meter follows the input the reader has taken.
 */
static int take_all(struct restore_tree *tree, struct crib_reader *r, struct progress *progress,
		    struct tool_error *err)
{
	struct crib_record rec;
	uint64_t shown = 0, at;
	int ret;

	while ((ret = crib_reader_next(r, &rec)) == 1) {
		if (take_record(tree, &rec, err))
			return -1;
		at = crib_reader_input_offset(r);
		progress_add(progress, at - shown);
		shown = at;
	}
	return ret;
}

static void unmap_input(struct restore_tree *tree)
{
	if (tree->input_map)
		munmap(tree->input_map, tree->input_map_len);
	tree->input_map = NULL;
	tree->input_map_len = 0;
}

int plan_read(struct restore_tree *tree, int fd, uint64_t max_size, struct progress *progress,
	      struct tool_error *err)
{
	CRIB_OPTS(crib_reader_opts, opts, .max_size = max_size);
	uint64_t size = input_size(fd);
	struct crib_error cerr = { 0 };
	struct mapped_input m = { .addr = MAP_FAILED };
	struct crib_reader *r;
	size_t i;
	int ret;

	memset(tree, 0, sizeof(*tree));
	tree->page_store = memfd_create("crib-pages", MFD_CLOEXEC);
	if (tree->page_store < 0)
		return tool_fail(err, errno, "cannot create the page store");
	progress_process(progress, 1, size);
	map_input(&m, fd, size);
	if (m.addr != MAP_FAILED) {
		opts.mem = m.start;
		opts.mem_len = m.size;
		opts.threads = decode_threads();
	}
	r = crib_reader_open(m.addr != MAP_FAILED ? -1 : fd, &opts, &cerr);
	if (!r) {
		if (m.addr != MAP_FAILED)
			munmap(m.addr, m.len);
		tree->snapshot_exit = tool_exit_for(cerr.code);
		return tool_fail(err, 0, "not a usable snapshot: %s (file offset %llu)", cerr.msg,
				 (unsigned long long)cerr.file_offset);
	}
	/* Nothing past the header is read for a snapshot this machine cannot take. */
	if (check_header(crib_reader_header(r), err)) {
		crib_reader_close(r);
		if (m.addr != MAP_FAILED)
			munmap(m.addr, m.len);
		return -1;
	}
	/*
	 * Stored data stays in a mapped snapshot: it is copied into the new
	 * processes from there (direct.c), or a thread fills shadows from it.
	 */
	if (m.addr != MAP_FAILED) {
		tree->input_map = m.addr;
		tree->input_map_len = m.len;
	}
	tree->filler = shadow_filler_open(m.addr != MAP_FAILED);
	ret = take_all(tree, r, progress, err);
	for (i = 0; !ret && i < tree->procs.n; i++)
		ret = pages_settle_direct(tree, tree->procs.items[i], err);
	/* The shadows are full: nothing is to wait for a fill after this. */
	shadow_filler_close(tree->filler);
	tree->filler = NULL;
	if (m.addr != MAP_FAILED) {
		/* where read() would have left it */
		lseek(fd, m.at + (off_t)crib_reader_input_offset(r), SEEK_SET);
	}
	if (ret < 0 && !tool_failed(err)) {
		tree->snapshot_exit = tool_exit_for(crib_reader_error(r)->code);
		tool_fail(err, 0, "the snapshot is %s: %s (file offset %llu)",
			  tree->snapshot_exit == TOOL_EXIT_IO ? "unreadable" : "damaged",
			  crib_reader_error(r)->msg,
			  (unsigned long long)crib_reader_error(r)->file_offset);
	}
	crib_reader_close(r);
	if (ret < 0)
		return -1;
	if (!direct_any(tree))
		unmap_input(tree);
	if (!tree->procs.n)
		return tool_fail(err, 0, "the snapshot has no process record");
	if (plan_root(tree)->proc.pid != tree->header.root_pid && tree->header.root_pid)
		return tool_fail(err, 0, "the snapshot's first process %llu is not its root %llu",
				 (unsigned long long)plan_root(tree)->proc.pid,
				 (unsigned long long)tree->header.root_pid);
	for (i = 0; i < tree->procs.n; i++)
		if (check_complete(tree->procs.items[i], err))
			return -1;
	return 0;
}

static void free_one(struct restore_plan *plan)
{
	task_free(plan);
	threads_free(plan);
	mm_free(plan);
	pages_free(plan);
	files_free(plan);
	signals_free(plan);
	timers_free(plan);
	array_free(&plan->children);
	free(plan);
}

void plan_free(struct restore_tree *tree)
{
	size_t i;

	for (i = 0; i < tree->procs.n; i++)
		free_one(tree->procs.items[i]);
	array_free(&tree->procs);
	free((char *)tree->header.kernel_release);
	free((char *)tree->header.arch);
	free((char *)tree->header.tool_name);
	free((char *)tree->header.tool_version);
	free((char *)tree->header.hostname);
	free((char *)tree->header.boot_id);
	files_free_tree(tree);
	plan_free_sockets(tree);
	shmem_free(tree);
	ghosts_free(tree);
	array_free(&tree->helpers);
	array_free(&tree->timerfds);
	array_free(&tree->epoll_items);
	inotify_free(tree);
	seccomp_free(tree);
	locks_free(tree);
	pidfd_free(tree);
	tty_free(tree);
	if (tree->page_store > 0)
		close(tree->page_store);
	unmap_input(tree);
	memset(tree, 0, sizeof(*tree));
}
