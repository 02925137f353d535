// SPDX-License-Identifier: GPL-2.0
/*
 * How long the dump took (spec/format.md, dump_stats): each phase timed
 * on CLOCK_MONOTONIC as main.c moves from one to the next, and how long
 * the tree was stopped, from the start of the freeze to the tree let go
 * or the record written, whichever comes first.  The record goes out
 * last, before the trailer; what follows it (closing, syncing, the kill)
 * cannot be in it.
 */
#include <time.h>

#include "crib-dump.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void stats_start(struct dump_stats *s)
{
	*s = (struct dump_stats){ 0 };
	s->start_ns = now_ns();
	s->mark_ns = s->start_ns;
}

void stats_phase_done(struct dump_stats *s, const char *name)
{
	uint64_t now = now_ns();

	if (s->n_phases < sizeof(s->phases) / sizeof(s->phases[0]))
		s->phases[s->n_phases++] = (struct crib_dump_phase){ name, now - s->mark_ns };
	s->mark_ns = now;
}

void stats_frozen(struct dump_stats *s)
{
	s->frozen_ns = now_ns();
}

void stats_let_go(struct dump_stats *s)
{
	if (s->frozen_ns && !s->released_ns)
		s->released_ns = now_ns();
}

void stats_count(struct dump_stats *s, const struct dump_tree *tree)
{
	s->processes = tree->procs.n;
	s->threads = 0;
	for (size_t i = 0; i < tree->procs.n; i++)
		s->threads += tree->procs.items[i]->freezer.threads.n;
}

int stats_write(struct dump_stats *s, struct dump_tree *tree, struct crib_writer *w)
{
	struct crib_dump_stats rec;
	uint64_t now;

	stats_phase_done(s, "write");
	now = s->mark_ns;
	rec = (struct crib_dump_stats){
		.phases = s->phases, .n_phases = s->n_phases,
		.frozen_ns = s->frozen_ns ? (s->released_ns ? s->released_ns : now) - s->frozen_ns : 0,
		.total_ns = now - s->start_ns,
		.processes = s->processes, .threads = s->threads,
	};
	if (crib_write_dump_stats(w, &rec))
		return tool_fail(&tree->err, 0, "writing the dump statistics: %s",
				 crib_writer_error(w)->msg);
	return 0;
}
