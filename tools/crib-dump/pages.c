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
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "crib-dump.h"
#include "kabi.h"

#define SCAN_REGIONS	512	/* page runs returned by one PAGEMAP_SCAN */

struct page_reader {
	int pagemap_fd;
	int mem_fd;
	uint64_t page_size;
	size_t max_run;		/* pages per record */
	struct page_region *regions;	/* of one PAGEMAP_SCAN */
	unsigned char *buf;	/* contents of one run */
	uint64_t pages;		/* dumped so far */
	uint64_t zero_pages;	/* of which zero */
	uint64_t to_dump;	/* bytes, for the progress meter */
};

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
 * The pages read into pr->buf, as records: runs of zero pages (mapped but
 * never written, or the zero page) go without data.
 */
static int write_read_pages(struct dump_job *job, struct page_reader *pr, uint64_t addr,
			    size_t n)
{
	size_t i = 0, j;
	bool zero;
	int ret;

	while (i < n) {
		zero = page_is_zero(pr->buf + i * pr->page_size, pr->page_size);
		for (j = i + 1; j < n; j++)
			if (page_is_zero(pr->buf + j * pr->page_size, pr->page_size) != zero)
				break;
		ret = crib_write_pages(job->writer, job->pid, addr + i * pr->page_size, j - i,
				       zero ? NULL : pr->buf + i * pr->page_size);
		if (ret)
			return tool_fail(&job->err, 0, "writing pages at %#llx: %s",
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

static int write_run(struct dump_job *job, struct page_reader *pr, uint64_t addr, size_t n)
{
	size_t len = n * pr->page_size, done = 0;
	ssize_t got;

	while (done < len) {
		got = read_memory(job, pr, pr->buf + done, len - done, addr + done);
		if (got <= 0)
			return tool_fail(&job->err, 0, "cannot read memory at %#llx: %s",
					 (unsigned long long)(addr + done),
					 got ? strerror(errno) : "end of file");
		done += got;
	}
	clear_rseq_fields(job, pr->buf, addr, len);
	if (write_read_pages(job, pr, addr, n))
		return -1;
	progress_add(job->progress, len);
	return 0;
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

static int count_region(struct dump_job *job, struct page_reader *pr, uint64_t start,
			uint64_t end)
{
	(void)job;
	pr->to_dump += end - start;
	return 0;
}

/*
 * The populated pages of one VMA: present or swapped, and not file pages.  The kernel returns them as runs, each handed to @fn; a
 * full vector means the scan stopped early, at walk_end.
 */
static int scan_vma(struct dump_job *job, struct page_reader *pr, const struct vma_info *v,
		    region_fn fn)
{
	struct pm_scan_arg arg = {
		.size = sizeof(arg),
		.start = v->start,
		.end = v->end,
		.vec = (uint64_t)(uintptr_t)pr->regions,
		.vec_len = SCAN_REGIONS,
		.category_inverted = PAGE_IS_FILE,
		.category_mask = PAGE_IS_FILE,
		.category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
		.return_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED | PAGE_IS_FILE,
	};
	long n, i;

	while (arg.start < v->end) {
		n = ioctl(pr->pagemap_fd, PAGEMAP_SCAN, &arg);
		if (n < 0)
			return tool_fail(&job->err, errno, "cannot scan the pages at %#llx",
					 (unsigned long long)arg.start);
		for (i = 0; i < n; i++)
			if (fn(job, pr, pr->regions[i].start, pr->regions[i].end))
				return -1;
		if (arg.walk_end <= arg.start)
			return tool_fail(&job->err, 0, "the page scan at %#llx made no progress",
					 (unsigned long long)arg.start);
		arg.start = arg.walk_end;
	}
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

int pages_write(struct dump_job *job)
{
	struct page_reader pr = { .pagemap_fd = -1, .mem_fd = -1 };
	int ret = -1;

	pr.page_size = crib_writer_page_size(job->writer);
	pr.max_run = CRIB_CHUNK_MAX / pr.page_size;
	pr.regions = calloc(SCAN_REGIONS, sizeof(*pr.regions));
	pr.buf = malloc(CRIB_CHUNK_MAX);
	if (!pr.regions || !pr.buf) {
		tool_fail(&job->err, 0, "out of memory");
		goto out;
	}
	pr.pagemap_fd = open_proc(job, "pagemap");
	if (pr.pagemap_fd < 0)
		goto out;
	pr.mem_fd = open_proc(job, "mem");
	if (pr.mem_fd < 0)
		goto out;
	/* How much there is to dump, for a meter someone watches: a scan is cheap. */
	if (job->progress->on && scan_all(job, &pr, count_region))
		goto out;
	progress_process(job->progress, job->index, pr.to_dump);
	if (scan_all(job, &pr, write_region))
		goto out;
	dump_verbose(job, "%llu pages, %llu of them zero\n", (unsigned long long)pr.pages,
		     (unsigned long long)pr.zero_pages);
	ret = 0;
out:
	if (pr.mem_fd >= 0)
		close(pr.mem_fd);
	if (pr.pagemap_fd >= 0)
		close(pr.pagemap_fd);
	free(pr.buf);
	free(pr.regions);
	return ret;
}
