// SPDX-License-Identifier: GPL-2.0
/*
 * sock-facts: how long it takes to read what a dump needs to know about
 * every socket of a process (family, type, state, addresses, TCP sequence
 * numbers and window, queue sizes, options) through the dump_sockets CRIB
 * program and the procfs way (sockfacts.h).
 *
 *   sock-facts -p PID --compare
 *       read once each way and compare, socket by socket; exit 1 when
 *       they differ
 *   sock-facts -p PID [--warmup N] [--min-reps N] [--max-reps N] [--budget SECONDS]
 *       time each way: N warm-up runs, then rounds that run both ways,
 *       in turn, until the budget is spent (at least --min-reps, at most
 *       --max-reps rounds); prints
 *       "sockets N tcp N udp N unix N", one line per way:
 *       "method NAME reps N median_ns T min_ns T max_ns T", and one per
 *       stage of the procfs way: "stage procfs-diag STAGE median_ns T"
 *
 * Every run must find the same sockets, or the benchmark stops.  The
 * options, rounds and clock are timing.h's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sockfacts.h"
#include "timing.h"

struct bench {
	struct dump_job job;	/* the loaded programs and the pid */
	struct procfs_sock_reader procfs;
	struct tool_error err;
};

static const char *const stage_names[NR_STAGES] = {
	"fds", "proc-net", "sock-diag", "getsockopt",
};

static int read_crib(struct bench *b, struct sock_facts *f)
{
	return crib_sock_facts_read(&b->job, f);
}

static int read_procfs(struct bench *b, struct sock_facts *f)
{
	return procfs_sock_facts_read(&b->procfs, f, &b->err);
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
		fprintf(stderr, "sock-facts: %s\n", b->job.err.msg);
		return -1;
	}
	if (procfs_sock_reader_init(&b->procfs, pid, &b->err)) {
		fprintf(stderr, "sock-facts: %s\n", b->err.msg);
		return -1;
	}
	return 0;
}

static void bench_free(struct bench *b)
{
	procfs_sock_reader_free(&b->procfs);
	programs_unload(&b->job.progs);
}

static int compare(struct bench *b)
{
	struct sock_facts crib, proc;
	int diffs;

	if (read_crib(b, &crib)) {
		fprintf(stderr, "sock-facts: crib-program: %s\n", run_error(b));
		sock_facts_free(&crib);
		return -1;
	}
	if (read_procfs(b, &proc)) {
		fprintf(stderr, "sock-facts: procfs-diag: %s\n", run_error(b));
		sock_facts_free(&crib);
		sock_facts_free(&proc);
		return -1;
	}
	diffs = sock_facts_compare(&crib, &proc);
	printf("compare sockets %zu differences %d\n", crib.n, diffs);
	sock_facts_free(&crib);
	sock_facts_free(&proc);
	return diffs ? 1 : 0;
}

/* The kinds of socket found, for the report and to check every run finds the same. */
struct census {
	size_t n, tcp, udp, unx;
};

static void count(const struct sock_facts *f, struct census *c)
{
	*c = (struct census){ .n = f->n };
	for (size_t i = 0; i < f->n; i++) {
		if (f->items[i].family == AF_UNIX)
			c->unx++;
		else if (f->items[i].type == SOCK_STREAM)
			c->tcp++;
		else
			c->udp++;
	}
}

/* The ways of reading, in the order of their report lines. */
enum { WAY_CRIB, WAY_PROCFS, N_WAYS };

static const struct way {
	const char *name;
	int (*read)(struct bench *b, struct sock_facts *f);
} ways[N_WAYS] = {
	[WAY_CRIB] = { "crib-program", read_crib },
	[WAY_PROCFS] = { "procfs-diag", read_procfs },
};

struct measurement {
	struct bench *b;
	struct census want;		/* what the first run found */
	uint64_t *stages[NR_STAGES];	/* cycles of each stage of the timed procfs runs */
	size_t n_stages;
};

/* Run ways[i] once; every run must find what the first one did. */
static int run_checked(void *ctx, size_t i, uint64_t *elapsed)
{
	struct measurement *ms = ctx;
	struct census got, *want = &ms->want;
	struct sock_facts f;
	uint64_t t0;
	int ret;

	t0 = timing_cycles();
	ret = ways[i].read(ms->b, &f);
	*elapsed = timing_cycles() - t0;
	count(&f, &got);
	sock_facts_free(&f);
	if (ret) {
		fprintf(stderr, "sock-facts: %s: %s\n", ways[i].name, run_error(ms->b));
		return -1;
	}
	if (!want->n) {
		*want = got;
	} else if (memcmp(&got, want, sizeof(got))) {
		fprintf(stderr, "sock-facts: %s found %zu sockets, not %zu: did the process change?\n",
			ways[i].name, got.n, want->n);
		return -1;
	}
	return 0;
}

/* Keep the stages of every timed procfs run. */
static void keep_stages(void *ctx, size_t i)
{
	struct measurement *ms = ctx;
	size_t s;

	if (i != WAY_PROCFS)
		return;
	for (s = 0; s < NR_STAGES; s++)
		ms->stages[s][ms->n_stages] = ms->b->procfs.stage_cycles[s];
	ms->n_stages++;
}

static void report_stages(struct measurement *ms, double ns_per_cycle)
{
	size_t s;

	for (s = 0; s < NR_STAGES; s++)
		printf("stage procfs-diag %s median_ns %.0f\n", stage_names[s],
		       timing_median(ms->stages[s], ms->n_stages) * ns_per_cycle);
}

static int measure(struct bench *b, const struct timing_options *o)
{
	struct measurement ms = { .b = b };
	struct timing_method methods[N_WAYS] = { 0 };
	struct timing t = {
		.prog = "sock-facts",
		.methods = methods,
		.n_methods = N_WAYS,
		.run = run_checked,
		.kept = keep_stages,
		.ctx = &ms,
	};
	int ret = -1;
	size_t i;

	for (i = 0; i < N_WAYS; i++)
		methods[i].name = ways[i].name;
	for (i = 0; i < NR_STAGES; i++) {
		ms.stages[i] = calloc((size_t)o->max_reps, sizeof(uint64_t));
		if (!ms.stages[i]) {
			fprintf(stderr, "sock-facts: out of memory\n");
			goto out;
		}
	}
	if (timing_measure(&t, o))
		goto out;
	printf("sockets %zu tcp %zu udp %zu unix %zu\n", ms.want.n, ms.want.tcp, ms.want.udp,
	       ms.want.unx);
	timing_report(&t);
	report_stages(&ms, t.ns_per_cycle);
	ret = 0;
out:
	timing_free(&t);
	for (i = 0; i < NR_STAGES; i++)
		free(ms.stages[i]);
	return ret;
}

static const char usage[] =
	"usage: sock-facts -p PID --compare\n"
	"       sock-facts -p PID [--warmup N] [--min-reps N] [--max-reps N] [--budget SECONDS]\n"
	"Read every socket of a process through the dump_sockets CRIB program and\n"
	"through procfs, sock_diag and getsockopt(): compare the two, or time them.\n";

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
