// SPDX-License-Identifier: GPL-2.0
/*
 * The CRIB programs' records against the procfs ones, every field procfs
 * shows: if the two sides disagreed, timing them would compare different
 * work.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "facts.h"

#define PAGE_SIZE_BYTES	4096ull
#define MAX_PRINTED	20

struct comparison {
	const char *what;
	int diffs;
};

static void __attribute__((format(printf, 2, 3)))
differ(struct comparison *c, const char *fmt, ...)
{
	va_list ap;

	if (c->diffs++ >= MAX_PRINTED)
		return;
	printf("# %s: ", c->what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void same(struct comparison *c, const char *where, const char *field, uint64_t crib,
		 uint64_t proc)
{
	if (crib != proc)
		differ(c, "%s%s: CRIB %#llx, procfs %#llx", where, field,
		       (unsigned long long)crib, (unsigned long long)proc);
}

#define SAME(c, where, a, b, f) same(c, where, #f, (uint64_t)(a)->f, (uint64_t)(b)->f)

static void compare_inode(struct comparison *c, const char *name,
			  const struct dump_inode_id *a, const struct dump_inode_id *b)
{
	if (a->ino != b->ino || a->dev != b->dev || a->present != b->present)
		differ(c, "%s: CRIB %u:%llu, procfs %u:%llu", name, a->dev,
		       (unsigned long long)a->ino, b->dev, (unsigned long long)b->ino);
}

/* The auxv up to and including AT_NULL, in bytes. */
static size_t auxv_bytes(const struct dump_task_rec *t)
{
	size_t i;

	for (i = 0; i + 1 < DUMP_AUXV_WORDS; i += 2)
		if (t->auxv[i] == 0)
			return (i + 2) * sizeof(t->auxv[0]);
	return sizeof(t->auxv);
}

static void compare_task(struct comparison *c, const struct dump_task_rec *a,
			 const struct procfs_facts *f)
{
	const struct dump_task_rec *b = &f->task;
	uint64_t tick = 1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK);
	unsigned int i;

	SAME(c, "", a, b, pid);
	SAME(c, "", a, b, tgid);
	SAME(c, "", a, b, ppid);
	SAME(c, "", a, b, pgid);
	SAME(c, "", a, b, sid);
	SAME(c, "", a, b, nr_threads);
	SAME(c, "", a, b, creds.ngroups);
	for (i = 0; i < a->creds.ngroups && i < DUMP_MAX_GROUPS; i++)
		SAME(c, "", a, b, creds.groups[i]);
	if (strncmp(a->comm, b->comm, DUMP_COMM_LEN))
		differ(c, "comm: CRIB %.16s, procfs %.16s", a->comm, b->comm);
	SAME(c, "", a, b, creds.uid);
	SAME(c, "", a, b, creds.gid);
	SAME(c, "", a, b, creds.euid);
	SAME(c, "", a, b, creds.egid);
	SAME(c, "", a, b, creds.suid);
	SAME(c, "", a, b, creds.sgid);
	SAME(c, "", a, b, creds.fsuid);
	SAME(c, "", a, b, creds.fsgid);
	SAME(c, "", a, b, creds.cap_eff);
	SAME(c, "", a, b, creds.cap_prm);
	SAME(c, "", a, b, creds.cap_inh);
	SAME(c, "", a, b, creds.cap_bnd);
	SAME(c, "", a, b, creds.cap_amb);
	SAME(c, "", a, b, attrs.policy);
	SAME(c, "", a, b, attrs.rt_priority);
	SAME(c, "", a, b, attrs.nice);
	SAME(c, "", a, b, personality);
	SAME(c, "", a, b, umask);
	SAME(c, "", a, b, no_new_privs);
	/* procfs counts clock ticks. */
	if (a->start_boottime / tick != b->start_boottime / tick)
		same(c, "", "start_boottime (ticks)", a->start_boottime / tick,
		     b->start_boottime / tick);
	for (i = 0; i < DUMP_NR_RLIMITS; i++) {
		SAME(c, "", a, b, rlim[i].cur);
		SAME(c, "", a, b, rlim[i].max);
	}
	compare_inode(c, "cwd", &a->cwd, &b->cwd);
	compare_inode(c, "root", &a->root, &b->root);
	compare_inode(c, "exe", &a->exe, &b->exe);
	SAME(c, "", a, b, has_mm);
	SAME(c, "", a, b, map_count);
	SAME(c, "", a, b, start_code);
	SAME(c, "", a, b, end_code);
	SAME(c, "", a, b, start_data);
	SAME(c, "", a, b, end_data);
	SAME(c, "", a, b, start_brk);
	SAME(c, "", a, b, start_stack);
	SAME(c, "", a, b, arg_start);
	SAME(c, "", a, b, arg_end);
	SAME(c, "", a, b, env_start);
	SAME(c, "", a, b, env_end);
	SAME(c, "", a, b, vdso);
	/* procfs shows where [heap] ends: brk rounded up to a page. */
	if (b->brk)
		same(c, "", "brk (page-aligned)",
		     (a->brk + PAGE_SIZE_BYTES - 1) & ~(PAGE_SIZE_BYTES - 1), b->brk);
	if (memcmp(a->auxv, b->auxv, auxv_bytes(a)))
		differ(c, "auxv differs");
}

static void compare_vmas(struct comparison *c, const struct record_list *list,
			 const struct procfs_facts *f)
{
	const struct dump_vma_rec *a;
	const struct dump_vma_rec *b;
	char where[64];
	size_t i;

	if (list->n != f->n_vmas) {
		differ(c, "%zu VMAs from CRIB, %zu from procfs", list->n, f->n_vmas);
		return;
	}
	for (i = 0; i < list->n; i++) {
		a = (const struct dump_vma_rec *)list->items + i;
		b = &f->vmas[i];
		snprintf(where, sizeof(where), "VMA %zu %#llx: ", i, (unsigned long long)a->start);
		SAME(c, where, a, b, start);
		SAME(c, where, a, b, end);
		same(c, where, "vm_flags", a->vm_flags & f->vm_flags_known, b->vm_flags);
		SAME(c, where, a, b, has_file);
		if (!a->has_file)
			continue;
		SAME(c, where, a, b, ino);
		SAME(c, where, a, b, dev);
		SAME(c, where, a, b, pgoff);
		SAME(c, where, a, b, i_mode);
	}
}

static void compare_files(struct comparison *c, const struct record_list *list,
			  const struct procfs_facts *f)
{
	const struct dump_file_rec *a;
	const struct dump_file_rec *b;
	char where[32];
	size_t i;

	if (list->n != f->n_files) {
		differ(c, "%zu descriptors from CRIB, %zu from procfs", list->n, f->n_files);
		return;
	}
	for (i = 0; i < list->n; i++) {
		a = (const struct dump_file_rec *)list->items + i;
		b = &f->files[i];
		snprintf(where, sizeof(where), "fd %d: ", a->fd);
		SAME(c, where, a, b, fd);
		SAME(c, where, a, b, f_flags);
		/* procfs shows the access mode, not the other FMODE_ bits. */
		same(c, where, "f_mode (read, write)", a->f_mode & 3, b->f_mode);
		SAME(c, where, a, b, pos);
		SAME(c, where, a, b, ino);
		SAME(c, where, a, b, size);
		SAME(c, where, a, b, dev);
		SAME(c, where, a, b, i_mode);
		SAME(c, where, a, b, rdev);
		SAME(c, where, a, b, cloexec);
	}
}

int facts_compare(const struct crib_facts *crib, const struct procfs_facts *proc,
		  const char *what)
{
	struct comparison c = { .what = what };

	compare_task(&c, &crib->task, proc);
	compare_vmas(&c, &crib->vmas, proc);
	compare_files(&c, &crib->files, proc);
	if (c.diffs > MAX_PRINTED)
		printf("# %s: %d more differences\n", what, c.diffs - MAX_PRINTED);
	return c.diffs;
}
