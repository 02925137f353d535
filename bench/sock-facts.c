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
 * Every run must find the same sockets, or the benchmark stops.  Timed
 * with the TSC, calibrated against CLOCK_MONOTONIC over the whole
 * measurement (see bench/dump-facts.c for why).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <x86intrin.h>

#include "sockfacts.h"

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
	struct procfs_sock_reader procfs;
	struct dump_error err;
};

struct method {
	const char *name;
	int (*read)(struct bench *b, struct sock_facts *f);
	uint64_t *samples;
	size_t n;
};

static const char *const stage_names[NR_STAGES] = {
	"fds", "proc-net", "sock-diag", "getsockopt",
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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
	return b->job.err.msg[0] ? b->job.err.msg : b->err.msg;
}

static int bench_init(struct bench *b, pid_t pid)
{
	memset(b, 0, sizeof(*b));
	b->job.pid = pid;
	if (programs_load(&b->job.progs, &b->job.err)) {
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

static int run_checked(struct bench *b, struct method *m, struct census *want, uint64_t *elapsed)
{
	struct sock_facts f;
	struct census got;
	uint64_t t0;
	int ret;

	t0 = __rdtsc();
	ret = m->read(b, &f);
	*elapsed = __rdtsc() - t0;
	count(&f, &got);
	sock_facts_free(&f);
	if (ret) {
		fprintf(stderr, "sock-facts: %s: %s\n", m->name, run_error(b));
		return -1;
	}
	if (!want->n) {
		*want = got;
	} else if (memcmp(&got, want, sizeof(got))) {
		fprintf(stderr, "sock-facts: %s found %zu sockets, not %zu: did the process change?\n",
			m->name, got.n, want->n);
		return -1;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double median_of(uint64_t *samples, size_t n)
{
	qsort(samples, n, sizeof(*samples), cmp_u64);
	return n % 2 ? (double)samples[n / 2] :
		       ((double)samples[n / 2 - 1] + (double)samples[n / 2]) / 2;
}

static void report(struct method *m, double ns_per_cycle)
{
	double median = median_of(m->samples, m->n);

	printf("method %s reps %zu median_ns %.0f min_ns %.0f max_ns %.0f\n", m->name, m->n,
	       median * ns_per_cycle, (double)m->samples[0] * ns_per_cycle,
	       (double)m->samples[m->n - 1] * ns_per_cycle);
}

/* Rounds alternate which way goes first, so a slow stretch falls on both alike. */
static int measure(struct bench *b, const struct options *o)
{
	struct method methods[] = {
		{ "crib-program", read_crib, NULL, 0 },
		{ "procfs-diag", read_procfs, NULL, 0 },
	};
	const size_t n_methods = sizeof(methods) / sizeof(methods[0]);
	uint64_t start_ns, start_cycles, elapsed, *stages[NR_STAGES] = { 0 };
	struct census want = { 0 };
	size_t n_stages = 0;
	double ns_per_cycle;
	int round, ret = -1;
	size_t i, k;

	for (i = 0; i < n_methods; i++) {
		methods[i].samples = calloc((size_t)o->max_reps, sizeof(uint64_t));
		if (!methods[i].samples) {
			fprintf(stderr, "sock-facts: out of memory\n");
			goto out;
		}
	}
	for (i = 0; i < NR_STAGES; i++) {
		stages[i] = calloc((size_t)o->max_reps, sizeof(uint64_t));
		if (!stages[i]) {
			fprintf(stderr, "sock-facts: out of memory\n");
			goto out;
		}
	}
	for (round = 0; round < o->warmup; round++)
		for (i = 0; i < n_methods; i++)
			if (run_checked(b, &methods[i], &want, &elapsed))
				goto out;
	start_ns = monotonic_ns();
	start_cycles = __rdtsc();
	for (round = 0; round < o->max_reps; round++) {
		if (round >= o->min_reps && (double)(monotonic_ns() - start_ns) / 1e9 >= o->budget)
			break;
		for (k = 0; k < n_methods; k++) {
			struct method *m = &methods[(k + (size_t)round) % n_methods];

			if (run_checked(b, m, &want, &elapsed))
				goto out;
			m->samples[m->n++] = elapsed;
			if (m->read != read_procfs)
				continue;
			for (i = 0; i < NR_STAGES; i++)
				stages[i][n_stages] = b->procfs.stage_cycles[i];
			n_stages++;
		}
	}
	ns_per_cycle = (double)(monotonic_ns() - start_ns) / (double)(__rdtsc() - start_cycles);
	printf("sockets %zu tcp %zu udp %zu unix %zu\n", want.n, want.tcp, want.udp, want.unx);
	printf("clock tsc %.1f MHz over %.1f s\n", 1e3 / ns_per_cycle,
	       (double)(monotonic_ns() - start_ns) / 1e9);
	for (i = 0; i < n_methods; i++)
		report(&methods[i], ns_per_cycle);
	for (i = 0; i < NR_STAGES; i++)
		printf("stage procfs-diag %s median_ns %.0f\n", stage_names[i],
		       median_of(stages[i], n_stages) * ns_per_cycle);
	ret = 0;
out:
	for (i = 0; i < n_methods; i++)
		free(methods[i].samples);
	for (i = 0; i < NR_STAGES; i++)
		free(stages[i]);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sock-facts -p PID --compare\n"
		"       sock-facts -p PID [--warmup N] [--min-reps N] [--max-reps N] [--budget SECONDS]\n"
		"Read every socket of a process through the dump_sockets CRIB program and\n"
		"through procfs, sock_diag and getsockopt(): compare the two, or time them.\n");
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
