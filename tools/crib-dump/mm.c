// SPDX-License-Identifier: GPL-2.0
/*
 * The mm record and one vma record per VMA.  The dump_vmas CRIB program
 * walks the VMAs; this file classifies them the way procfs names them,
 * resolves backing-file paths and refuses what cannot be represented.
 *
 * Shared anonymous memory is a shmem object, which a fork() shares with
 * the child and mprotect() can split into several VMAs.  One mapped by
 * more than one VMA of the tree gets a number and a shmem record
 * (mm_share()), and its pages are carried once, by the first VMA in the
 * snapshot that maps them.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "crib-dump.h"
#include "dump_mm.skel.h"
#include "kabi.h"

struct vma_entry {
	struct vma_info info;
	struct crib_vma rec;
	char *path;
	uint64_t size;			/* of its file: a shmem object's size */
	struct shared_object *object;	/* shared anonymous memory */
	ARRAY(struct addr_range) own;	/* the parts whose pages its records carry */
};

/* A shared memory object of the tree. */
struct shared_object {
	uint64_t dev, ino;
	uint64_t size;			/* bytes */
	uint64_t id;			/* its number; 0 while one VMA maps it */
	unsigned int vmas;		/* VMAs of the tree mapping it */
	ARRAY(struct addr_range) carried;	/* object offsets some VMA's pages carry */
};

struct shared_memory {
	ARRAY(struct shared_object *) objects;
};

struct vma_list {
	struct vma_entry *items;
	size_t n;
};

/* The walk goes on from the end of the last VMA that arrived. */
static uint64_t after_vma(const void *last)
{
	return ((const struct dump_vma_rec *)last)->end;
}

int mm_collect_vmas(struct dump_job *job, struct record_list *recs)
{
	return programs_walk(job, &job->progs.vmas, job->progs.vma_records, after_vma, recs);
}

static uint64_t vma_kind(const struct dump_job *job, const struct dump_vma_rec *v,
			 const char *path)
{
	const struct dump_task_rec *t = &job->task;

	if (t->vdso && v->start == t->vdso)
		return CRIB_VMA_VDSO;
	/* x86: [vvar] is a PFN map right below [vdso]. */
	if (t->vdso && v->end == t->vdso && !v->has_file && (v->vm_flags & VM_PFNMAP))
		return CRIB_VMA_VVAR;
	if (v->has_file) {
		if ((v->vm_flags & VM_MAYSHARE) && !strcmp(path, "/dev/zero (deleted)"))
			return CRIB_VMA_SHARED_ANON;
		if (!strncmp(path, "/SYSV", 5))
			return CRIB_VMA_SYSV_SHM;
		return CRIB_VMA_FILE;
	}
	/* The tests fs/proc/task_mmu.c uses for [heap] and [stack]. */
	if (v->start <= t->brk && v->end >= t->start_brk)
		return CRIB_VMA_HEAP;
	if (v->start <= t->start_stack && v->end >= t->start_stack)
		return CRIB_VMA_STACK;
	return CRIB_VMA_ANON;
}

/* What this increment cannot represent, as an error naming the VMA. */
static int refuse_unsupported(struct dump_job *job, const struct dump_vma_rec *v,
			      uint64_t kind, const char *path)
{
	const char *why = NULL;

	if (kind == CRIB_VMA_VVAR || kind == CRIB_VMA_VDSO)
		return 0;
	if (v->vm_flags & (VM_IO | VM_PFNMAP))
		why = "a device (I/O or PFN) mapping";
	else if (v->vm_flags & VM_HUGETLB)
		why = "a hugetlb mapping";
	else if (v->vm_flags & VM_LOCKONFAULT)
		why = "memory locked on fault (mlock2(MLOCK_ONFAULT))";
	else if (kind == CRIB_VMA_SYSV_SHM)
		why = "System V shared memory";
	else if (v->has_file && (S_ISCHR(v->i_mode) || S_ISBLK(v->i_mode)))
		why = "a device mapping";
	if (!why)
		return 0;
	return tool_fail(&job->err, 0, "process %d, VMA %#llx-%#llx%s%s: %s is not supported",
			 (int)job->pid, (unsigned long long)v->start, (unsigned long long)v->end,
			 path[0] ? " of " : "", path, why);
}

/* Path of a file-backed VMA via map_files, checked against the inode seen. */
static int vma_file_path(struct dump_job *job, const struct dump_vma_rec *v, char *buf,
			 size_t size)
{
	char what[64], proc_path[96];
	struct stat st;
	int ret;

	snprintf(what, sizeof(what), "map_files/%llx-%llx", (unsigned long long)v->start,
		 (unsigned long long)v->end);
	ret = proc_readlink(job->pid, what, buf, size);
	if (ret)
		return tool_fail(&job->err, -ret, "cannot resolve the file of VMA %#llx-%#llx",
				 (unsigned long long)v->start, (unsigned long long)v->end);
	snprintf(proc_path, sizeof(proc_path), "/proc/%d/%s", (int)job->pid, what);
	if (stat(proc_path, &st))
		return tool_fail(&job->err, errno, "cannot stat %s", proc_path);
	if (st.st_ino != v->ino || st.st_dev != kernel_dev_to_st_dev(v->dev))
		return tool_fail(&job->err, 0, "%s (%s) is not the file the kernel reports",
				 proc_path, buf);
	return 0;
}

static const char *kind_path(uint64_t kind)
{
	switch (kind) {
	case CRIB_VMA_HEAP: return "[heap]";
	case CRIB_VMA_STACK: return "[stack]";
	case CRIB_VMA_VDSO: return "[vdso]";
	case CRIB_VMA_VVAR: return "[vvar]";
	default: return "";
	}
}

/* What madvise(2) set and the kernel keeps in the VMA's flags (spec: vma advice). */
static uint64_t vma_advice(uint64_t vm_flags)
{
	static const struct { uint64_t vm_flag, advice; } map[] = {
		{ VM_SEQ_READ, CRIB_ADV_SEQUENTIAL }, { VM_RAND_READ, CRIB_ADV_RANDOM },
		{ VM_DONTCOPY, CRIB_ADV_DONTFORK }, { VM_WIPEONFORK, CRIB_ADV_WIPEONFORK },
		{ VM_DONTDUMP, CRIB_ADV_DONTDUMP }, { VM_HUGEPAGE, CRIB_ADV_HUGEPAGE },
		{ VM_NOHUGEPAGE, CRIB_ADV_NOHUGEPAGE }, { VM_MERGEABLE, CRIB_ADV_MERGEABLE },
	};
	uint64_t advice = 0;
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (vm_flags & map[i].vm_flag)
			advice |= map[i].advice;
	return advice;
}

static int add_vma(struct dump_job *job, const struct dump_vma_rec *v, struct vma_entry *e)
{
	char path[PATH_MAX] = "";
	uint64_t kind;

	if (v->has_file && vma_file_path(job, v, path, sizeof(path)))
		return -1;
	kind = vma_kind(job, v, path);
	if (refuse_unsupported(job, v, kind, path))
		return -1;
	if (!v->has_file)
		snprintf(path, sizeof(path), "%s", kind_path(kind));
	e->path = strdup(path);
	if (!e->path)
		return tool_fail(&job->err, 0, "out of memory");
	e->info = (struct vma_info) {
		.start = v->start, .end = v->end, .kind = kind,
		.vm_flags = v->vm_flags, .has_file = v->has_file,
		.offset = v->has_file ? v->pgoff * (uint64_t)sysconf(_SC_PAGESIZE) : 0,
	};
	e->rec = (struct crib_vma) {
		.pid = job->pid, .start = v->start, .end = v->end,
		.prot = ((v->vm_flags & VM_READ) ? PROT_READ : 0) |
			((v->vm_flags & VM_WRITE) ? PROT_WRITE : 0) |
			((v->vm_flags & VM_EXEC) ? PROT_EXEC : 0),
		.flags = ((v->vm_flags & VM_MAYSHARE) ? CRIB_MAP_SHARED : CRIB_MAP_PRIVATE) |
			 ((v->vm_flags & VM_GROWSDOWN) ? CRIB_MAP_GROWSDOWN : 0) |
			 ((v->vm_flags & VM_LOCKED) ? CRIB_MAP_LOCKED : 0) |
			 ((v->vm_flags & VM_NORESERVE) ? CRIB_MAP_NORESERVE : 0),
		/* Private anonymous memory has no offset that means anything. */
		.pgoff = v->has_file ? v->pgoff : 0,
		.path = e->path,
		.dev = v->has_file ? kernel_dev_to_st_dev(v->dev) : 0,
		.inode = v->ino,
		.kind = kind,
		.vm_flags = v->vm_flags,
		/* The vDSO's come with it: the kernel sets them when it maps one. */
		.advice = kind == CRIB_VMA_VDSO || kind == CRIB_VMA_VVAR ? 0 : vma_advice(v->vm_flags),
	};
	e->size = v->size;
	return 0;
}

int mm_read(struct dump_job *job)
{
	struct record_list recs = { .kind = DUMP_REC_VMA, .size = sizeof(struct dump_vma_rec) };
	struct vma_list *list;
	size_t i;
	int ret = -1;

	list = calloc(1, sizeof(*list));
	if (!list)
		return tool_fail(&job->err, 0, "out of memory");
	job->vmas = list;
	if (mm_collect_vmas(job, &recs))
		goto out;
	if (recs.n != job->task.map_count) {
		tool_fail(&job->err, 0, "dump_vmas found %zu VMAs, the mm has %u", recs.n,
			  job->task.map_count);
		goto out;
	}
	list->items = calloc(recs.n ? recs.n : 1, sizeof(*list->items));
	if (!list->items) {
		tool_fail(&job->err, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < recs.n; i++, list->n++)
		if (add_vma(job, (const struct dump_vma_rec *)recs.items + i, &list->items[i]))
			goto out;
	ret = 0;
out:
	record_list_free(&recs);
	return ret;
}

/* The auxv up to and including its AT_NULL entry. */
static size_t auxv_len(const struct dump_task_rec *t)
{
	size_t i;

	for (i = 0; i + 1 < DUMP_AUXV_WORDS; i += 2)
		if (t->auxv[i] == 0)
			return (i + 2) * sizeof(t->auxv[0]);
	return sizeof(t->auxv);
}

int mm_write(struct dump_job *job)
{
	const struct dump_task_rec *t = &job->task;
	char exe[PATH_MAX] = "";
	struct crib_mm mm;
	size_t i;

	if (t->exe.present && resolve_checked_path(job, "exe", &t->exe, exe, sizeof(exe)))
		return -1;
	mm = (struct crib_mm) {
		.pid = job->pid,
		.start_code = t->start_code, .end_code = t->end_code,
		.start_data = t->start_data, .end_data = t->end_data,
		.start_brk = t->start_brk, .brk = t->brk, .start_stack = t->start_stack,
		.arg_start = t->arg_start, .arg_end = t->arg_end,
		.env_start = t->env_start, .env_end = t->env_end,
		.auxv = { .data = t->auxv, .len = auxv_len(t) },
		.exe = exe,
		.flags = t->mm_flags & MMF_STATE_MASK,
		.nr_vmas = job->vmas->n,
	};
	if (crib_write_mm(job->writer, &mm))
		goto fail;
	for (i = 0; i < job->vmas->n; i++)
		if (crib_write_vma(job->writer, &job->vmas->items[i].rec))
			goto fail;
	dump_verbose(job, "%zu VMAs\n", job->vmas->n);
	return 0;
fail:
	return tool_fail(&job->err, 0, "writing the address space: %s",
			 crib_writer_error(job->writer)->msg);
}

void mm_free(struct dump_job *job)
{
	size_t i;

	if (!job->vmas)
		return;
	for (i = 0; i < job->vmas->n; i++) {
		free(job->vmas->items[i].path);
		array_free(&job->vmas->items[i].own);
	}
	free(job->vmas->items);
	free(job->vmas);
	job->vmas = NULL;
}

size_t mm_vma_count(const struct dump_job *job)
{
	return job->vmas ? job->vmas->n : 0;
}

const struct vma_info *mm_vma(const struct dump_job *job, size_t i)
{
	return &job->vmas->items[i].info;
}

bool mm_maps_file(const struct dump_job *job, uint64_t dev, uint64_t ino)
{
	const struct crib_vma *v;

	for (size_t i = 0; job->vmas && i < job->vmas->n; i++) {
		v = &job->vmas->items[i].rec;
		if (job->vmas->items[i].info.has_file && v->dev == dev && v->inode == ino)
			return true;
	}
	return false;
}

size_t mm_vma_own_ranges(const struct dump_job *job, size_t i, struct addr_range *out,
			 size_t max)
{
	const struct vma_entry *e = &job->vmas->items[i];
	size_t n;

	if (!e->object || !e->object->id) {
		if (max)
			out[0] = (struct addr_range){ e->info.start, e->info.end };
		return 1;
	}
	for (n = 0; n < e->own.n && n < max; n++)
		out[n] = e->own.items[n];
	return e->own.n;
}

static struct shared_object *find_object(struct shared_memory *sm, const struct crib_vma *v)
{
	struct shared_object **slot, *o;

	for (size_t i = 0; i < sm->objects.n; i++)
		if (sm->objects.items[i]->dev == v->dev && sm->objects.items[i]->ino == v->inode)
			return sm->objects.items[i];
	o = calloc(1, sizeof(*o));
	slot = o ? array_push(&sm->objects) : NULL;
	if (!slot) {
		free(o);
		return NULL;
	}
	o->dev = v->dev;
	o->ino = v->inode;
	*slot = o;
	return o;
}

static int by_start(const void *a, const void *b)
{
	const struct addr_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int own(struct vma_entry *e, uint64_t base, uint64_t from, uint64_t to)
{
	struct addr_range *r = array_push(&e->own);

	if (!r)
		return -1;
	*r = (struct addr_range){ base + from, base + to };
	return 0;
}

/*
 * The part of @e's object offsets [from, to) no earlier VMA carries, as
 * addresses of @e in e->own; then the object counts it as carried.
 */
static int claim(struct vma_entry *e, uint64_t from, uint64_t to)
{
	struct shared_object *o = e->object;
	uint64_t base = e->info.start - from, at = from;	/* address = base + offset */
	struct addr_range *r;
	size_t i;

	qsort(o->carried.items, o->carried.n, sizeof(*o->carried.items), by_start);
	for (i = 0; i < o->carried.n && at < to; i++) {
		const struct addr_range *c = &o->carried.items[i];

		if (c->end <= at)
			continue;
		if (c->start >= to)
			break;
		if (c->start > at && own(e, base, at, c->start))
			return -1;
		at = c->end;
	}
	if (at < to && own(e, base, at, to))
		return -1;
	r = array_push(&o->carried);
	if (!r)
		return -1;
	*r = (struct addr_range){ from, to };
	return 0;
}

/* The memfds and unlinked files the tree maps. */
static int mm_note_ghosts(struct dump_tree *tree)
{
	struct vma_entry *e;
	struct dump_job *job;
	char what[64];

	for (size_t i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		for (size_t j = 0; job->vmas && j < job->vmas->n; j++) {
			e = &job->vmas->items[j];
			if (e->info.kind != CRIB_VMA_FILE)
				continue;
			snprintf(what, sizeof(what), "map_files/%llx-%llx",
				 (unsigned long long)e->info.start, (unsigned long long)e->info.end);
			if (ghost_note(tree, job->pid, what, e->path, &e->rec.ghost_id))
				return -1;
		}
	}
	return 0;
}

int mm_share(struct dump_tree *tree)
{
	struct shared_memory *sm = calloc(1, sizeof(*sm));
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), next = 0, end;
	struct vma_entry *e;
	struct dump_job *job;
	size_t i, j;

	if (!sm)
		return tool_fail(&tree->err, 0, "out of memory");
	tree->memory = sm;
	for (i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		for (j = 0; job->vmas && j < job->vmas->n; j++) {
			e = &job->vmas->items[j];
			if (e->info.kind != CRIB_VMA_SHARED_ANON)
				continue;
			e->object = find_object(sm, &e->rec);
			if (!e->object)
				return tool_fail(&tree->err, 0, "out of memory");
			end = e->rec.pgoff * page + (e->info.end - e->info.start);
			if (e->object->size < end)
				e->object->size = end;
			if (e->object->size < (e->size + page - 1) / page * page)
				e->object->size = (e->size + page - 1) / page * page;
			e->object->vmas++;
		}
	}
	if (mm_note_ghosts(tree))
		return -1;
	for (i = 0; i < sm->objects.n; i++)
		if (sm->objects.items[i]->vmas > 1)
			sm->objects.items[i]->id = ++next;
	for (i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		for (j = 0; job->vmas && j < job->vmas->n; j++) {
			e = &job->vmas->items[j];
			if (!e->object || !e->object->id)
				continue;
			e->rec.shmem_id = e->object->id;
			if (claim(e, e->rec.pgoff * page,
				  e->rec.pgoff * page + (e->info.end - e->info.start)))
				return tool_fail(&tree->err, 0, "out of memory");
		}
	}
	return 0;
}

int mm_write_shared(struct dump_tree *tree, struct crib_writer *w)
{
	struct shared_object *o;
	struct crib_shmem rec;

	for (size_t i = 0; i < tree->memory->objects.n; i++) {
		o = tree->memory->objects.items[i];
		if (!o->id)
			continue;
		rec = (struct crib_shmem){ .shmem_id = o->id, .size = o->size };
		if (crib_write_shmem(w, &rec))
			return tool_fail(&tree->err, 0, "writing the shared memory object %llu: %s",
					 (unsigned long long)o->id, crib_writer_error(w)->msg);
	}
	return 0;
}

void mm_free_shared(struct dump_tree *tree)
{
	struct shared_memory *sm = tree->memory;

	if (!sm)
		return;
	for (size_t i = 0; i < sm->objects.n; i++) {
		array_free(&sm->objects.items[i]->carried);
		free(sm->objects.items[i]);
	}
	array_free(&sm->objects);
	free(sm);
	tree->memory = NULL;
}
