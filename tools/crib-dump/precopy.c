// SPDX-License-Identifier: GPL-2.0
/*
 * Memory copied while the processes run (crib-dump --pre-copy).
 *
 * Before the tree is frozen, each process's soft-dirty bits are cleared
 * (writing 4 to /proc/PID/clear_refs write-protects its pages) and every
 * populated anonymous page is copied into a page store of the dump's with
 * process_vm_readv().  Once the tree is frozen, pages.c keeps a page whose
 * soft-dirty bit is still clear from that copy, since nothing wrote it
 * in between, and reads the others again into the same store.  A VMA
 * made since is soft-dirty as a whole; a process that exec'd has new
 * VMAs; a pid that was reused is caught by its start time.  The store
 * then holds every page the snapshot carries, so the processes can be let
 * go before the pages are written out.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "crib-dump.h"
#include "page_scan.h"
#include "kabi.h"

#define USER_END	0x7ffffffff000ull	/* x86-64 TASK_SIZE with 4-level paging */
#define STORE_MIN	(4ull << 20)	/* the first mapping of a store */

struct pid_list {
	ARRAY(pid_t);
};

/* The start time of /proc/PID/stat: 0 if the process is gone. */
static unsigned long long process_start_time(pid_t pid)
{
	struct proc_stat st;

	return proc_stat_read(pid, &st) ? 0 : st.start_time;
}

static struct page_store *store_new(pid_t pid)
{
	struct page_store *s = calloc(1, sizeof(*s));

	if (s) {
		s->pid = pid;
		s->mem = MAP_FAILED;
	}
	return s;
}

void page_store_free(struct page_store *s)
{
	if (!s)
		return;
	if (s->mem != MAP_FAILED)
		munmap(s->mem, s->cap);
	array_free(&s->copied);
	array_free(&s->plan);
	free(s);
}

/* Room for @len more bytes; the contents may move (offsets stay). */
static int store_reserve(struct page_store *s, uint64_t len)
{
	size_t cap = s->cap ? s->cap : STORE_MIN;
	void *mem;

	while (cap - s->len < len)
		cap *= 2;
	if (cap == s->cap)
		return 0;
	if (s->mem == MAP_FAILED)
		mem = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else
		mem = mremap(s->mem, s->cap, cap, MREMAP_MAYMOVE);
	if (mem == MAP_FAILED)
		return -1;
	s->mem = mem;
	s->cap = cap;
	return 0;
}

/*
 * Copy up to @len bytes at @addr of the process into the store: returns
 * how many (a short copy stops where the memory cannot be read, such as a
 * VMA without PROT_READ), 0 if none, or -1 out of memory.  @offset is
 * where they went.
 */
ssize_t page_store_copy(struct page_store *s, int mem_fd, uint64_t addr, uint64_t len,
			uint64_t *offset)
{
	struct iovec local, remote;
	uint64_t done = 0;
	ssize_t got;

	if (store_reserve(s, len))
		return -1;
	*offset = s->len;
	while (done < len) {
		local = (struct iovec){ s->mem + s->len + done, len - done };
		remote = (struct iovec){ (void *)(uintptr_t)(addr + done), len - done };
		got = process_vm_readv(s->pid, &local, 1, &remote, 1, 0);
		if (got <= 0 && mem_fd >= 0)
			got = pread(mem_fd, local.iov_base, local.iov_len, (off_t)(addr + done));
		if (got <= 0)
			break;
		done += (uint64_t)got;
	}
	s->len += done;
	return (ssize_t)done;
}

/* Copy one run the scan found, page by page past what cannot be read. */
static int copy_run(struct page_store *s, uint64_t start, uint64_t end, uint64_t page_size)
{
	struct stored_run *r;
	uint64_t offset;
	ssize_t got;

	while (start < end) {
		got = page_store_copy(s, -1, start, end - start, &offset);
		if (got < 0)
			return -1;
		got -= got % (ssize_t)page_size;
		if (got > 0) {
			r = array_push(&s->copied);
			if (!r)
				return -1;
			*r = (struct stored_run){ .addr = start, .len = (uint64_t)got, .offset = offset };
			s->len = offset + (uint64_t)got;
			start += (uint64_t)got;
		} else {
			s->len = offset;
			start += page_size;	/* not readable now: read it once frozen */
		}
	}
	return 0;
}

/*
 * Clear the soft-dirty bits of process @s->pid, then copy its populated
 * anonymous pages.  A process that cannot be copied is left out (0): its
 * pages are all read once it is frozen.  -1: out of memory.
 */
static int copy_process(struct page_store *s, struct page_region *regions,
			uint64_t page_size)
{
	struct page_scan scan;
	char path[64];
	int fd = -1, ret = 0;
	long n, i;

	s->start_time = process_start_time(s->pid);
	snprintf(path, sizeof(path), "/proc/%d/clear_refs", (int)s->pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "4", 1) != 1)
		goto skip;
	close(fd);
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)s->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto skip;
	page_scan_init(&scan, fd, 0, USER_END, regions, PAGE_IS_FILE);
	while ((n = page_scan_next(&scan)) > 0)
		for (i = 0; i < n; i++)
			if (copy_run(s, regions[i].start, regions[i].end, page_size)) {
				ret = -1;
				goto out;
			}
	if (n == 0)
		goto out;
skip:
	s->start_time = 0;	/* nothing copied counts */
	s->copied.n = 0;
	s->len = 0;
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The children of every thread of @pid, pushed on @pids. */
static int push_children(pid_t pid, struct pid_list *pids)
{
	char path[96], buf[4096], *p, *end;
	struct dirent *d;
	pid_t *slot;
	long child;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0;	/* gone: the freeze will say */
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children", (int)pid, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(buf, sizeof(buf), f)) {
			for (p = buf; (child = strtol(p, &end, 10)) > 0; p = end) {
				slot = array_push(pids);
				if (!slot) {
					fclose(f);
					closedir(dir);
					return -1;
				}
				*slot = (pid_t)child;
			}
		}
		fclose(f);
	}
	closedir(dir);
	return 0;
}

/* The kB value of line @key ("Key:") of /proc/... file @path, or 0. */
static uint64_t proc_kb(const char *path, const char *key)
{
	char line[256];
	uint64_t kb = 0;
	size_t n = strlen(key);
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n)) {
			kb = strtoull(line + n, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

/*
 * The copy is as large as the tree's anonymous memory: refuse it when it
 * would take more than half of what the system has available, rather
 * than push the system into reclaim or the OOM killer.
 */
static int check_room(const struct pid_list *pids, struct tool_error *err)
{
	uint64_t anon = 0, avail = proc_kb("/proc/meminfo", "MemAvailable:");
	char path[64];
	size_t i;

	for (i = 0; i < pids->n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pids->items[i]);
		anon += proc_kb(path, "RssAnon:");
	}
	if (anon > avail / 2)
		return tool_fail(err, 0, "--pre-copy would hold %llu MiB of the processes' memory "
				 "and the system has %llu MiB available: dump without it",
				 (unsigned long long)(anon >> 10), (unsigned long long)(avail >> 10));
	return 0;
}

int precopy_tree(struct precopy *pc, pid_t root, struct tool_error *err)
{
	uint64_t page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	struct pid_list pids = { 0 };
	struct page_region *regions;
	struct page_store **slot;
	pid_t *first;
	size_t i;
	int ret = -1;

	regions = calloc(PAGE_SCAN_RUNS, sizeof(*regions));
	first = array_push(&pids);
	if (!regions || !first)
		goto oom;
	*first = root;
	/* The tree as it is now; a process forked later is read once frozen. */
	for (i = 0; i < pids.n; i++)
		if (push_children(pids.items[i], &pids))
			goto oom;
	if (check_room(&pids, err))
		goto out;
	for (i = 0; i < pids.n; i++) {
		slot = array_push(&pc->stores);
		if (!slot)
			goto oom;
		*slot = store_new(pids.items[i]);
		if (!*slot || copy_process(*slot, regions, page_size))
			goto oom;
		pc->bytes += (*slot)->len;
	}
	ret = 0;
	goto out;
oom:
	tool_fail(err, 0, "out of memory for the pre-copy");
out:
	array_free(&pids);
	free(regions);
	return ret;
}

struct page_store *precopy_take(struct precopy *pc, pid_t pid)
{
	struct page_store *s;
	size_t i;

	for (i = 0; i < pc->stores.n; i++) {
		s = pc->stores.items[i];
		if (!s || s->pid != pid)
			continue;
		pc->stores.items[i] = NULL;
		/* Another process with the same pid has none of these pages. */
		if (!s->start_time || s->start_time != process_start_time(pid)) {
			s->copied.n = 0;
			s->len = 0;
		}
		return s;
	}
	return store_new(pid);
}

void precopy_free(struct precopy *pc)
{
	size_t i;

	for (i = 0; i < pc->stores.n; i++)
		page_store_free(pc->stores.items[i]);
	array_free(&pc->stores);
}

const struct stored_run *page_store_find(const struct page_store *s, uint64_t addr,
					 uint64_t *next)
{
	size_t lo = 0, hi = s->copied.n, mid;
	const struct stored_run *r;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		r = &s->copied.items[mid];
		if (addr < r->addr)
			hi = mid;
		else if (addr >= r->addr + r->len)
			lo = mid + 1;
		else
			return r;
	}
	*next = lo < s->copied.n ? s->copied.items[lo].addr : UINT64_MAX;
	return NULL;
}
