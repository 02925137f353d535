/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timing harness the fact-reading benchmarks share (dump-facts,
 * sock-facts): their common options, and rounds that run every way of
 * reading once, in turn, until a time budget is spent, each run timed in
 * TSC cycles and reported in nanoseconds.
 *
 *   -p PID --compare
 *   -p PID [--warmup N] [--min-reps N] [--max-reps N] [--budget SECONDS]
 *
 * What the runs read, and how they check it, stays with each program: it
 * gives timing_measure() one function that runs a way once.
 *
 * The TSC is converted to nanoseconds by comparing it with CLOCK_MONOTONIC
 * over the whole measurement: under emulation the guest kernel may fail to
 * calibrate the TSC and fall back to a jiffies clock of a few
 * milliseconds' resolution, while the TSC itself (the host's) still ticks
 * steadily.
 */
#ifndef CRIB_BENCH_TIMING_H
#define CRIB_BENCH_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <x86intrin.h>

struct timing_options {
	pid_t pid;
	bool compare;		/* compare the ways instead of timing them */
	int warmup;		/* untimed rounds first */
	int min_reps;		/* timed rounds, at least ... */
	int max_reps;		/* ... and at most */
	double budget;		/* seconds: no new round after this, once min_reps are done */
};

/*
 * Parse the options above; usage is the program's whole usage text.
 * Returns 0, 1 after printing usage for --help, or -1 after printing it to
 * stderr for bad options.
 */
int timing_parse_options(int argc, char **argv, const char *usage, struct timing_options *o);

/* One way of reading, and the cycles of each of its timed runs. */
struct timing_method {
	const char *name;
	uint64_t *samples;
	size_t n;
};

struct timing {
	const char *prog;	/* the program's name, for messages */
	struct timing_method *methods;	/* names set, the rest zero */
	size_t n_methods;
	/*
	 * Run methods[i] once and put the cycles it took in *cycles; 0, or -1
	 * after printing why the measurement must stop.
	 */
	int (*run)(void *ctx, size_t i, uint64_t *cycles);
	/* If set, called after every timed run of methods[i] that was kept. */
	void (*kept)(void *ctx, size_t i);
	void *ctx;
	/* Set by timing_measure(). */
	double ns_per_cycle;
	double seconds;		/* spent on the timed rounds */
};

static inline uint64_t timing_cycles(void)
{
	return __rdtsc();
}

/*
 * Warm up, then run the timed rounds, each starting with a different
 * method, so that a slow stretch of the (shared, emulated) machine falls on
 * all of them alike.  Returns 0 or -1 (message printed); call timing_free()
 * either way.
 */
int timing_measure(struct timing *t, const struct timing_options *o);

/*
 * Print the clock line, then one line per method, sorting its samples:
 *   clock tsc F MHz over F s
 *   method NAME reps N median_ns T min_ns T max_ns T
 */
void timing_report(struct timing *t);

/* The median of n > 0 samples, which it sorts. */
double timing_median(uint64_t *samples, size_t n);

void timing_free(struct timing *t);

#endif
