// SPDX-License-Identifier: GPL-2.0-only
/*
 * --memory: each process's memory in sizes: mapped (its vmas), dumped
 * (pages with contents), zero (runs recorded as zero pages), stored (of
 * the dumped, bytes kept uncompressed in data frames, crib-dump --fast)
 * and compressed (an estimate: the encoded size of its other pages
 * records times the ratio of the compressed stream's file bytes to the
 * records' bytes; zstd compresses the records together, and says nothing
 * of one record's share).  Rows are found
 * by pid through a hash index, so pages long after their process (the
 * --pre-copy layout) cost no scan.
 *
 * --memory --search STRING: the addresses where STRING is in the dumped
 * memory, also across two runs that meet; --memory --extract ADDR[:LEN]
 * --pid N -o FILE: those bytes of the process's memory, written once all
 * are found.  With --pid, that process only.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inspect.h"

struct mem_row {
	uint64_t pid, vmas, mapped, dumped, zero, stored;
	uint64_t compressed;	/* encoded bytes until finish(), then the estimate */
};

struct memory {
	struct view v;
	uint64_t page_size;
	ARRAY(struct mem_row) rows;
	size_t *slots;		/* index + 1 of a row by pid hash; 0 is empty */
	size_t n_slots;
	bool dropped;		/* memory ran out: some processes not counted */
	uint64_t stream_bytes;	/* encoded bytes of the records zstd compressed */
	uint64_t stored_bytes;	/* bytes of data frames, not compressed */
};

static size_t pid_hash(uint64_t pid, size_t n_slots)
{
	return (size_t)((pid * 0x9e3779b97f4a7c15ull) >> 32) & (n_slots - 1);
}

static void slot_put(struct memory *m, size_t i)
{
	size_t h = pid_hash(m->rows.items[i].pid, m->n_slots);

	while (m->slots[h])
		h = (h + 1) & (m->n_slots - 1);
	m->slots[h] = i + 1;
}

/* The index at most half full: doubled and refilled when it would not be. */
static int index_reserve(struct memory *m)
{
	size_t n = m->n_slots ? m->n_slots * 2 : 1024, *slots;

	if (m->rows.n + 1 <= m->n_slots / 2)
		return 0;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -1;
	free(m->slots);
	m->slots = slots;
	m->n_slots = n;
	for (size_t i = 0; i < m->rows.n; i++)
		slot_put(m, i);
	return 0;
}

/* The row of @pid, made on first sight; NULL when memory runs out. */
static struct mem_row *row_of(struct memory *m, uint64_t pid)
{
	struct mem_row *row;
	size_t h;

	if (m->n_slots)
		for (h = pid_hash(pid, m->n_slots); m->slots[h]; h = (h + 1) & (m->n_slots - 1))
			if (m->rows.items[m->slots[h] - 1].pid == pid)
				return &m->rows.items[m->slots[h] - 1];
	if (index_reserve(m) || !(row = array_push(&m->rows))) {
		m->dropped = true;
		return NULL;
	}
	*row = (struct mem_row){ .pid = pid };
	slot_put(m, m->rows.n - 1);
	return row;
}

static int memory_start(void *state, const struct crib_header *h)
{
	struct memory *m = state;

	m->page_size = h->page_size;
	return 0;
}

static void memory_record(void *state, const struct crib_record *rec)
{
	struct memory *m = state;
	struct mem_row *row;

	if (rec->stored)
		m->stored_bytes += rec->u.pages.data.len;
	else
		m->stream_bytes += rec->raw_len;
	if (record_filtered_out(m->v.o, rec))
		return;
	switch (rec->type) {
	case CRIB_REC_PROCESS:
		if (!rec->u.process.zombie)
			row_of(m, rec->u.process.pid);
		break;
	case CRIB_REC_VMA:
		row = row_of(m, rec->u.vma.pid);
		if (row) {
			row->vmas++;
			row->mapped += rec->u.vma.end - rec->u.vma.start;
		}
		break;
	case CRIB_REC_PAGES:
		row = row_of(m, rec->u.pages.pid);
		if (!row)
			break;
		if (!rec->u.pages.data.len)
			row->zero += rec->u.pages.npages * m->page_size;
		else
			row->dumped += rec->u.pages.data.len;
		if (rec->stored)
			row->stored += rec->u.pages.data.len;
		else if (rec->u.pages.data.len)
			row->compressed += rec->raw_len;
		break;
	}
}

static void print_json(struct view_out *out, const struct mem_row *r)
{
	view_json_item(out);
	printf("{\"pid\":%" PRIu64 ",\"vmas\":%" PRIu64 ",\"mapped\":%" PRIu64 ",\"dumped\":%"
	       PRIu64 ",\"zero\":%" PRIu64 ",\"stored\":%" PRIu64 ",\"compressed\":%" PRIu64 "}",
	       r->pid, r->vmas, r->mapped, r->dumped, r->zero, r->stored, r->compressed);
}

static void print_line(const char *pid, const struct mem_row *r)
{
	char a[16], b[16], c[16], d[16], e[16];

	printf("%-8s %8" PRIu64 " %10s %10s %10s %10s %10s\n", pid, r->vmas,
	       size_str(r->mapped, a, sizeof(a)), size_str(r->dumped, b, sizeof(b)),
	       size_str(r->zero, c, sizeof(c)), size_str(r->stored, d, sizeof(d)),
	       size_str(r->compressed, e, sizeof(e)));
}

static int memory_finish(void *state)
{
	struct memory *m = state;
	struct mem_row total = { 0 };
	char pid[24];

	uint64_t outside = CRIB_PREAMBLE_LEN + m->stored_bytes;
	uint64_t file_bytes = m->v.out->input_bytes > outside ? m->v.out->input_bytes - outside : 0;
	double ratio = m->stream_bytes ? (double)file_bytes / (double)m->stream_bytes : 0;

	if (!m->v.out->json)
		printf("%-8s %8s %10s %10s %10s %10s %10s\n", "PID", "VMAS", "MAPPED", "DUMPED",
		       "ZERO", "STORED", "COMPRESSED");
	for (size_t i = 0; i < m->rows.n; i++) {
		struct mem_row *r = &m->rows.items[i];

		r->compressed = (uint64_t)((double)r->compressed * ratio + 0.5);

		if (m->v.out->json) {
			print_json(m->v.out, r);
			continue;
		}
		snprintf(pid, sizeof(pid), "%" PRIu64, r->pid);
		print_line(pid, r);
		total.vmas += r->vmas;
		total.mapped += r->mapped;
		total.dumped += r->dumped;
		total.zero += r->zero;
		total.stored += r->stored;
		total.compressed += r->compressed;
	}
	if (!m->v.out->json && m->rows.n > 1)
		print_line("total", &total);
	if (m->dropped)
		fprintf(stderr, "crib-inspect: out of memory: some processes not counted\n");
	if (m->v.o->have_pid && !m->rows.n) {
		fprintf(stderr, "crib-inspect: no memory of process %" PRIu64 " in the snapshot\n",
			m->v.o->pid);
		return EXIT_NEGATIVE;
	}
	return EXIT_OK;
}

static void memory_release(void *state)
{
	struct memory *m = state;

	array_free(&m->rows);
	free(m->slots);
}

const struct view_ops memory_view = {
	.name = "memory", .items = "processes",
	.size = sizeof(struct memory),
	.start = memory_start, .record = memory_record, .finish = memory_finish,
	.release = memory_release,
};

/* --search: the needle, and the end of the last run, for a match across two. */
struct search {
	struct view v;
	const uint8_t *needle;
	size_t len;
	uint64_t pid, end;		/* of the last run with data */
	uint8_t tail[SEARCH_MAX];	/* its last bytes, up to len - 1 */
	size_t tail_len;
	uint64_t found;
};

static int search_start(void *state, const struct crib_header *h)
{
	struct search *s = state;

	(void)h;
	s->needle = (const uint8_t *)s->v.o->search;
	s->len = strlen(s->v.o->search);
	return 0;
}

/* A match: its address, and the bytes from there as the line shows them. */
static void report(struct search *s, uint64_t pid, uint64_t addr)
{
	s->found++;
	if (s->v.out->json) {
		view_json_item(s->v.out);
		printf("{\"pid\":%" PRIu64 ",\"addr\":%" PRIu64 "}", pid, addr);
		return;
	}
	printf("pid %-8" PRIu64 " 0x%016" PRIx64 "\n", pid, addr);
}

/* Matches that begin in the kept tail and end in @p, the run at s->end. */
static void search_seam(struct search *s, uint64_t pid, const uint8_t *p, size_t n)
{
	uint8_t seam[2 * SEARCH_MAX];
	size_t more = n < s->len - 1 ? n : s->len - 1;

	memcpy(seam, s->tail, s->tail_len);
	memcpy(seam + s->tail_len, p, more);
	for (size_t i = 0; i < s->tail_len; i++)
		if (i + s->len <= s->tail_len + more && !memcmp(seam + i, s->needle, s->len))
			report(s, pid, s->end - s->tail_len + i);
}

/* The last len - 1 bytes of what has been searched, for the next run. */
static void keep_tail(struct search *s, const uint8_t *p, size_t n)
{
	size_t want = s->len - 1, keep;

	if (n >= want) {
		memcpy(s->tail, p + n - want, want);
		s->tail_len = want;
		return;
	}
	keep = s->tail_len + n > want ? want - n : s->tail_len;
	memmove(s->tail, s->tail + s->tail_len - keep, keep);
	memcpy(s->tail + keep, p, n);
	s->tail_len = keep + n;
}

static void search_record(void *state, const struct crib_record *rec)
{
	struct search *s = state;
	const struct crib_pages *pg = &rec->u.pages;
	const uint8_t *p, *hit;
	size_t n;

	if (rec->type != CRIB_REC_PAGES || record_filtered_out(s->v.o, rec))
		return;
	p = pg->data.data;
	n = pg->data.len;
	if (!n) {		/* zero pages: the string, without a NUL, is not in them */
		s->tail_len = 0;
		return;
	}
	if (s->tail_len && pg->pid == s->pid && pg->addr == s->end)
		search_seam(s, pg->pid, p, n);
	else
		s->tail_len = 0;
	for (size_t at = 0; at + s->len <= n; at = (size_t)(hit - p) + 1) {
		hit = memmem(p + at, n - at, s->needle, s->len);
		if (!hit)
			break;
		report(s, pg->pid, pg->addr + (uint64_t)(hit - p));
	}
	keep_tail(s, p, n);
	s->pid = pg->pid;
	s->end = pg->addr + n;
}

static int search_finish(void *state)
{
	struct search *s = state;

	if (s->found)
		return EXIT_OK;
	if (!s->v.out->json)
		fprintf(stderr, "crib-inspect: not found in the dumped memory\n");
	return EXIT_NEGATIVE;
}

const struct view_ops memory_search_view = {
	.name = "memory-search", .items = "matches",
	.size = sizeof(struct search),
	.start = search_start, .record = search_record, .finish = search_finish,
};

/* --extract: the range, its bytes, and which of its pages were found. */
struct extract {
	struct view v;
	uint64_t addr, len, page_size;
	uint8_t *buf;
	uint8_t *have;		/* a byte per page of the range: found */
	uint64_t pages;
};

int parse_range(const char *spec, uint64_t default_len, uint64_t *addr, uint64_t *len)
{
	unsigned long long a, l = default_len;
	char *end;

	errno = 0;
	a = strtoull(spec, &end, 0);
	if (end != spec && *end == ':')
		l = strtoull(end + 1, &end, 0);
	if (errno || end == spec || *end || !l || a + l < a)
		return -1;
	*addr = a;
	*len = l;
	return 0;
}

static int extract_start(void *state, const struct crib_header *h)
{
	struct extract *x = state;

	x->page_size = h->page_size;
	parse_range(x->v.o->extract, h->page_size, &x->addr, &x->len);	/* checked by main.c */
	x->pages = (x->addr + x->len - 1) / x->page_size - x->addr / x->page_size + 1;
	x->buf = calloc(1, x->len);
	x->have = calloc(1, x->pages);
	return x->buf && x->have ? 0 : -1;
}

static void extract_record(void *state, const struct crib_record *rec)
{
	struct extract *x = state;
	const struct crib_pages *p = &rec->u.pages;
	uint64_t run_end, from, to, first = x->addr / x->page_size;

	if (rec->type != CRIB_REC_PAGES || record_filtered_out(x->v.o, rec))
		return;
	run_end = p->addr + p->npages * x->page_size;
	from = x->addr > p->addr ? x->addr : p->addr;
	to = x->addr + x->len < run_end ? x->addr + x->len : run_end;
	if (from >= to)
		return;
	if (p->data.len)
		memcpy(x->buf + (from - x->addr), (const uint8_t *)p->data.data + (from - p->addr),
		       to - from);
	else
		memset(x->buf + (from - x->addr), 0, to - from);
	for (uint64_t pg = from / x->page_size; pg <= (to - 1) / x->page_size; pg++)
		x->have[pg - first] = 1;
}

static int write_all(int fd, const uint8_t *p, uint64_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len < (1u << 30) ? len : (1u << 30));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (uint64_t)n;
	}
	return 0;
}

/* The bytes to -o: a new file (never one that exists), or standard output. */
static int write_out(const struct extract *x)
{
	bool to_stdout = !strcmp(x->v.o->output, "-");
	int fd = STDOUT_FILENO;

	if (to_stdout && isatty(fd)) {
		fprintf(stderr, "crib-inspect: standard output is a terminal: give -o FILE, or "
			"pipe it on\n");
		return EXIT_USAGE;
	}
	if (!to_stdout) {
		fd = open(x->v.o->output, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0) {
			fprintf(stderr, "crib-inspect: %s: %s\n", x->v.o->output, strerror(errno));
			return EXIT_NEGATIVE;
		}
	}
	if (write_all(fd, x->buf, x->len) || (!to_stdout && close(fd))) {
		fprintf(stderr, "crib-inspect: writing %s: %s\n", x->v.o->output, strerror(errno));
		if (!to_stdout) {
			close(fd);
			unlink(x->v.o->output);
		}
		return EXIT_NEGATIVE;
	}
	return EXIT_OK;
}

static int extract_finish(void *state)
{
	struct extract *x = state;
	uint64_t first = x->addr / x->page_size;

	if (x->v.out->failed)
		return EXIT_OK;		/* nothing from a damaged snapshot: its error says why */
	for (uint64_t i = 0; i < x->pages; i++) {
		uint64_t at = (first + i) * x->page_size;

		if (x->have[i])
			continue;
		fprintf(stderr, "crib-inspect: pid %" PRIu64 ": nothing dumped at 0x%" PRIx64
			" (of 0x%" PRIx64 ":%" PRIu64 "): nothing written\n", x->v.o->pid,
			at > x->addr ? at : x->addr, x->addr, x->len);
		return EXIT_NEGATIVE;
	}
	return write_out(x);
}

static void extract_release(void *state)
{
	struct extract *x = state;

	free(x->buf);
	free(x->have);
}

const struct view_ops memory_extract_view = {
	.name = "memory-extract", .items = "none",
	.size = sizeof(struct extract),
	.start = extract_start, .record = extract_record, .finish = extract_finish,
	.release = extract_release,
};
