// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writes crafted snapshots into DIR, each well-formed but built to cost a
 * reader: huge counts of vmas, page runs, processes and threads, parents
 * that form a cycle, a deep tree, terminal escapes in every name, pages
 * after every process (the --pre-copy layout), and a record stream that
 * inflates far beyond its file, also with the header of this machine
 * (bomb-here.crib), so that crib-restore reads on past it; and a living
 * process without working and root directories (no-cwd-here.crib); and
 * two small ones for the views: a string split across two page runs
 * (memory.crib), pids that sort apart as text and as numbers (order-*).
 * test-hostile.sh gives them to crib-inspect and crib-restore; they are
 * generated at test time, as they would bloat the tree (the small ones
 * are also in fuzz/corpus/reader as hostile-*.crib).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "membuf.h"
#include "sample.h"

#define PAGE SAMPLE_PAGE_SIZE
#define ESC "\033]0;owned\007\033[2J"

typedef int (*fill_fn)(struct crib_writer *w);

static int write_proc(struct crib_writer *w, uint64_t pid, uint64_t ppid, const char *comm)
{
	struct crib_process p = {
		.pid = pid, .tgid = pid, .ppid = ppid, .pgid = pid, .sid = pid, .comm = comm,
		.cwd = "/", .root = "/",
	};

	return crib_write_process(w, &p);
}

static int write_thread(struct crib_writer *w, uint64_t pid, uint64_t tid, const char *comm)
{
	struct crib_thread t = { .pid = pid, .tid = tid, .comm = comm };

	return crib_write_thread(w, &t);
}

static int write_vma(struct crib_writer *w, uint64_t pid, uint64_t start, uint64_t pages,
		     const char *path)
{
	struct crib_vma v = {
		.pid = pid, .start = start, .end = start + pages * PAGE, .prot = 3,
		.kind = path ? CRIB_VMA_FILE : CRIB_VMA_ANON, .path = path,
	};

	return crib_write_vma(w, &v);
}

/* 65,536 vmas of 4 pages and 200,000 runs of one zero page among them. */
static int fill_many_vmas(struct crib_writer *w)
{
	enum { VMAS = 65536, RUNS = 200000 };
	uint64_t base = 0x10000000;

	if (write_proc(w, 100, 1, "many-vmas") || write_thread(w, 100, 100, "many-vmas"))
		return -1;
	for (uint64_t i = 0; i < VMAS; i++)
		if (write_vma(w, 100, base + i * 8 * PAGE, 4, NULL))
			return -1;
	for (uint64_t i = 0; i < RUNS; i++)
		if (crib_write_pages(w, 100, base + (i % VMAS) * 8 * PAGE + (i / VMAS) * PAGE, 1,
				     NULL))
			return -1;
	return 0;
}

/* 65,536 processes, one the parent of all others, and 200,000 threads. */
static int fill_many_procs(struct crib_writer *w)
{
	enum { PROCS = 65536, THREADS = 200000 };

	for (uint64_t i = 0; i < PROCS; i++)
		if (write_proc(w, 100 + i, i ? 100 : 1, "many"))
			return -1;
	for (uint64_t i = 0; i < THREADS; i++)
		if (write_thread(w, 100 + i % PROCS, 1000000 + i, "t"))
			return -1;
	return 0;
}

/*
 * A chain of 100 processes (deeper than any cut a printer might make) and
 * three whose parents form a cycle, one with a child of its own.
 */
static int fill_tree(struct crib_writer *w)
{
	for (uint64_t i = 0; i < 100; i++)
		if (write_proc(w, 100 + i, i ? 99 + i : 1, "chain"))
			return -1;
	if (write_proc(w, 500, 502, "loop-a") || write_proc(w, 501, 500, "loop-b") ||
	    write_proc(w, 502, 501, "loop-c") || write_proc(w, 503, 501, "loop-kid"))
		return -1;
	return 0;
}

/* Escapes in a process name, a thread name, a mapped path and a note. */
static int fill_escapes(struct crib_writer *w)
{
	if (write_proc(w, 100, 1, "x" ESC) || write_thread(w, 100, 100, "t" ESC) ||
	    write_vma(w, 100, 0x400000, 1, "/tmp/" ESC) || crib_write_note(w, "n" ESC, "v" ESC))
		return -1;
	return 0;
}

/*
 * As crib-dump --pre-copy lays a snapshot out: every process with its
 * vmas first, their pages after all of them.
 */
static int fill_precopy(struct crib_writer *w)
{
	static uint8_t data[3 * PAGE];

	memset(data, 0x5a, sizeof(data));
	if (write_proc(w, 100, 1, "pre") || write_thread(w, 100, 100, "pre") ||
	    write_vma(w, 100, 0x400000, 8, NULL) || write_proc(w, 101, 100, "copy") ||
	    write_thread(w, 101, 101, "copy") || write_vma(w, 101, 0x800000, 8, NULL) ||
	    crib_write_pages(w, 100, 0x400000, 3, data) ||
	    crib_write_pages(w, 101, 0x800000, 2, data) ||
	    crib_write_pages(w, 101, 0x802000, 4, NULL))
		return -1;
	return 0;
}

/*
 * For --memory: "split-needle" across two runs that meet, a zero run after
 * them, and the string again in a child at another address.
 */
static int fill_memory(struct crib_writer *w)
{
	static uint8_t a[PAGE], b[PAGE];

	memcpy(a + PAGE - 8, "split-ne", 8);
	memcpy(b, "edle and more", 13);
	if (write_proc(w, 100, 1, "mem") || write_thread(w, 100, 100, "mem") ||
	    write_vma(w, 100, 0x10000, 8, NULL) || crib_write_pages(w, 100, 0x10000, 1, a) ||
	    crib_write_pages(w, 100, 0x11000, 1, b) || crib_write_pages(w, 100, 0x12000, 1, NULL) ||
	    write_proc(w, 101, 100, "mem") || write_thread(w, 101, 101, "mem") ||
	    write_vma(w, 101, 0x40000, 1, NULL) || crib_write_pages(w, 101, 0x40000, 1, a))
		return -1;
	return 0;
}

/* For --diff: processes whose pids sort one way as text and another as numbers. */
static int fill_order_a(struct crib_writer *w)
{
	return write_proc(w, 9, 1, "a") || write_proc(w, 10, 1, "a") ||
	       write_proc(w, 100, 1, "a") ? -1 : 0;
}

static int fill_order_b(struct crib_writer *w)
{
	(void)w;
	return 0;
}

/* A living process whose record lacks cwd and root, which only zombies may. */
static int fill_no_cwd(struct crib_writer *w)
{
	struct crib_process p = { .pid = 100, .tgid = 100, .ppid = 1, .comm = "homeless" };

	return crib_write_process(w, &p) || write_thread(w, 100, 100, "homeless") ? -1 : 0;
}

/* 256 MiB of one repeated byte in pages records: a file of a few KiB. */
static int fill_bomb(struct crib_writer *w)
{
	enum { CHUNK = 1 << 20, CHUNKS = 256 };
	uint8_t *data = malloc(CHUNK);
	int ret = 0;

	if (!data)
		return -1;
	memset(data, 0xa5, CHUNK);
	ret = write_proc(w, 100, 1, "bomb") || write_vma(w, 100, 0x10000000, CHUNKS * CHUNK / PAGE,
							NULL);
	for (uint64_t i = 0; !ret && i < CHUNKS; i++)
		ret = crib_write_pages(w, 100, 0x10000000 + i * CHUNK, CHUNK / PAGE, data);
	free(data);
	return ret ? -1 : 0;
}

/*
 * 4,096 records of 64 KiB each (the largest a diff would keep whole),
 * none of them memory: ghost contents of one repeated byte.
 */
static int fill_diff_bomb(struct crib_writer *w)
{
	enum { CHUNK = 60 << 10, CHUNKS = 4096 };
	struct crib_ghost g = { .ghost_id = 1, .kind = CRIB_GHOST_UNLINKED, .path = "/tmp/g",
				.size = (uint64_t)CHUNK * CHUNKS, .mode = 0100600 };
	uint8_t *data = malloc(CHUNK);
	int ret;

	if (!data)
		return -1;
	memset(data, 0x5a, CHUNK);
	ret = crib_write_ghost(w, &g);
	for (uint64_t i = 0; !ret && i < CHUNKS; i++)
		ret = crib_write_ghost_data(w, 1, i * CHUNK, data, CHUNK);
	free(data);
	return ret ? -1 : 0;
}

static int write_one(const char *dir, const char *name, fill_fn fill, const char *hostname,
		     const char *tool_name, const struct utsname *here)
{
	struct crib_header hdr;
	struct crib_writer *w;
	char path[4096];
	int fd, ret = -1;

	sample_header(&hdr);
	hdr.hostname = hostname;
	hdr.tool_name = tool_name;
	hdr.root_pid = 0;
	if (here) {
		hdr.kernel_release = here->release;
		hdr.arch = here->machine;
		hdr.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	w = crib_writer_open(fd, &hdr, WRITER_OPTS(.level = 3), NULL);
	if (w && !fill(w) && !crib_writer_close(w, NULL))
		ret = 0;
	else if (w)
		crib_writer_abort(w);
	if (close(fd))
		ret = -1;
	if (ret)
		fprintf(stderr, "gen-hostile: cannot write %s\n", path);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		fill_fn fill;
	} files[] = {
		{ "many-vmas.crib", fill_many_vmas },
		{ "many-procs.crib", fill_many_procs },
		{ "tree.crib", fill_tree },
		{ "precopy.crib", fill_precopy },
		{ "bomb.crib", fill_bomb },
		{ "diff-bomb.crib", fill_diff_bomb },
		{ "memory.crib", fill_memory },
		{ "order-a.crib", fill_order_a },
		{ "order-b.crib", fill_order_b },
	};
	struct utsname here;
	int ret = 0;

	if (argc != 2 || uname(&here)) {
		fprintf(stderr, "usage: gen-hostile DIR\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		ret |= write_one(argv[1], files[i].name, files[i].fill, "sample-host", "crib-test",
				 NULL);
	ret |= write_one(argv[1], "escapes.crib", fill_escapes, "h" ESC, "crib" ESC, NULL);
	ret |= write_one(argv[1], "bomb-here.crib", fill_bomb, "sample-host", "crib-test", &here);
	ret |= write_one(argv[1], "no-cwd-here.crib", fill_no_cwd, "sample-host", "crib-test",
			 &here);
	return ret ? 1 : 0;
}
