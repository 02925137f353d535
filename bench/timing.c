// SPDX-License-Identifier: GPL-2.0
/* The timing harness of the fact-reading benchmarks (timing.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "timing.h"

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

int timing_parse_options(int argc, char **argv, const char *usage, struct timing_options *o)
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

	*o = (struct timing_options){ .warmup = 2, .min_reps = 5, .max_reps = 101, .budget = 10 };
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
		case 'h': fputs(usage, stdout); return 1;
		default: bad = -1;
		}
	}
	if (bad || !pid || optind != argc || o->min_reps > o->max_reps) {
		fputs(usage, stderr);
		return -1;
	}
	o->pid = (pid_t)pid;
	return 0;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int alloc_samples(struct timing *t, int max_reps)
{
	size_t i;

	for (i = 0; i < t->n_methods; i++) {
		t->methods[i].samples = calloc((size_t)max_reps, sizeof(uint64_t));
		t->methods[i].n = 0;
		if (!t->methods[i].samples) {
			fprintf(stderr, "%s: out of memory\n", t->prog);
			return -1;
		}
	}
	return 0;
}

static int warm_up(struct timing *t, int rounds)
{
	uint64_t cycles;
	size_t i;
	int round;

	for (round = 0; round < rounds; round++)
		for (i = 0; i < t->n_methods; i++)
			if (t->run(t->ctx, i, &cycles))
				return -1;
	return 0;
}

int timing_measure(struct timing *t, const struct timing_options *o)
{
	uint64_t start_ns, start_cycles, cycles;
	size_t i, k;
	int round;

	if (alloc_samples(t, o->max_reps) || warm_up(t, o->warmup))
		return -1;
	start_ns = monotonic_ns();
	start_cycles = timing_cycles();
	for (round = 0; round < o->max_reps; round++) {
		if (round >= o->min_reps && (double)(monotonic_ns() - start_ns) / 1e9 >= o->budget)
			break;
		for (k = 0; k < t->n_methods; k++) {
			i = (k + (size_t)round) % t->n_methods;
			if (t->run(t->ctx, i, &cycles))
				return -1;
			t->methods[i].samples[t->methods[i].n++] = cycles;
			if (t->kept)
				t->kept(t->ctx, i);
		}
	}
	cycles = timing_cycles() - start_cycles;
	t->seconds = (double)(monotonic_ns() - start_ns) / 1e9;
	t->ns_per_cycle = t->seconds * 1e9 / (double)cycles;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

double timing_median(uint64_t *samples, size_t n)
{
	qsort(samples, n, sizeof(*samples), cmp_u64);
	return n % 2 ? (double)samples[n / 2] :
		       ((double)samples[n / 2 - 1] + (double)samples[n / 2]) / 2;
}

void timing_report(struct timing *t)
{
	const struct timing_method *m;
	double median, scale = t->ns_per_cycle;
	size_t i;

	printf("clock tsc %.1f MHz over %.1f s\n", 1e3 / scale, t->seconds);
	for (i = 0; i < t->n_methods; i++) {
		m = &t->methods[i];
		median = timing_median(m->samples, m->n);
		printf("method %s reps %zu median_ns %.0f min_ns %.0f max_ns %.0f\n", m->name,
		       m->n, median * scale, (double)m->samples[0] * scale,
		       (double)m->samples[m->n - 1] * scale);
	}
}

void timing_free(struct timing *t)
{
	size_t i;

	for (i = 0; i < t->n_methods; i++) {
		free(t->methods[i].samples);
		t->methods[i].samples = NULL;
	}
}
