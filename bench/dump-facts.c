// SPDX-License-Identifier: GPL-2.0
/*
 * dump-facts: how long it takes to read what a dump needs to know about a
 * process (its task, VMAs and descriptors) through the CRIB programs and
 * through procfs.
 *
 *   dump-facts -p PID --compare
 *       read the facts once each way and compare them field by field;
 *       exit 1 when they differ
 *   dump-facts -p PID [--warmup N] [--min-reps N] [--max-reps N] [--budget SECONDS]
 *       time each way: N warm-up runs, then rounds that run every way
 *       once, in turn, until the budget is spent (at least --min-reps,
 *       at most --max-reps rounds); prints one line per way:
 *       "method NAME reps N median_ns T min_ns T max_ns T"
 *
 * The ways, in facts.h: crib-programs, crib-dump-read, procfs-smaps,
 * procfs-maps.  Every run must find the same number of VMAs and
 * descriptors, or the benchmark stops: the process must not change.
 *
 * Runs are timed with the TSC, converted to nanoseconds by comparing it
 * with CLOCK_MONOTONIC over the whole measurement: under emulation the
 * guest kernel may fail to calibrate the TSC and fall back to a jiffies
 * clock of a few milliseconds' resolution, while the TSC itself (the
 * host's) still ticks steadily.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "facts.h"

struct options {
	pid_t pid;
	bool compare;
	int warmup;
	int min_reps;
	int max_reps;
	double budget;		/* seconds */
};

struct bench {
	struct dump_job job;	/* the loaded programs and the pid */
	struct procfs_reader smaps;
	struct procfs_reader maps;
	struct dump_error err;
};

struct counts {
	size_t vmas;
	size_t files;
};

/* Each run is timed in TSC cycles. */
struct method {
	const char *name;
	int (*run)(struct bench *b, struct counts *counts, uint64_t *cycles);
	uint64_t *samples;
	size_t n;
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t cycles(void)
{
	return __rdtsc();
}

static int run_crib_programs(struct bench *b, struct counts *counts, uint64_t *elapsed)
{
	struct crib_facts facts;
	uint64_t t0;
	int ret;

	t0 = cycles();
	ret = crib_facts_read(&b->job, &facts);
	*elapsed = cycles() - t0;
	counts->vmas = facts.vmas.n;
	counts->files = facts.files.n;
	crib_facts_free(&facts);
	return ret;
}

static int run_crib_dump_read(struct bench *b, struct counts *counts, uint64_t *elapsed)
{
	uint64_t t0;
	int ret;

	t0 = cycles();
	ret = crib_dump_read(&b->job, &counts->vmas, &counts->files);
	*elapsed = cycles() - t0;
	crib_dump_read_free(&b->job);
	return ret;
}

static int run_procfs(struct bench *b, struct procfs_reader *r, struct counts *counts,
		      uint64_t *elapsed)
{
	struct procfs_facts facts;
	uint64_t t0;
	int ret;

	t0 = cycles();
	ret = procfs_facts_read(r, &facts, &b->err);
	*elapsed = cycles() - t0;
	counts->vmas = facts.n_vmas;
	counts->files = facts.n_files;
	procfs_facts_free(&facts);
	return ret;
}

static int run_procfs_smaps(struct bench *b, struct counts *counts, uint64_t *elapsed)
{
	return run_procfs(b, &b->smaps, counts, elapsed);
}

static int run_procfs_maps(struct bench *b, struct counts *counts, uint64_t *elapsed)
{
	return run_procfs(b, &b->maps, counts, elapsed);
}

static const char *run_error(struct bench *b)
{
	return b->job.err.msg[0] ? b->job.err.msg : b->err.msg;
}

static int bench_init(struct bench *b, pid_t pid)
{
	memset(b, 0, sizeof(*b));
	b->job.pid = pid;
	if (programs_load(&b->job.progs, &b->job.err)) {
		fprintf(stderr, "dump-facts: %s\n", b->job.err.msg);
		return -1;
	}
	if (procfs_reader_init(&b->smaps, pid, PROCFS_SMAPS, &b->err) ||
	    procfs_reader_init(&b->maps, pid, PROCFS_MAPS, &b->err)) {
		fprintf(stderr, "dump-facts: %s\n", b->err.msg);
		return -1;
	}
	return 0;
}

static void bench_free(struct bench *b)
{
	procfs_reader_free(&b->smaps);
	procfs_reader_free(&b->maps);
	programs_unload(&b->job.progs);
}

/* Read once each way; every fact procfs shows must be the programs' too. */
static int compare(struct bench *b)
{
	struct procfs_reader *readers[] = { &b->smaps, &b->maps };
	const char *names[] = { "procfs-smaps", "procfs-maps" };
	struct crib_facts crib;
	struct procfs_facts proc;
	struct counts counts;
	int i, diffs = 0;

	if (crib_facts_read(&b->job, &crib)) {
		fprintf(stderr, "dump-facts: crib-programs: %s\n", b->job.err.msg);
		crib_facts_free(&crib);
		return -1;
	}
	for (i = 0; i < 2; i++) {
		if (procfs_facts_read(readers[i], &proc, &b->err)) {
			fprintf(stderr, "dump-facts: %s: %s\n", names[i], b->err.msg);
			procfs_facts_free(&proc);
			crib_facts_free(&crib);
			return -1;
		}
		diffs += facts_compare(&crib, &proc, names[i]);
		procfs_facts_free(&proc);
	}
	if (crib_dump_read(&b->job, &counts.vmas, &counts.files)) {
		fprintf(stderr, "dump-facts: crib-dump-read: %s\n", b->job.err.msg);
		diffs++;
	} else if (counts.vmas != crib.vmas.n || counts.files != crib.files.n) {
		printf("# crib-dump-read: %zu VMAs and %zu descriptors, the programs sent %zu and %zu\n",
		       counts.vmas, counts.files, crib.vmas.n, crib.files.n);
		diffs++;
	}
	crib_dump_read_free(&b->job);
	printf("compare vmas %zu fds %zu differences %d\n", crib.vmas.n, crib.files.n, diffs);
	crib_facts_free(&crib);
	return diffs ? 1 : 0;
}

static int run_checked(struct bench *b, struct method *m, struct counts *want,
		       uint64_t *elapsed)
{
	struct counts got;

	if (m->run(b, &got, elapsed)) {
		fprintf(stderr, "dump-facts: %s: %s\n", m->name, run_error(b));
		return -1;
	}
	if (!want->vmas && !want->files) {
		*want = got;
	} else if (got.vmas != want->vmas || got.files != want->files) {
		fprintf(stderr, "dump-facts: %s found %zu VMAs and %zu descriptors, not %zu and %zu: did the process change?\n",
			m->name, got.vmas, got.files, want->vmas, want->files);
		return -1;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(struct method *m, double ns_per_cycle)
{
	double median;

	qsort(m->samples, m->n, sizeof(*m->samples), cmp_u64);
	median = m->n % 2 ? (double)m->samples[m->n / 2] :
			    ((double)m->samples[m->n / 2 - 1] + (double)m->samples[m->n / 2]) / 2;
	printf("method %s reps %zu median_ns %.0f min_ns %.0f max_ns %.0f\n", m->name, m->n,
	       median * ns_per_cycle, (double)m->samples[0] * ns_per_cycle,
	       (double)m->samples[m->n - 1] * ns_per_cycle);
}

/*
 * Rounds run every way once, starting with a different one each round,
 * so that a slow stretch of the (shared, emulated) machine falls on all
 * of them alike.
 */
static int measure(struct bench *b, const struct options *o)
{
	struct method methods[] = {
		{ "crib-programs", run_crib_programs, NULL, 0 },
		{ "crib-dump-read", run_crib_dump_read, NULL, 0 },
		{ "procfs-smaps", run_procfs_smaps, NULL, 0 },
		{ "procfs-maps", run_procfs_maps, NULL, 0 },
	};
	const size_t n_methods = sizeof(methods) / sizeof(methods[0]);
	struct counts want = { 0 };
	uint64_t start_ns, start_cycles, elapsed;
	double ns_per_cycle;
	size_t i, k;
	int round, ret = -1;

	for (i = 0; i < n_methods; i++) {
		methods[i].samples = calloc((size_t)o->max_reps, sizeof(uint64_t));
		if (!methods[i].samples) {
			fprintf(stderr, "dump-facts: out of memory\n");
			goto out;
		}
	}
	for (round = 0; round < o->warmup; round++)
		for (i = 0; i < n_methods; i++)
			if (run_checked(b, &methods[i], &want, &elapsed))
				goto out;
	start_ns = monotonic_ns();
	start_cycles = cycles();
	for (round = 0; round < o->max_reps; round++) {
		if (round >= o->min_reps && (double)(monotonic_ns() - start_ns) / 1e9 >= o->budget)
			break;
		for (k = 0; k < n_methods; k++) {
			struct method *m = &methods[(k + (size_t)round) % n_methods];

			if (run_checked(b, m, &want, &elapsed))
				goto out;
			m->samples[m->n++] = elapsed;
		}
	}
	ns_per_cycle = (double)(monotonic_ns() - start_ns) / (double)(cycles() - start_cycles);
	printf("facts vmas %zu fds %zu\n", want.vmas, want.files);
	printf("clock tsc %.1f MHz over %.1f s\n", 1e3 / ns_per_cycle,
	       (double)(monotonic_ns() - start_ns) / 1e9);
	for (i = 0; i < n_methods; i++)
		report(&methods[i], ns_per_cycle);
	ret = 0;
out:
	for (i = 0; i < n_methods; i++)
		free(methods[i].samples);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dump-facts -p PID --compare\n"
		"       dump-facts -p PID [--warmup N] [--min-reps N] [--max-reps N] [--budget SECONDS]\n"
		"Read a process's task, VMAs and descriptors through the CRIB programs and\n"
		"through procfs: compare the two, or time them.\n");
}

static int parse_int(const char *arg, int min, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v < min || v > 1000000)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_COMPARE = 0x100, OPT_WARMUP, OPT_MIN, OPT_MAX, OPT_BUDGET };
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "compare", no_argument, NULL, OPT_COMPARE },
		{ "warmup", required_argument, NULL, OPT_WARMUP },
		{ "min-reps", required_argument, NULL, OPT_MIN },
		{ "max-reps", required_argument, NULL, OPT_MAX },
		{ "budget", required_argument, NULL, OPT_BUDGET },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, pid = 0, bad = 0;
	char *end;

	*o = (struct options){ .warmup = 2, .min_reps = 5, .max_reps = 101, .budget = 10 };
	while ((c = getopt_long(argc, argv, "p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': bad |= parse_int(optarg, 1, &pid); break;
		case OPT_COMPARE: o->compare = true; break;
		case OPT_WARMUP: bad |= parse_int(optarg, 0, &o->warmup); break;
		case OPT_MIN: bad |= parse_int(optarg, 1, &o->min_reps); break;
		case OPT_MAX: bad |= parse_int(optarg, 1, &o->max_reps); break;
		case OPT_BUDGET:
			o->budget = strtod(optarg, &end);
			bad |= *end || o->budget < 0 ? -1 : 0;
			break;
		case 'h': usage(stdout); exit(0);
		default: bad = -1;
		}
	}
	if (bad || !pid || optind != argc || o->min_reps > o->max_reps) {
		usage(stderr);
		return -1;
	}
	o->pid = (pid_t)pid;
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	struct bench b;
	int ret;

	if (parse_options(argc, argv, &o))
		return 2;
	if (bench_init(&b, o.pid)) {
		bench_free(&b);
		return 1;
	}
	ret = (o.compare ? compare(&b) : measure(&b, &o)) ? 1 : 0;
	bench_free(&b);
	return ret;
}
