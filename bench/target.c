// SPDX-License-Identifier: GPL-2.0
/*
 * bench-target: the process the dump benchmark reads and checkpoints.
 *
 *   bench-target [--vmas N] [--fds N] [--mem MIB] [--heartbeat FILE] READYFILE
 *
 * --mem    MIB MiB of anonymous memory, every page touched and filled
 *          with the mix described in fill.h
 * --heap-mix
 *          the memory filled with fill.h's second, heap-like mix
 * --fds    exactly N open descriptors (0, 1 and 2 included): regular
 *          files with a position, /dev/null, directories and pipe ends,
 *          in turn; RLIMIT_NOFILE is raised to fit
 * --touch  on each SIGUSR1, write every page of the --mem memory once and
 *          write how long that took (nanoseconds) to "touched" in its
 *          directory: the cost a restore leaves to the process's first
 *          writes (copy-on-write faults)
 * --heartbeat
 *          a thread that stamps the monotonic clock every 100 us and
 *          keeps the longest gap between two stamps in FILE (struct
 *          heartbeat, mapped shared), which the benchmark zeroes before a
 *          dump and reads after it: how long the process was stopped, as
 *          the process itself saw it
 * --vmas   exactly N VMAs (as /proc/self/maps counts them, [vsyscall]
 *          aside): one-page anonymous mappings alternating between
 *          read-only and read-execute, so that none merge, are added
 *          last to what the program already has
 *
 * Once set up it writes "vmas V fds F mem BYTES" to READYFILE and sleeps
 * until killed.  Its directory (that of READYFILE) holds its files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "fill.h"

#define PAGE 4096ul

struct target_options {
	long vmas;		/* 0: as many as the program has */
	long fds;		/* 0: as many as it has */
	long mem_mib;
	const char *ready;
	const char *heartbeat;	/* NULL: no heartbeat thread */
	bool touch;		/* write every page on SIGUSR1 */
	bool heap_mix;		/* fill_pages_heap() rather than fill_pages() */
	char dir[PATH_MAX];	/* where READYFILE is: files for --fds */
};

static int fail(const char *what)
{
	fprintf(stderr, "bench-target: %s: %s\n", what, strerror(errno));
	return -1;
}

static long count_entries(const char *dir_path)
{
	struct dirent *d;
	long n = 0;
	DIR *dir;

	dir = opendir(dir_path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n - 1;	/* the descriptor opendir() itself holds */
}

/* VMAs as /proc/self/maps lists them, without the [vsyscall] gate page. */
static long count_vmas(void)
{
	char line[512];
	long n = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strchr(line, '\n') && !strstr(line, "[vsyscall]"))
			n++;
	fclose(f);
	return n;
}

static int add_memory(long mib, bool heap_mix, unsigned char **out)
{
	size_t len = (size_t)mib << 20;
	unsigned char *mem;

	if (!mib)
		return 0;
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return fail("mmap of the memory");
	if (heap_mix)
		fill_pages_heap(mem, len / PAGE);
	else
		fill_pages(mem, len / PAGE);
	*out = mem;
	return 0;
}

/* The heartbeat file's layout: native 64-bit words. */
struct heartbeat {
	uint64_t beats;
	uint64_t last_ns;	/* CLOCK_MONOTONIC of the last beat */
	uint64_t max_gap_ns;	/* the longest time between two beats */
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *beat(void *arg)
{
	const struct timespec period = { .tv_nsec = 100000 };
	volatile struct heartbeat *hb = arg;
	uint64_t now, last = monotonic_ns();

	for (;;) {
		nanosleep(&period, NULL);
		now = monotonic_ns();
		if (now - last > hb->max_gap_ns)
			hb->max_gap_ns = now - last;
		hb->last_ns = now;
		hb->beats++;
		last = now;
	}
	return NULL;
}

static int start_heartbeat(const char *path)
{
	struct heartbeat *hb;
	pthread_t thread;
	int fd;

	if (!path)
		return 0;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)PAGE))
		return fail(path);
	hb = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (hb == MAP_FAILED)
		return fail("mmap of the heartbeat");
	errno = pthread_create(&thread, NULL, beat, hb);
	return errno ? fail("the heartbeat thread") : 0;
}

/* Set by SIGUSR1 (--touch); a signal handler has nowhere else to say it. */
static volatile sig_atomic_t touch_requested;

static void request_touch(int sig)
{
	(void)sig;
	touch_requested = 1;
}

/* Every page of @mem written once, as it was; the time it took into "touched". */
static int touch_pages(const struct target_options *o, unsigned char *mem)
{
	volatile unsigned char *p = mem;
	char path[PATH_MAX + 16], final[PATH_MAX + 16], text[32];
	size_t i, pages = (size_t)o->mem_mib << 20 >> 12;
	uint64_t t0 = monotonic_ns();
	FILE *f;

	for (i = 0; i < pages; i++)
		p[i * PAGE] = p[i * PAGE];
	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)(monotonic_ns() - t0));
	snprintf(path, sizeof(path), "%s/touched.tmp", o->dir);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		return fail(path);
	snprintf(final, sizeof(final), "%s/touched", o->dir);
	return rename(path, final) ? fail(final) : 0;
}

/*
 * The descriptor(s) whose turn it is: returns how many were opened (pipes
 * come in pairs), or -1.
 */
static int open_one(const struct target_options *o, long i, long left)
{
	char path[PATH_MAX + 32];
	int p[2], fd;

	switch (i % 5) {
	case 0:
		snprintf(path, sizeof(path), "%s/file-%ld", o->dir, i % 64);
		fd = open(path, O_RDWR | O_CREAT, 0644);
		if (fd < 0 || pwrite(fd, "bench-target\n", 13, 0) != 13 ||
		    lseek(fd, i % 4096, SEEK_SET) < 0)
			return fail(path);
		return 1;
	case 1:
		return open("/dev/null", O_RDONLY | O_CLOEXEC) < 0 ? fail("/dev/null") : 1;
	case 2:
		return open(o->dir, O_RDONLY | O_DIRECTORY) < 0 ? fail(o->dir) : 1;
	default:
		if (left < 2)
			return open("/dev/null", O_WRONLY) < 0 ? fail("/dev/null") : 1;
		return pipe2(p, i % 2 ? O_CLOEXEC : 0) ? fail("pipe") : 2;
	}
}

static int add_fds(const struct target_options *o)
{
	struct rlimit rl;
	long have, i;
	int n;

	if (!o->fds)
		return 0;
	rl.rlim_cur = rl.rlim_max = (rlim_t)o->fds + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return fail("raising RLIMIT_NOFILE");
	have = count_entries("/proc/self/fd");
	if (have < 0)
		return fail("/proc/self/fd");
	if (have > o->fds) {
		fprintf(stderr, "bench-target: already %ld descriptors open, more than %ld\n",
			have, o->fds);
		return -1;
	}
	for (i = 0; have < o->fds; i++, have += n) {
		n = open_one(o, i, o->fds - have);
		if (n < 0)
			return -1;
	}
	if (count_entries("/proc/self/fd") != o->fds) {
		fprintf(stderr, "bench-target: %ld descriptors instead of %ld\n",
			count_entries("/proc/self/fd"), o->fds);
		return -1;
	}
	return 0;
}

/*
 * The missing VMAs as one reservation split page by page.  Read-only and
 * read-execute anonymous pages merge with nothing a C program maps by
 * itself, so the count comes out exact; it is checked all the same.
 */
static int add_vmas(long want)
{
	unsigned char *area;
	long have, extra, i;

	if (!want)
		return 0;
	have = count_vmas();
	if (have < 0)
		return fail("/proc/self/maps");
	extra = want - have;
	if (extra < 0) {
		fprintf(stderr, "bench-target: already %ld VMAs, more than %ld\n", have, want);
		return -1;
	}
	if (!extra)
		return 0;
	area = mmap(NULL, extra * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return fail("mmap of the VMA area");
	for (i = 1; i < extra; i += 2)
		if (mprotect(area + i * PAGE, PAGE, PROT_READ | PROT_EXEC))
			return fail("mprotect (is vm.max_map_count high enough?)");
	have = count_vmas();
	if (have != want) {
		fprintf(stderr, "bench-target: %ld VMAs instead of %ld (a mapping merged)\n",
			have, want);
		return -1;
	}
	return 0;
}

static int write_ready(const struct target_options *o)
{
	char tmp[PATH_MAX + 8];
	long fds;
	FILE *f;

	fds = count_entries("/proc/self/fd");
	snprintf(tmp, sizeof(tmp), "%s.tmp", o->ready);
	f = fopen(tmp, "w");
	if (!f)
		return fail(tmp);
	fprintf(f, "vmas %ld fds %ld mem %lu\n", count_vmas(), fds,
		(unsigned long)o->mem_mib << 20);
	if (fclose(f) || rename(tmp, o->ready))
		return fail(o->ready);
	return 0;
}

static int parse_count(const char *arg, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	if (errno || *end || *out < 0 || *out > max) {
		fprintf(stderr, "bench-target: bad count '%s' (0 to %ld)\n", arg, max);
		return -1;
	}
	return 0;
}

static int parse_options(int argc, char **argv, struct target_options *o)
{
	static const struct option longopts[] = {
		{ "vmas", required_argument, NULL, 'v' },
		{ "fds", required_argument, NULL, 'f' },
		{ "mem", required_argument, NULL, 'm' },
		{ "heartbeat", required_argument, NULL, 'b' },
		{ "touch", no_argument, NULL, 't' },
		{ "heap-mix", no_argument, NULL, 'h' },
		{ 0 }
	};
	char *slash;
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'b')
			o->heartbeat = optarg;
		else if (c == 't')
			o->touch = true;
		else if (c == 'h')
			o->heap_mix = true;
		else if ((c == 'v' && parse_count(optarg, 1 << 20, &o->vmas)) ||
		    (c == 'f' && parse_count(optarg, 1 << 20, &o->fds)) ||
		    (c == 'm' && parse_count(optarg, 1 << 16, &o->mem_mib)) || c == '?')
			return -1;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: bench-target [--vmas N] [--fds N] [--mem MIB] "
			"[--heartbeat FILE] [--touch] [--heap-mix] READYFILE\n");
		return -1;
	}
	o->ready = argv[optind];
	snprintf(o->dir, sizeof(o->dir), "%s", o->ready);
	slash = strrchr(o->dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(o->dir, ".");
	return 0;
}

int main(int argc, char **argv)
{
	struct target_options o = { 0 };
	unsigned char *mem = NULL;

	if (parse_options(argc, argv, &o))
		return 2;
	/* Memory and descriptors first: their mappings count among the VMAs. */
	if (o.touch && signal(SIGUSR1, request_touch) == SIG_ERR)
		return 1;
	if (add_memory(o.mem_mib, o.heap_mix, &mem) || add_fds(&o) || add_vmas(o.vmas) ||
	    start_heartbeat(o.heartbeat) || write_ready(&o))
		return 1;
	for (;;) {
		pause();
		if (touch_requested && mem) {
			touch_requested = 0;
			if (touch_pages(&o, mem))
				return 1;
		}
	}
}
