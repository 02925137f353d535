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
 * The options, rounds and clock are timing.h's.
 */
#include <stdio.h>
#include <string.h>

#include "facts.h"
#include "timing.h"

struct bench {
	struct dump_job job;	/* the loaded programs and the pid */
	struct procfs_reader smaps;
	struct procfs_reader maps;
	struct tool_error err;
};

struct counts {
	size_t vmas;
	size_t files;
};

static int run_crib_programs(struct bench *b, struct counts *counts, uint64_t *elapsed)
{
	struct crib_facts facts;
	uint64_t t0;
	int ret;

	t0 = timing_cycles();
	ret = crib_facts_read(&b->job, &facts);
	*elapsed = timing_cycles() - t0;
	counts->vmas = facts.vmas.n;
	counts->files = facts.files.n;
	crib_facts_free(&facts);
	return ret;
}

static int run_crib_dump_read(struct bench *b, struct counts *counts, uint64_t *elapsed)
{
	uint64_t t0;
	int ret;

	t0 = timing_cycles();
	ret = crib_dump_read(&b->job, &counts->vmas, &counts->files);
	*elapsed = timing_cycles() - t0;
	crib_dump_read_free(&b->job);
	return ret;
}

static int run_procfs(struct bench *b, struct procfs_reader *r, struct counts *counts,
		      uint64_t *elapsed)
{
	struct procfs_facts facts;
	uint64_t t0;
	int ret;

	t0 = timing_cycles();
	ret = procfs_facts_read(r, &facts, &b->err);
	*elapsed = timing_cycles() - t0;
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
	return tool_failed(&b->job.err) ? b->job.err.msg : b->err.msg;
}

static int bench_init(struct bench *b, pid_t pid)
{
	memset(b, 0, sizeof(*b));
	b->job.pid = pid;
	if (programs_load(&b->job.progs, &b->job.err) ||
	    programs_scope(&b->job.progs, pid, &b->job.err)) {
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

/* A way of reading; each run is timed in TSC cycles. */
struct way {
	const char *name;
	int (*run)(struct bench *b, struct counts *counts, uint64_t *cycles);
};

static const struct way ways[] = {
	{ "crib-programs", run_crib_programs },
	{ "crib-dump-read", run_crib_dump_read },
	{ "procfs-smaps", run_procfs_smaps },
	{ "procfs-maps", run_procfs_maps },
};

#define N_WAYS (sizeof(ways) / sizeof(ways[0]))

struct measurement {
	struct bench *b;
	struct counts want;	/* what the first run found */
};

/* Run ways[i] once; every run must find what the first one did. */
static int run_checked(void *ctx, size_t i, uint64_t *elapsed)
{
	struct measurement *ms = ctx;
	struct counts got, *want = &ms->want;

	if (ways[i].run(ms->b, &got, elapsed)) {
		fprintf(stderr, "dump-facts: %s: %s\n", ways[i].name, run_error(ms->b));
		return -1;
	}
	if (!want->vmas && !want->files) {
		*want = got;
	} else if (got.vmas != want->vmas || got.files != want->files) {
		fprintf(stderr, "dump-facts: %s found %zu VMAs and %zu descriptors, not %zu and %zu: did the process change?\n",
			ways[i].name, got.vmas, got.files, want->vmas, want->files);
		return -1;
	}
	return 0;
}

static int measure(struct bench *b, const struct timing_options *o)
{
	struct measurement ms = { .b = b };
	struct timing_method methods[N_WAYS] = { 0 };
	struct timing t = {
		.prog = "dump-facts",
		.methods = methods,
		.n_methods = N_WAYS,
		.run = run_checked,
		.ctx = &ms,
	};
	size_t i;
	int ret = -1;

	for (i = 0; i < N_WAYS; i++)
		methods[i].name = ways[i].name;
	if (timing_measure(&t, o))
		goto out;
	printf("facts vmas %zu fds %zu\n", ms.want.vmas, ms.want.files);
	timing_report(&t);
	ret = 0;
out:
	timing_free(&t);
	return ret;
}

static const char usage[] =
	"usage: dump-facts -p PID --compare\n"
	"       dump-facts -p PID [--warmup N] [--min-reps N] [--max-reps N] [--budget SECONDS]\n"
	"Read a process's task, VMAs and descriptors through the CRIB programs and\n"
	"through procfs: compare the two, or time them.\n";

int main(int argc, char **argv)
{
	struct timing_options o;
	struct bench b;
	int ret;

	ret = timing_parse_options(argc, argv, usage, &o);
	if (ret)
		return ret < 0 ? 2 : 0;
	if (bench_init(&b, o.pid)) {
		bench_free(&b);
		return 1;
	}
	ret = (o.compare ? compare(&b) : measure(&b, &o)) ? 1 : 0;
	bench_free(&b);
	return ret;
}
