// SPDX-License-Identifier: GPL-2.0-only
/*
 * --stats: how long the dump took, from the dump_stats record (format
 * 1.8) its writer ends the stream with: each phase, the whole, and how
 * long the tree was stopped.  A snapshot without one (an older writer)
 * says so and exits 1.  The record's text is copied: the reader reuses
 * its memory.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

struct stats {
	struct view v;
	bool found;
	struct crib_dump_stats rec;
	struct crib_dump_phase phases[CRIB_DUMP_PHASES_MAX];
	char names[CRIB_DUMP_PHASES_MAX][65];
};

/* The last record wins: a writer writes one. */
static void stats_record(void *state, const struct crib_record *rec)
{
	struct stats *s = state;
	size_t i;

	if (rec->type != CRIB_REC_DUMP_STATS)
		return;
	s->found = true;
	s->rec = rec->u.dump_stats;
	for (i = 0; i < s->rec.n_phases && i < CRIB_DUMP_PHASES_MAX; i++) {
		snprintf(s->names[i], sizeof(s->names[i]), "%s", s->rec.phases[i].name);
		s->phases[i] = (struct crib_dump_phase){ s->names[i], s->rec.phases[i].ns };
	}
	s->rec.n_phases = i;
	s->rec.phases = s->phases;
}

static void print_ms(const char *what, uint64_t ns)
{
	printf("  ");
	print_text(what);
	printf("%*s %10.3f ms\n", (int)(12 - (strlen(what) < 12 ? strlen(what) : 12)), "",
	       (double)ns / 1e6);
}

static void print_json(struct view_out *out, const struct crib_dump_stats *d)
{
	view_json_item(out);
	printf("{\"phases\":[");
	for (size_t i = 0; i < d->n_phases; i++) {
		printf("%s{", i ? "," : "");
		json_key_string("name", d->phases[i].name);
		printf(",\"ns\":%" PRIu64 "}", d->phases[i].ns);
	}
	printf("],\"frozen_ns\":%" PRIu64 ",\"total_ns\":%" PRIu64 ",\"processes\":%" PRIu64
	       ",\"threads\":%" PRIu64 "}", d->frozen_ns, d->total_ns, d->processes, d->threads);
}

static int stats_finish(void *state)
{
	struct stats *s = state;
	const struct crib_dump_stats *d = &s->rec;

	if (!s->found) {
		fprintf(stderr, "crib-inspect: no dump statistics in this snapshot (crib-dump "
			"writes them since format 1.8)\n");
		return EXIT_NEGATIVE;
	}
	if (s->v.out->json) {
		print_json(s->v.out, d);
		return EXIT_OK;
	}
	printf("dump of %" PRIu64 " process%s, %" PRIu64 " thread%s\n", d->processes,
	       d->processes == 1 ? "" : "es", d->threads, d->threads == 1 ? "" : "s");
	printf("phases:\n");
	for (size_t i = 0; i < d->n_phases; i++)
		print_ms(d->phases[i].name, d->phases[i].ns);
	printf("%-14s %10.3f ms\n", "total:", (double)d->total_ns / 1e6);
	printf("%-14s %10.3f ms\n", "frozen:", (double)d->frozen_ns / 1e6);
	return EXIT_OK;
}

const struct view_ops stats_view = {
	.name = "stats", .items = "dump_stats",
	.size = sizeof(struct stats),
	.record = stats_record, .finish = stats_finish,
};
