// SPDX-License-Identifier: GPL-2.0
/* The progress meter: see progress.h. */
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define NS_PER_SEC	1000000000ULL
#define SHOW_AFTER_NS	NS_PER_SEC		/* a run shorter than this shows nothing */
#define REDRAW_NS	(NS_PER_SEC / 4)
#define MIB		(1024.0 * 1024.0)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

void progress_init(struct progress *p, const char *tool, bool quiet)
{
	*p = (struct progress){ .out = stderr, .tool = tool };
	p->on = !quiet && isatty(fileno(stderr));
}

void progress_begin(struct progress *p, unsigned int procs)
{
	p->procs = procs;
	p->proc = 0;
	p->done = p->total = 0;
	p->start_ns = now_ns();
	p->first_ns = p->drawn_ns = 0;
}

static void draw(struct progress *p, uint64_t now)
{
	double secs = p->first_ns && now > p->first_ns ?
		      (double)(now - p->first_ns) / NS_PER_SEC : 0;

	fprintf(p->out, "\r%s: process %u of %u, %.1f", p->tool, p->proc, p->procs,
		p->done / MIB);
	if (p->total)
		fprintf(p->out, " of %.1f", p->total / MIB);
	fprintf(p->out, " MiB");
	if (secs > 0)
		fprintf(p->out, ", %.1f MiB/s", p->done / MIB / secs);
	/* erase what a longer line left */
	fprintf(p->out, "\033[K");
	fflush(p->out);
	p->drawn_ns = now;
	p->shown = true;
}

static void update(struct progress *p)
{
	uint64_t now;

	if (!p->on || !p->start_ns)
		return;
	now = now_ns();
	if (now - p->start_ns < SHOW_AFTER_NS)
		return;
	if (p->shown && now - p->drawn_ns < REDRAW_NS)
		return;
	draw(p, now);
}

void progress_process(struct progress *p, unsigned int proc, uint64_t total)
{
	p->proc = proc;
	p->total = total;
	update(p);
}

void progress_add(struct progress *p, uint64_t bytes)
{
	if (bytes && !p->first_ns)
		p->first_ns = now_ns();
	p->done += bytes;
	update(p);
}

void progress_hide(struct progress *p)
{
	if (!p->shown)
		return;
	fprintf(p->out, "\r\033[K");
	fflush(p->out);
	p->shown = false;
}

void progress_end(struct progress *p)
{
	progress_hide(p);
	p->start_ns = 0;
}
