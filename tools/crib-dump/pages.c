// SPDX-License-Identifier: GPL-2.0
/*
 * Memory contents: only populated pages, found with the PAGEMAP_SCAN
 * ioctl of /proc/PID/pagemap (one call returns whole runs of pages that
 * match) and read with process_vm_readv() in runs of at most one record
 * (1 MiB), each written out before the next is read, so the image is never
 * held in memory.  process_vm_readv() copies once, straight from the
 * process's pages; what it cannot read (a VMA mapped without PROT_READ)
 * is read through /proc/PID/mem, which can.  Pages that read as all
 * zeros are recorded as zero runs, without data.
 *
 * Which pages: anonymous memory that is present or swapped out, including
 * the private (copied-on-write) pages of private file mappings.  Pages
 * still shared with a file are not dumped: the file holds them.
 *
 * Shared anonymous memory is a shmem object: its pages are the object's,
 * whether this process's page tables map them or not (another process of
 * the tree may have written them, MADV_DONTNEED unmaps them, swap leaves
 * no trace in the page tables).  They are found in the object itself,
 * opened through /proc/PID/map_files, with SEEK_DATA and SEEK_HOLE, and
 * read through /proc/PID/mem like the others.
 *
 * With --pre-copy the pages are taken into the process's page store
 * (precopy.c) while it is frozen, the clean ones from the copy made while
 * it ran, and written out from there once everything else is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "crib-dump.h"
#include "page_scan.h"
#include "run_queue.h"
#include "kabi.h"

struct page_reader {
	struct dump_job *job;
	struct run_queue *queue;	/* pages_write(): runs read ahead of their writing */
	bool deferred;			/* ... of which only the stored data is left to write */
	int pagemap_fd;
	int mem_fd;
	uint64_t page_size;
	size_t max_run;		/* pages per record */
	struct page_region *regions;	/* of one PAGEMAP_SCAN */
	unsigned char *buf;	/* pages_write_kept(): contents of one run */
	uint64_t pages;		/* dumped so far */
	uint64_t zero_pages;	/* of which zero */
	uint64_t to_dump;	/* bytes, for the progress meter */
	uint64_t categories;	/* PAGE_IS_* of the run being handled */
	uint64_t clean;		/* --pre-copy: bytes taken from the copy */
	uint64_t group;		/* --pre-copy: of the run being handled */
	uint64_t group_end;	/* ... where it ends so far */
	uint64_t group_categories;	/* ... and what pages_write() sees of it */
};

/* What pages_write() asks the scan to tell apart. */
#define WRITE_CATEGORIES	(PAGE_IS_PRESENT | PAGE_IS_SWAPPED | PAGE_IS_FILE)

/* What is done with each run of wanted pages the scan finds. */
typedef int (*region_fn)(struct dump_job *job, struct page_reader *pr, uint64_t start,
			 uint64_t end);

static bool vma_needs_contents(const struct vma_info *v)
{
	switch (v->kind) {
	case CRIB_VMA_VDSO:	/* the restoring kernel provides its own */
	case CRIB_VMA_VVAR:
	case CRIB_VMA_VSYSCALL:
		return false;
	case CRIB_VMA_SHARED_ANON:
		return true;
	default:
		/* Shared file mappings: the contents are the file's. */
		return !(v->has_file && (v->vm_flags & VM_MAYSHARE));
	}
}

static bool page_is_zero(const unsigned char *page, uint64_t page_size)
{
	return page[0] == 0 && !memcmp(page, page + 1, page_size - 1);
}

/*
 * With pages stored (--fast), a run of zero pages shorter than this stays
 * in the record of the data around it: memory with scattered zero pages
 * would otherwise make records too small to be stored, and they would go
 * through zstd after all.
 */
#define STORED_ZERO_RUN_MIN	32

/* The end of the run of pages from @i that are all zero, or all not, as @zero says. */
static size_t run_end(const unsigned char *buf, size_t i, size_t n, uint64_t page_size,
		      bool zero)
{
	while (++i < n && page_is_zero(buf + i * page_size, page_size) == zero)
		;
	return i;
}

/*
 * Where the record that starts at page @i ends, and whether it is a run
 * of zero pages (no data).
 */
static size_t record_end(const unsigned char *buf, size_t i, size_t n, uint64_t page_size,
			 bool stored, bool *zero)
{
	size_t j, k;
	bool z;

	*zero = page_is_zero(buf + i * page_size, page_size);
	j = run_end(buf, i, n, page_size, *zero);
	if (!stored || (*zero && (j - i >= STORED_ZERO_RUN_MIN || (i == 0 && j == n))))
		return j;
	*zero = false;
	for (; j < n; j = k) {
		z = page_is_zero(buf + j * page_size, page_size);
		k = run_end(buf, j, n, page_size, z);
		if (z && k - j >= STORED_ZERO_RUN_MIN)
			break;
	}
	return j;
}

/*
 * @n pages at @addr, their contents in @buf, as records: runs of zero
 * pages (mapped but never written, or the zero page) go without data.
 */
static int write_read_pages(struct dump_job *job, struct page_reader *pr, uint64_t addr,
			    size_t n, const unsigned char *buf, struct tool_error *err)
{
	bool stored = crib_writer_stores_bulk(job->writer), zero;
	size_t i = 0, j;
	int ret;

	while (i < n) {
		j = record_end(buf, i, n, pr->page_size, stored, &zero);
		ret = crib_write_pages(job->writer, job->pid, addr + i * pr->page_size, j - i,
				       zero ? NULL : buf + i * pr->page_size);
		if (ret)
			return tool_fail(err, 0, "writing pages at %#llx: %s",
					 (unsigned long long)(addr + i * pr->page_size),
					 crib_writer_error(job->writer)->msg);
		pr->zero_pages += zero ? j - i : 0;
		i = j;
	}
	pr->pages += n;
	return 0;
}

/*
 * The fields of struct rseq the kernel writes on every return to user
 * space of a thread that moved (include/uapi/linux/rseq.h): cpu_id_start,
 * cpu_id, node_id, mm_cid.  They say where the thread last ran, the
 * kernel rewrites them once a restored thread registers its area again,
 * and two dumps of a process that holds still differ in them when it
 * woke on another CPU in between; so they are stored as zero.
 */
static const struct {
	unsigned int offset, len;
} rseq_kernel_fields[] = { { 0, 8 }, { 24, 8 } };

static void clear_rseq_fields(const struct dump_job *job, unsigned char *buf, uint64_t addr,
			      uint64_t len)
{
	uint64_t at, end;
	size_t i, f;

	for (i = 0; i < job->rseq_areas.n; i++) {
		for (f = 0; f < sizeof(rseq_kernel_fields) / sizeof(rseq_kernel_fields[0]); f++) {
			at = job->rseq_areas.items[i] + rseq_kernel_fields[f].offset;
			end = at + rseq_kernel_fields[f].len;
			if (at < addr)
				at = addr;
			if (end > addr + len)
				end = addr + len;
			if (at < end)
				memset(buf + (at - addr), 0, end - at);
		}
	}
}

/* Up to @len bytes at @addr of the process into @buf: at least one, or -1. */
static ssize_t read_memory(struct dump_job *job, struct page_reader *pr, void *buf, size_t len,
			   uint64_t addr)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t got = process_vm_readv(job->pid, &local, 1, &remote, 1, 0);

	return got > 0 ? got : pread(pr->mem_fd, buf, len, (off_t)addr);
}

/*
 * A run read ahead, written out by the run queue's thread while the next
 * is read: the records, then the meter.  Only that thread writes while
 * pages_write() runs.
 */
static int write_queued(void *ctx, const struct queued_run *run, struct tool_error *err)
{
	struct page_reader *pr = ctx;

	if (write_read_pages(pr->job, pr, run->addr, run->n, run->buf, err))
		return -1;
	progress_add(pr->job->progress, run->n * pr->page_size);
	return 0;
}

/*
 * Stored pages into a file: the run's records are written as it is read,
 * and the thread writes only their data, each where the snapshot writer
 * left a gap for it.  Hashing then stays with the reading, and the
 * thread's copy into the file, the dearest step, is all it does.
 */
static int queue_gaps(struct dump_job *job, struct page_reader *pr, uint64_t addr)
{
	struct crib_gap gaps[RUN_PIECES_MAX + 1];
	size_t n, i;

	n = crib_writer_take_gaps(job->writer, gaps, RUN_PIECES_MAX + 1);
	for (i = 0; i < n; i++)
		if (run_queue_add_piece(pr->queue, gaps[i].data, gaps[i].len, gaps[i].offset))
			return tool_fail(&job->err, 0, "writing pages at %#llx: the data of a "
					 "stored_pages record was not taken",
					 (unsigned long long)addr);
	return 0;
}

static int write_pieces(void *ctx, const struct queued_run *run, struct tool_error *err)
{
	struct page_reader *pr = ctx;
	const struct run_piece *p;
	int i;

	for (i = 0; i < run->n_pieces; i++) {
		p = &run->pieces[i];
		if (crib_writer_write_at(pr->job->writer, p->data, p->len, p->offset))
			return tool_fail(err, errno, "writing the pages at %#llx",
					 (unsigned long long)(run->addr +
							      ((const unsigned char *)p->data -
							       run->buf)));
	}
	return 0;
}

static int write_run(struct dump_job *job, struct page_reader *pr, uint64_t addr, size_t n)
{
	size_t len = n * pr->page_size, done = 0;
	unsigned char *buf = run_queue_buf(pr->queue);
	ssize_t got;

	if (!buf)
		return -1;	/* the writer failed: run_queue_close() says why */
	while (done < len) {
		got = read_memory(job, pr, buf + done, len - done, addr + done);
		if (got <= 0)
			return tool_fail(&job->err, 0, "cannot read memory at %#llx: %s",
					 (unsigned long long)(addr + done),
					 got ? strerror(errno) : "end of file");
		done += got;
	}
	clear_rseq_fields(job, buf, addr, len);
	if (pr->deferred) {
		if (write_read_pages(job, pr, addr, n, buf, &job->err) ||
		    queue_gaps(job, pr, addr))
			return -1;
		progress_add(job->progress, len);
	}
	return run_queue_push(pr->queue, addr, n);
}

/* A run of wanted pages, in records of at most max_run pages. */
static int write_region(struct dump_job *job, struct page_reader *pr, uint64_t start,
			uint64_t end)
{
	uint64_t addr, n;

	for (addr = start; addr < end; addr += n * pr->page_size) {
		n = (end - addr) / pr->page_size;
		if (n > pr->max_run)
			n = pr->max_run;
		if (write_run(job, pr, addr, (size_t)n))
			return -1;
	}
	return 0;
}

/* --pre-copy: [@addr, +@len) taken into the plan, contents at @offset. */
static int keep_run(struct dump_job *job, struct page_reader *pr, uint64_t addr, uint64_t len,
		    uint64_t offset)
{
	struct page_store *s = job->kept;
	struct stored_run *last = s->plan.n ? &s->plan.items[s->plan.n - 1] : NULL;

	if (last && last->group == pr->group && last->addr + last->len == addr &&
	    (offset == STORED_ZERO ? last->offset == STORED_ZERO :
	     last->offset != STORED_ZERO && last->offset + last->len == offset)) {
		last->len += len;
		return 0;
	}
	last = array_push(&s->plan);
	if (!last)
		return tool_fail(&job->err, 0, "out of memory");
	*last = (struct stored_run){ addr, len, offset, pr->group };
	return 0;
}

/* --pre-copy: [@addr, @end) read now into the store, and planned. */
static int keep_read(struct dump_job *job, struct page_reader *pr, uint64_t addr,
		     uint64_t end)
{
	uint64_t offset;
	ssize_t got;

	got = page_store_copy(job->kept, pr->mem_fd, addr, end - addr, &offset);
	if (got < 0)
		return tool_fail(&job->err, 0, "out of memory for the pages at %#llx",
				 (unsigned long long)addr);
	if ((uint64_t)got < end - addr)
		return tool_fail(&job->err, errno, "cannot read memory at %#llx",
				 (unsigned long long)(addr + (uint64_t)got));
	clear_rseq_fields(job, job->kept->mem + offset, addr, end - addr);
	return keep_run(job, pr, addr, end - addr, offset);
}

/*
 * --pre-copy: a run of wanted pages into the plan.  The zero page needs
 * no contents; a page not written since the pre-copy (soft-dirty clear)
 * is in the copy already; the others are read now.
 */
static int keep_region(struct dump_job *job, struct page_reader *pr, uint64_t start,
		       uint64_t end)
{
	const struct stored_run *r = NULL;
	uint64_t at, next, offset;

	/*
	 * The scan tells apart more than pages_write() asks of it; the runs
	 * it would write as one region stay one group, so that the records
	 * come out the same (pages_write_kept()).
	 */
	if (start != pr->group_end ||
	    (pr->categories & WRITE_CATEGORIES) != pr->group_categories) {
		pr->group++;
		pr->group_categories = pr->categories & WRITE_CATEGORIES;
	}
	pr->group_end = end;
	if (pr->categories & PAGE_IS_PFNZERO)
		return keep_run(job, pr, start, end - start, STORED_ZERO);
	for (at = start; at < end; at = next) {
		next = end;
		if (!(pr->categories & PAGE_IS_SOFT_DIRTY))
			r = page_store_find(job->kept, at, &next);
		if (!r) {
			if (next > end)
				next = end;
			if (keep_read(job, pr, at, next))
				return -1;
			continue;
		}
		next = r->addr + r->len < end ? r->addr + r->len : end;
		offset = r->offset + (at - r->addr);
		clear_rseq_fields(job, job->kept->mem + offset, at, next - at);
		if (keep_run(job, pr, at, next - at, offset))
			return -1;
		pr->clean += next - at;
		r = NULL;
	}
	return 0;
}

static int count_region(struct dump_job *job, struct page_reader *pr, uint64_t start,
			uint64_t end)
{
	(void)job;
	pr->to_dump += end - start;
	return 0;
}

/*
 * The populated pages of one VMA, each run handed to @fn.  A full vector
 * of runs ends where the kernel's walk stopped, so a group of runs ends
 * there too.
 */
static int scan_vma(struct dump_job *job, struct page_reader *pr, const struct vma_info *v,
		    region_fn fn)
{
	uint64_t mask = WRITE_CATEGORIES;
	struct page_scan scan;
	long n, i;

	if (job->kept)
		mask |= PAGE_IS_PFNZERO | PAGE_IS_SOFT_DIRTY;
	page_scan_init(&scan, pr->pagemap_fd, v->start, v->end, pr->regions, mask);
	pr->group_end = 0;	/* a new VMA, a new group */
	while ((n = page_scan_next(&scan)) > 0) {
		for (i = 0; i < n; i++) {
			pr->categories = pr->regions[i].categories;
			if (fn(job, pr, pr->regions[i].start, pr->regions[i].end))
				return -1;
		}
		pr->group_end = 0;	/* pages_write() starts anew after a full vector */
	}
	if (n < 0)
		return tool_fail(&job->err, errno, "cannot scan the pages at %#llx",
				 (unsigned long long)scan.arg.start);
	return 0;
}

/*
 * The pages a shmem object holds behind @part of VMA @v: the object's data
 * runs (SEEK_DATA, SEEK_HOLE) in the offsets @part maps, each handed to
 * @fn as addresses.
 */
static int scan_object(struct dump_job *job, struct page_reader *pr, const struct vma_info *v,
		       const struct addr_range *part, region_fn fn)
{
	uint64_t base = v->start - v->offset;	/* address = base + offset */
	off_t at = (off_t)(part->start - base), end = (off_t)(part->end - base), data, hole;
	char path[96];
	int fd, ret = -1;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)job->pid,
		 (unsigned long long)v->start, (unsigned long long)v->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tool_fail(&job->err, errno, "cannot open the shared memory at %#llx "
				 "(%s)", (unsigned long long)v->start, path);
	while (at < end) {
		data = lseek(fd, at, SEEK_DATA);
		if (data < 0 && errno == ENXIO)
			break;			/* nothing more in the object */
		hole = data < 0 ? -1 : lseek(fd, data, SEEK_HOLE);
		if (hole < 0) {
			tool_fail(&job->err, errno, "cannot find the pages of the shared memory "
				  "at %#llx", (unsigned long long)v->start);
			goto out;
		}
		if (data >= end)
			break;
		pr->categories = PAGE_IS_SOFT_DIRTY;	/* no copy to trust: read it */
		pr->group_end = 0;
		data &= ~(off_t)(pr->page_size - 1);
		hole = (hole + (off_t)pr->page_size - 1) & ~(off_t)(pr->page_size - 1);
		if (hole > end)
			hole = end;
		if (fn(job, pr, base + (uint64_t)data, base + (uint64_t)hole))
			goto out;
		at = hole;
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

static int open_proc(struct dump_job *job, const char *what)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)job->pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		tool_fail(&job->err, errno, "cannot open %s", path);
	return fd;
}

/*
 * Every VMA whose memory a snapshot holds, scanned for its populated
 * pages: the parts of it whose pages this process's records carry (for
 * shared memory, those an earlier VMA of the tree did not).
 */
static int scan_all(struct dump_job *job, struct page_reader *pr, region_fn fn)
{
	struct addr_range ranges[64];
	struct vma_info part;
	size_t i, n, k;

	for (i = 0; i < mm_vma_count(job); i++) {
		if (!vma_needs_contents(mm_vma(job, i)))
			continue;
		n = mm_vma_own_ranges(job, i, ranges, sizeof(ranges) / sizeof(ranges[0]));
		if (n > sizeof(ranges) / sizeof(ranges[0]))
			return tool_fail(&job->err, 0, "VMA %#llx-%#llx: its shared memory is "
					 "carried in too many pieces",
					 (unsigned long long)mm_vma(job, i)->start,
					 (unsigned long long)mm_vma(job, i)->end);
		for (k = 0; k < n; k++) {
			if (mm_vma(job, i)->kind == CRIB_VMA_SHARED_ANON) {
				if (scan_object(job, pr, mm_vma(job, i), &ranges[k], fn))
					return -1;
				continue;
			}
			part = *mm_vma(job, i);
			part.start = ranges[k].start;
			part.end = ranges[k].end;
			if (scan_vma(job, pr, &part, fn))
				return -1;
		}
	}
	return 0;
}

static int reader_open(struct dump_job *job, struct page_reader *pr)
{
	pr->job = job;
	pr->page_size = crib_writer_page_size(job->writer);
	pr->max_run = CRIB_CHUNK_MAX / pr->page_size;
	pr->regions = calloc(PAGE_SCAN_RUNS, sizeof(*pr->regions));
	if (!pr->regions)
		return tool_fail(&job->err, 0, "out of memory");
	pr->pagemap_fd = open_proc(job, "pagemap");
	if (pr->pagemap_fd < 0)
		return -1;
	pr->mem_fd = open_proc(job, "mem");
	return pr->mem_fd < 0 ? -1 : 0;
}

static void reader_close(struct page_reader *pr)
{
	if (pr->mem_fd >= 0)
		close(pr->mem_fd);
	if (pr->pagemap_fd >= 0)
		close(pr->pagemap_fd);
	free(pr->regions);
}

int pages_write(struct dump_job *job)
{
	struct page_reader pr = { .pagemap_fd = -1, .mem_fd = -1 };
	int ret = -1;

	if (reader_open(job, &pr))
		goto out;
	/* How much there is to dump, for a meter someone watches: a scan is cheap. */
	if (job->progress->on && scan_all(job, &pr, count_region))
		goto out;
	progress_process(job->progress, job->index, pr.to_dump);
	pr.deferred = !crib_writer_leave_gaps(job->writer, true);
	pr.queue = run_queue_open(CRIB_CHUNK_MAX, pr.deferred ? write_pieces : write_queued, &pr,
				  true);
	if (!pr.queue) {
		crib_writer_leave_gaps(job->writer, false);
		tool_fail(&job->err, 0, "out of memory");
		goto out;
	}
	ret = scan_all(job, &pr, write_region);
	crib_writer_leave_gaps(job->writer, false);
	/* the runs read are written, or the writer's error is the one to tell */
	if (run_queue_close(pr.queue, tool_failed(&job->err) ? NULL : &job->err))
		ret = -1;
	if (ret)
		goto out;
	dump_verbose(job, "%llu pages, %llu of them zero\n", (unsigned long long)pr.pages,
		     (unsigned long long)pr.zero_pages);
out:
	reader_close(&pr);
	return ret;
}

int pages_keep(struct dump_job *job)
{
	struct page_reader pr = { .pagemap_fd = -1, .mem_fd = -1 };
	uint64_t planned = 0;
	size_t i;
	int ret = -1;

	if (reader_open(job, &pr))
		goto out;
	if (scan_all(job, &pr, keep_region))
		goto out;
	for (i = 0; i < job->kept->plan.n; i++)
		planned += job->kept->plan.items[i].len;
	dump_verbose(job, "%llu KiB of memory kept, %llu KiB of it from the pre-copy\n",
		     (unsigned long long)(planned >> 10), (unsigned long long)(pr.clean >> 10));
	ret = 0;
out:
	reader_close(&pr);
	return ret;
}

/*
 * The contents of [@addr, +@n pages) of group @g, which starts at plan
 * run *@i: straight from the store when one run holds them all, else
 * gathered into pr->buf.  Moves *@i past the runs that end inside.
 */
static const unsigned char *kept_chunk(const struct page_store *s, struct page_reader *pr,
				       size_t *i, uint64_t addr, uint64_t n)
{
	const struct stored_run *r = &s->plan.items[*i];
	uint64_t len = n * pr->page_size, at, part;

	if (r->offset != STORED_ZERO && addr + len <= r->addr + r->len) {
		if (addr + len == r->addr + r->len)
			(*i)++;
		return s->mem + r->offset + (addr - r->addr);
	}
	for (at = 0; at < len; at += part) {
		r = &s->plan.items[*i];
		part = r->addr + r->len - (addr + at);
		if (part > len - at)
			part = len - at;
		if (r->offset == STORED_ZERO)
			memset(pr->buf + at, 0, part);
		else
			memcpy(pr->buf + at, s->mem + r->offset + (addr + at - r->addr), part);
		if (addr + at + part == r->addr + r->len)
			(*i)++;
	}
	return pr->buf;
}

/*
 * The kept pages as records, group by group, cut where pages_write()
 * cuts them: every max_run pages from the start of a group, and between
 * zero and other pages.
 */
int pages_write_kept(struct dump_job *job)
{
	struct page_reader pr = { .pagemap_fd = -1, .mem_fd = -1 };
	const struct page_store *s = job->kept;
	uint64_t to_dump = 0, start, end, addr, n;
	const unsigned char *data;
	size_t i, j;
	int ret = -1;

	pr.page_size = crib_writer_page_size(job->writer);
	pr.max_run = CRIB_CHUNK_MAX / pr.page_size;
	pr.buf = malloc(CRIB_CHUNK_MAX);
	if (!pr.buf) {
		tool_fail(&job->err, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < s->plan.n; i++)
		to_dump += s->plan.items[i].len;
	progress_process(job->progress, job->index, to_dump);
	for (i = 0; i < s->plan.n;) {
		start = s->plan.items[i].addr;
		for (j = i; j + 1 < s->plan.n && s->plan.items[j + 1].group == s->plan.items[i].group;)
			j++;
		end = s->plan.items[j].addr + s->plan.items[j].len;
		for (addr = start; addr < end; addr += n * pr.page_size) {
			n = (end - addr) / pr.page_size;
			if (n > pr.max_run)
				n = pr.max_run;
			data = kept_chunk(s, &pr, &i, addr, n);
			if (write_read_pages(job, &pr, addr, (size_t)n, data, &job->err))
				goto out;
			progress_add(job->progress, n * pr.page_size);
		}
	}
	dump_verbose(job, "%llu pages, %llu of them zero\n", (unsigned long long)pr.pages,
		     (unsigned long long)pr.zero_pages);
	ret = 0;
out:
	free(pr.buf);
	return ret;
}
