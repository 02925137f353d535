// SPDX-License-Identifier: GPL-2.0
/*
 * Read a whole snapshot into a restore tree: a plan per process, and what
 * they share.  The reader checks the stream (framing, schema, trailer
 * checksum) as it goes; page contents stay in a mapped snapshot, to be
 * copied straight into the new process (direct.c), or go to shadows of
 * their VMAs (shadow.c), to shared memory objects (shmem.c) or to the page
 * store, a memfd the restorers read them from, so memory is never held
 * twice in the heap.  Only a stream read to its end without an error
 * yields a tree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crib-restore.h"

static char *dup_str(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int copy_siginfos(const struct crib_siginfo *in, size_t n, struct plan_siginfo **out)
{
	size_t i;

	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return -1;
	for (i = 0; i < n; i++) {
		(*out)[i].signo = (uint32_t)in[i].signo;
		memcpy((*out)[i].info, in[i].info.data,
		       in[i].info.len < RST_SIGINFO_SIZE ? in[i].info.len : RST_SIGINFO_SIZE);
	}
	return 0;
}

static int take_header(struct restore_tree *tree, const struct crib_header *h)
{
	tree->header = *h;
	tree->header.kernel_release = dup_str(h->kernel_release);
	tree->header.arch = dup_str(h->arch);
	tree->header.tool_name = dup_str(h->tool_name);
	tree->header.tool_version = dup_str(h->tool_version);
	tree->header.hostname = dup_str(h->hostname);
	tree->header.boot_id = dup_str(h->boot_id);
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

static int take_process(struct restore_tree *tree, const struct crib_process *p,
			struct tool_error *err)
{
	struct restore_plan *plan, **slot;
	struct crib_rlimit *rl;
	uint64_t *groups;

	if (plan_find(tree, p->pid))
		return tool_fail(err, 0, "process %llu is in the snapshot twice",
				 (unsigned long long)p->pid);
	plan = calloc(1, sizeof(*plan));
	slot = plan ? array_push(&tree->procs) : NULL;
	if (!slot) {
		free(plan);
		return tool_fail(err, 0, "out of memory");
	}
	*slot = plan;
	plan->index = tree->procs.n - 1;
	plan->header = tree->header;
	plan->page_store = tree->page_store;
	plan->born_sid = -1;
	plan->proc = *p;
	plan->proc.comm = dup_str(p->comm);
	plan->proc.cwd = dup_str(p->cwd);
	plan->proc.root = dup_str(p->root);
	plan->proc.exe = dup_str(p->exe);
	rl = calloc(p->n_rlimits ? p->n_rlimits : 1, sizeof(*rl));
	groups = calloc(p->n_groups ? p->n_groups : 1, sizeof(*groups));
	if (rl)
		memcpy(rl, p->rlimits, p->n_rlimits * sizeof(*rl));
	if (groups)
		memcpy(groups, p->groups, p->n_groups * sizeof(*groups));
	plan->proc.rlimits = rl;
	plan->proc.groups = groups;
	/* a zombie has no directories */
	if (!rl || !groups || (!p->zombie && (!plan->proc.cwd || !plan->proc.root)))
		return tool_fail(err, 0, "out of memory");
	return 0;
}

/* A thread's own credentials, its groups copied. */
static int take_creds(struct plan_thread *pt, const struct crib_thread *t)
{
	uint64_t *groups = calloc(t->creds.n_groups ? t->creds.n_groups : 1, sizeof(*groups));

	if (!groups)
		return -1;
	memcpy(groups, t->creds.groups, t->creds.n_groups * sizeof(*groups));
	pt->own_creds = t->own_creds;
	pt->creds = t->creds;
	pt->creds.groups = groups;
	return 0;
}

static int take_thread(struct restore_plan *plan, const struct crib_thread *t,
		       struct tool_error *err)
{
	struct plan_thread *pt = array_push(&plan->threads);

	if (!pt)
		return tool_fail(err, 0, "out of memory");
	pt->tid = (pid_t)t->tid;
	snprintf(pt->comm, sizeof(pt->comm), "%s", t->comm ? t->comm : "");
	pt->regs = t->regs_x86_64;
	pt->sigmask = t->sigmask;
	pt->altstack = t->sigaltstack;
	pt->clear_child_tid = t->clear_child_tid;
	pt->robust_list = t->robust_list;
	pt->robust_list_len = t->robust_list_len;
	pt->rseq = t->rseq;
	pt->rseq_len = t->rseq_len;
	pt->rseq_sig = t->rseq_sig;
	pt->pdeath_signal = t->pdeath_signal;
	if (take_creds(pt, t))
		return tool_fail(err, 0, "out of memory");
	if (t->regs_arch && t->regs_arch[0])
		return tool_fail(err, 0, "thread %d has %s registers; only x86_64 is supported",
				 (int)pt->tid, t->regs_arch);
	pt->xstate = malloc(t->xstate.len ? t->xstate.len : 1);
	if (!pt->xstate || copy_siginfos(t->pending, t->n_pending, &pt->pending))
		return tool_fail(err, 0, "out of memory");
	memcpy(pt->xstate, t->xstate.data, t->xstate.len);
	pt->xstate_len = t->xstate.len;
	pt->n_pending = t->n_pending;
	return 0;
}

static int take_mm(struct restore_plan *plan, const struct crib_mm *mm, struct tool_error *err)
{
	void *auxv;

	if (plan->have_mm)
		return tool_fail(err, 0, "the snapshot holds more than one address space");
	auxv = malloc(mm->auxv.len ? mm->auxv.len : 1);
	if (!auxv)
		return tool_fail(err, 0, "out of memory");
	memcpy(auxv, mm->auxv.data, mm->auxv.len);
	plan->mm = *mm;
	plan->mm.auxv.data = auxv;
	plan->mm.exe = dup_str(mm->exe);
	plan->have_mm = true;
	return 0;
}

static int take_vma(struct restore_plan *plan, const struct crib_vma *v,
		    struct tool_error *err)
{
	struct plan_vma *pv = array_push(&plan->vmas);

	if (!pv)
		return tool_fail(err, 0, "out of memory");
	pv->v = *v;
	pv->v.path = dup_str(v->path);
	if (plan->vmas.n > 1 && v->start < pv[-1].v.end)
		return tool_fail(err, 0, "VMA %#llx-%#llx overlaps or precedes the one before it",
				 (unsigned long long)v->start, (unsigned long long)v->end);
	return 0;
}

/*
 * Contents go to a shadow of their VMA (shadow.c) or to the page store.
 * A zero run (populated pages that read as zeros) is a hole in the store:
 * it takes no memory, and filling from it makes the pages present again,
 * and zero rather than the file's bytes in a private file mapping.
 */
/* The VMA of @plan holding [addr, addr + len), or NULL. */
static struct plan_vma *vma_at(const struct restore_plan *plan, uint64_t addr, uint64_t len)
{
	for (size_t i = plan->vmas.n; i-- > 0;) {
		struct plan_vma *pv = &plan->vmas.items[i];

		if (pv->v.start <= addr && len <= pv->v.end - addr)
			return pv;
	}
	return NULL;
}

/*
 * [@addr, +@len) among the runs the restorer fills: from @offset in the
 * page store, or RST_IN_PLACE (a shadow's, to make writable).
 */
static int plan_run(struct restore_plan *plan, uint64_t addr, uint64_t len, uint64_t offset,
		    struct tool_error *err)
{
	struct plan_pages *pp = plan->pages.n ? &plan->pages.items[plan->pages.n - 1] : NULL;

	if (pp && pp->addr + pp->len == addr &&
	    (offset == RST_IN_PLACE ? pp->offset == RST_IN_PLACE :
	     pp->offset != RST_IN_PLACE && pp->offset + pp->len == offset)) {
		pp->len += len;		/* one run split across records */
		return 0;
	}
	pp = array_push(&plan->pages);
	if (!pp)
		return tool_fail(err, 0, "out of memory");
	*pp = (struct plan_pages){ addr, len, offset };
	return 0;
}

/*
 * The run at @addr of @pv (NULL: no VMA holds it), @data NULL for zeros,
 * to a shadow or to the page store.  @data_in_input: it lies in the
 * mapped snapshot.
 */
static int keep_pages(struct restore_tree *tree, struct restore_plan *plan,
		      const struct plan_vma *pv, uint64_t addr, const void *data, uint64_t len,
		      bool data_in_input, struct tool_error *err)
{
	size_t done = 0;
	ssize_t n;

	if (shadow_take(plan, tree->filler, addr, data, len, data_in_input))
		return data && pv && (pv->v.prot & PROT_WRITE) ?
		       plan_run(plan, addr, len, RST_IN_PLACE, err) : 0;
	if (!data) {
		if (ftruncate(tree->page_store, (off_t)(tree->page_store_len + len)))
			return tool_fail(err, errno, "cannot keep the memory contents");
		done = len;
	}
	while (done < len) {
		n = pwrite(tree->page_store, (const char *)data + done, len - done,
			   (off_t)(tree->page_store_len + done));
		if (n < 0)
			return tool_fail(err, errno, "cannot keep the memory contents");
		done += (size_t)n;
	}
	if (plan_run(plan, addr, len, tree->page_store_len, err))
		return -1;
	tree->page_store_len += len;
	return 0;
}

static int take_pages(struct restore_tree *tree, struct restore_plan *plan,
		      const struct crib_pages *p, bool stored, struct tool_error *err)
{
	uint64_t len = p->npages * tree->header.page_size;
	struct plan_vma *pv;
	int ret;

	if (p->data.data && p->data.len != len)
		return tool_fail(err, 0, "pages record at %#llx: %zu bytes for %llu pages",
				 (unsigned long long)p->addr, p->data.len,
				 (unsigned long long)p->npages);
	pv = vma_at(plan, p->addr, len);
	if (pv && shmem_take_pages(tree, pv, p->addr, p->data.data, len, tree->header.page_size))
		return 0;
	/* Data that stays in the mapped snapshot, or none, is copied in later. */
	if (pv && tree->input_map && (stored || !p->data.data)) {
		ret = direct_take(plan, pv, p->addr, p->data.data, len, err);
		if (ret)
			return ret < 0 ? -1 : 0;
	}
	return keep_pages(tree, plan, pv, p->addr, p->data.data, len, stored, err);
}

static int by_addr(const void *a, const void *b)
{
	const struct plan_pages *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Once every VMA is known: the runs left in the snapshot for a VMA that
 * must keep a shadow (direct_keeps()) go to its shadow after all, their
 * runs into the restorer's, which stay in address order.
 */
static int settle_direct(struct restore_tree *tree, struct restore_plan *plan,
			 struct tool_error *err)
{
	struct plan_direct d;
	struct plan_vma *pv;
	size_t i, kept = 0;

	for (i = 0; i < plan->direct.n; i++) {
		d = plan->direct.items[i];
		pv = vma_at(plan, d.addr, d.len);
		if (direct_keeps(plan, pv)) {
			plan->direct.items[kept++] = d;
			continue;
		}
		pv->direct = false;
		plan->direct_bytes -= d.len;
		if (keep_pages(tree, plan, pv, d.addr, d.data, d.len, true, err))
			return -1;
	}
	if (kept < plan->direct.n)
		qsort(plan->pages.items, plan->pages.n, sizeof(*plan->pages.items), by_addr);
	plan->direct.n = kept;
	return 0;
}

static int take_file(struct restore_plan *plan, const struct crib_file *f,
		     struct tool_error *err)
{
	struct crib_file *pf = array_push(&plan->files);

	if (!pf)
		return tool_fail(err, 0, "out of memory");
	*pf = *f;
	pf->path = dup_str(f->path);
	return 0;
}

static int take_pipe(struct restore_tree *tree, const struct crib_pipe *p,
		     struct tool_error *err)
{
	struct crib_pipe *end = array_push(&tree->pipe_fds);
	struct plan_pipe *pp;

	if (!end)
		return tool_fail(err, 0, "out of memory");
	*end = *p;
	pp = plan_find_pipe(tree, p->pipe_id);
	if (!pp) {
		pp = array_push(&tree->pipes);
		if (!pp)
			return tool_fail(err, 0, "out of memory");
		pp->pipe_id = p->pipe_id;
	}
	pp->pipe_size = p->pipe_size;
	pp->ends_outside = p->ends_outside;
	if (p->end != CRIB_PIPE_WRITE)
		pp->has_read_end = true;
	if (p->end != CRIB_PIPE_READ)
		pp->has_write_end = true;
	return 0;
}

static int take_pipe_data(struct restore_tree *tree, const struct crib_pipe_data *d,
			  struct tool_error *err)
{
	struct plan_pipe *pp = plan_find_pipe(tree, d->pipe_id);
	unsigned char *buf;

	if (!pp)
		return tool_fail(err, 0, "pipe data for pipe %llu, which no descriptor holds",
				 (unsigned long long)d->pipe_id);
	if (d->offset != pp->len)
		return tool_fail(err, 0, "pipe %llu: data at offset %llu, expected %zu",
				 (unsigned long long)d->pipe_id,
				 (unsigned long long)d->offset, pp->len);
	buf = realloc(pp->data, pp->len + d->data.len + 1);
	if (!buf)
		return tool_fail(err, 0, "out of memory");
	memcpy(buf + pp->len, d->data.data, d->data.len);
	pp->data = buf;
	pp->len += d->data.len;
	return 0;
}

static int take_sighand(struct restore_plan *plan, const struct crib_sighand *s,
			struct tool_error *err)
{
	plan->actions = calloc(s->n_actions ? s->n_actions : 1, sizeof(*plan->actions));
	if (!plan->actions)
		return tool_fail(err, 0, "out of memory");
	memcpy(plan->actions, s->actions, s->n_actions * sizeof(*plan->actions));
	plan->n_actions = s->n_actions;
	return 0;
}

static int take_sigpending(struct restore_plan *plan, const struct crib_sigpending *s,
			   struct tool_error *err)
{
	if (copy_siginfos(s->signals, s->n_signals, &plan->shared_pending))
		return tool_fail(err, 0, "out of memory");
	plan->n_shared_pending = s->n_signals;
	return 0;
}

static int take_timers(struct restore_plan *plan, const struct crib_timers *t,
		       struct tool_error *err)
{
	struct crib_posix_timer *posix;
	size_t i;

	posix = calloc(t->n_posix ? t->n_posix : 1, sizeof(*posix));
	if (!posix)
		return tool_fail(err, 0, "out of memory");
	memcpy(posix, t->posix, t->n_posix * sizeof(*posix));
	for (i = 1; i < t->n_posix; i++)
		if (posix[i].id <= posix[i - 1].id) {
			free(posix);
			return tool_fail(err, 0, "POSIX timers out of order (id %llu after %llu)",
					 (unsigned long long)posix[i].id,
					 (unsigned long long)posix[i - 1].id);
		}
	plan->timers = *t;
	plan->timers.posix = posix;
	plan->have_timers = true;
	return 0;
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
		return take_thread(plan, &rec->u.thread, err);
	case CRIB_REC_MM:
		return take_mm(plan, &rec->u.mm, err);
	case CRIB_REC_VMA:
		return take_vma(plan, &rec->u.vma, err);
	case CRIB_REC_PAGES:
		return take_pages(tree, plan, &rec->u.pages, rec->stored, err);
	case CRIB_REC_FILE:
		return take_file(plan, &rec->u.file, err);
	case CRIB_REC_PIPE:
		return take_pipe(tree, &rec->u.pipe, err);
	case CRIB_REC_SOCKET:
		return plan_take_socket(tree, plan, &rec->u.socket, err);
	case CRIB_REC_SIGHAND:
		return take_sighand(plan, &rec->u.sighand, err);
	case CRIB_REC_SIGPENDING:
		return take_sigpending(plan, &rec->u.sigpending, err);
	case CRIB_REC_TIMERS:
		return take_timers(plan, &rec->u.timers, err);
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
		return take_process(tree, &rec->u.process, err);
	case CRIB_REC_THREAD:
		return take_proc_record(tree, rec, rec->u.thread.pid, err);
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
		return take_pipe_data(tree, &rec->u.pipe_data, err);
	case CRIB_REC_TIMERFD:
		return events_take_timerfd(tree, &rec->u.timerfd, err);
	case CRIB_REC_EPOLL_ITEM:
		return events_take_epoll_item(tree, &rec->u.epoll_item, err);
	case CRIB_REC_INOTIFY_WATCH:
		return inotify_take_watch(tree, &rec->u.inotify_watch, err);
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
	case CRIB_REC_TRAILER:
		return 0;
	default:
		if (rec->type & CRIB_REC_ANCILLARY)
			return 0;
		return tool_fail(err, 0, "the snapshot holds %s records, which crib-restore "
				 "does not know", rec->info ? rec->info->name : "unknown");
	}
}

/* Mark the VMAs that get contents; every run must lie inside VMAs. */
static int index_pages(struct restore_plan *plan, struct tool_error *err)
{
	struct plan_vma *v = plan->vmas.items, *end = plan->vmas.items + plan->vmas.n, *cur;
	const struct plan_pages *p;
	uint64_t covered;
	size_t i;

	for (i = 0; i < plan->pages.n; i++) {
		p = &plan->pages.items[i];
		while (v < end && v->v.end <= p->addr)
			v++;
		/* A run may go on into the next VMA: runs merge across records. */
		for (cur = v, covered = p->addr; covered < p->addr + p->len; cur++) {
			if (cur == end || cur->v.start > covered)
				return tool_fail(err, 0, "memory at %#llx lies outside every VMA",
						 (unsigned long long)covered);
			cur->has_data = true;
			covered = cur->v.end;
		}
	}
	return 0;
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
	return index_pages(plan, err);
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

int plan_read(struct restore_tree *tree, int fd, struct progress *progress,
	      struct tool_error *err)
{
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
	r = m.addr != MAP_FAILED ? crib_reader_open_mem_threads(m.start, m.size, decode_threads(),
								 &cerr) :
				   crib_reader_open(fd, &cerr);
	if (!r) {
		if (m.addr != MAP_FAILED)
			munmap(m.addr, m.len);
		return tool_fail(err, 0, "not a usable snapshot: %s", cerr.msg);
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
		ret = settle_direct(tree, tree->procs.items[i], err);
	/* The shadows are full: nothing is to wait for a fill after this. */
	shadow_filler_close(tree->filler);
	tree->filler = NULL;
	if (m.addr != MAP_FAILED) {
		/* where read() would have left it */
		lseek(fd, m.at + (off_t)crib_reader_input_offset(r), SEEK_SET);
	}
	if (ret < 0 && !tool_failed(err))
		tool_fail(err, 0, "the snapshot is damaged: %s", crib_reader_error(r)->msg);
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

static void free_threads(struct restore_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->threads.n; i++) {
		free(plan->threads.items[i].xstate);
		free(plan->threads.items[i].pending);
		free((void *)plan->threads.items[i].creds.groups);
	}
	array_free(&plan->threads);
}

static void free_one(struct restore_plan *plan)
{
	size_t i;

	free((char *)plan->proc.comm);
	free((char *)plan->proc.cwd);
	free((char *)plan->proc.root);
	free((char *)plan->proc.exe);
	free((void *)plan->proc.rlimits);
	free((void *)plan->proc.groups);
	free((void *)plan->mm.auxv.data);
	free((char *)plan->mm.exe);
	free_threads(plan);
	for (i = 0; i < plan->vmas.n; i++)
		free((char *)plan->vmas.items[i].v.path);
	array_free(&plan->vmas);
	array_free(&plan->pages);
	for (i = 0; i < plan->files.n; i++)
		free((char *)plan->files.items[i].path);
	array_free(&plan->files);
	array_free(&plan->fds);
	free(plan->actions);
	free(plan->shared_pending);
	free((void *)plan->timers.posix);
	array_free(&plan->children);
	array_free(&plan->direct);
	shadow_free(plan);
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
	array_free(&tree->pipe_fds);
	for (i = 0; i < tree->pipes.n; i++)
		free(tree->pipes.items[i].data);
	array_free(&tree->pipes);
	plan_free_sockets(tree);
	shmem_free(tree);
	ghosts_free(tree);
	array_free(&tree->descs);
	array_free(&tree->helpers);
	array_free(&tree->timerfds);
	array_free(&tree->epoll_items);
	inotify_free(tree);
	if (tree->page_store > 0)
		close(tree->page_store);
	unmap_input(tree);
	memset(tree, 0, sizeof(*tree));
}
