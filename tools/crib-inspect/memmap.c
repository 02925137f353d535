// SPDX-License-Identifier: GPL-2.0-only
/*
 * The summary's memory maps: every vma of every process, kept sorted by
 * (pid, start) so that a pages record finds its vma by binary search, and
 * printed once the stream is read.  Pages may come long after their vmas
 * (crib-dump --pre-copy writes them after every process), so nothing is
 * printed before the end.  Pages that arrive while the table is out of
 * order (only a crafted snapshot writes vmas so) wait in a list of runs
 * and are attributed after one sort at the end: the cost stays linear
 * in records, plus one sort, whatever their order.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

/* One row; the path cut to what a line shows. */
struct vma_row {
	struct crib_vma vma;	/* path not kept: copied below */
	char path[64];
	uint64_t dumped;	/* bytes with data */
	uint64_t zero;		/* bytes recorded as zero pages */
};

struct page_run {
	uint64_t pid, addr, bytes;
	bool zero;
};

struct memmap {
	ARRAY(struct vma_row) vmas;
	ARRAY(struct page_run) waiting;	/* pages seen while vmas were unsorted */
	bool unsorted;
	bool dropped;			/* memory ran out: some vmas not kept */
	uint64_t stray_pages;		/* pages outside any recorded vma */
	uint64_t page_size;
};

struct memmap *memmap_new(uint64_t page_size)
{
	struct memmap *m = calloc(1, sizeof(*m));

	if (m)
		m->page_size = page_size;
	return m;
}

void memmap_free(struct memmap *m)
{
	if (!m)
		return;
	array_free(&m->vmas);
	array_free(&m->waiting);
	free(m);
}

static int row_cmp(const void *a, const void *b)
{
	const struct crib_vma *x = &((const struct vma_row *)a)->vma;
	const struct crib_vma *y = &((const struct vma_row *)b)->vma;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

void memmap_add_vma(struct memmap *m, const struct crib_vma *v)
{
	struct vma_row *row;

	row = array_push(&m->vmas);
	if (!row) {
		m->dropped = true;
		return;
	}
	row->vma = *v;
	row->vma.path = NULL;
	snprintf(row->path, sizeof(row->path), "%s", v->path ? v->path : "");
	if (m->vmas.n > 1 && row_cmp(row - 1, row) > 0)
		m->unsorted = true;
}

/* The vma of @pid holding @addr, by binary search of the sorted table. */
static struct vma_row *find_vma(struct memmap *m, uint64_t pid, uint64_t addr)
{
	size_t lo = 0, hi = m->vmas.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct crib_vma *v = &m->vmas.items[mid].vma;

		if (v->pid < pid || (v->pid == pid && v->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (m->vmas.items[lo - 1].vma.pid != pid || addr >= m->vmas.items[lo - 1].vma.end)
		return NULL;
	return &m->vmas.items[lo - 1];
}

static void attribute(struct memmap *m, const struct page_run *p)
{
	struct vma_row *v = find_vma(m, p->pid, p->addr);

	if (!v)
		m->stray_pages += p->bytes / m->page_size;
	else if (p->zero)
		v->zero += p->bytes;
	else
		v->dumped += p->bytes;
}

void memmap_add_pages(struct memmap *m, const struct crib_pages *p)
{
	struct page_run run = {
		.pid = p->pid, .addr = p->addr, .bytes = p->npages * m->page_size,
		.zero = !p->data.len,
	};
	struct page_run *w;

	if (!m->unsorted) {
		attribute(m, &run);
		return;
	}
	w = array_push(&m->waiting);
	if (w)
		*w = run;
	else
		m->stray_pages += p->npages;
}

/* The vmas in order, and the pages that waited for it attributed. */
static void settle(struct memmap *m)
{
	if (m->unsorted)
		qsort(m->vmas.items, m->vmas.n, sizeof(*m->vmas.items), row_cmp);
	m->unsorted = false;
	for (size_t i = 0; i < m->waiting.n; i++)
		attribute(m, &m->waiting.items[i]);
	m->waiting.n = 0;
}

static void print_row(const struct vma_row *v)
{
	uint64_t size = v->vma.end - v->vma.start;
	char a[16], b[16], c[16];

	printf("    %012" PRIx64 " %012" PRIx64 " %c%c%c  %c%c     %8s %8s %8s  %-11s ",
	       v->vma.start, v->vma.end, v->vma.prot & 1 ? 'r' : '-',
	       v->vma.prot & 2 ? 'w' : '-', v->vma.prot & 4 ? 'x' : '-',
	       v->vma.flags & CRIB_MAP_SHARED ? 's' : 'p',
	       v->vma.flags & CRIB_MAP_GROWSDOWN ? 'g' : ' ', size_str(size, a, sizeof(a)),
	       size_str(v->dumped, b, sizeof(b)), size_str(v->zero, c, sizeof(c)),
	       crib_vma_kind_name(v->vma.kind));
	if (v->vma.shmem_id)	/* shared anonymous memory has no path */
		printf("shmem %" PRIu64, v->vma.shmem_id);
	else if (v->vma.ghost_id)
		printf("ghost %" PRIu64 " ", v->vma.ghost_id);
	if (!v->vma.shmem_id)
		print_path(v->path);
	putchar('\n');
}

/* The map of the process whose rows start at @first; returns the row after them. */
static size_t print_map(const struct memmap *m, size_t first)
{
	uint64_t pid = m->vmas.items[first].vma.pid, mapped = 0, dumped = 0, zero = 0;
	char a[16], b[16], c[16];
	size_t i;

	printf("\nmemory map of %" PRIu64 ":\n", pid);
	printf("    %-12s %-12s %-4s %-6s %8s %8s %8s  %-11s %s\n", "START", "END", "PROT",
	       "FLAGS", "SIZE", "DUMPED", "ZERO", "KIND", "PATH");
	for (i = first; i < m->vmas.n && m->vmas.items[i].vma.pid == pid; i++) {
		const struct vma_row *v = &m->vmas.items[i];

		print_row(v);
		mapped += v->vma.end - v->vma.start;
		dumped += v->dumped;
		zero += v->zero;
	}
	printf("    total: %zu vmas, %s mapped, %s dumped, %s zero\n", i - first,
	       size_str(mapped, a, sizeof(a)), size_str(dumped, b, sizeof(b)),
	       size_str(zero, c, sizeof(c)));
	return i;
}

void memmap_print(struct memmap *m)
{
	settle(m);
	for (size_t i = 0; i < m->vmas.n;)
		i = print_map(m, i);
	if (m->dropped)
		printf("    (out of memory: some vmas not shown)\n");
	if (m->stray_pages)
		printf("    warning: %" PRIu64 " pages outside any vma\n", m->stray_pages);
}
