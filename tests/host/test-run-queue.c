// SPDX-License-Identifier: GPL-2.0
/*
 * crib-dump's run queue (tools/crib-dump/run_queue.c): every run pushed
 * is written once, in push order, from the buffer it was read into and
 * untouched while it is written, by the queue's thread or, without one,
 * at the push; a failed write stops the queue and is reported.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "run_queue.h"
#include "tap.h"

#define RUNS	400
#define BUF	4096

static struct tap t;

struct check {
	atomic_int written[RUNS];
	atomic_int order_ok;		/* runs came in push order */
	atomic_int next;		/* the run expected next, ordered */
	atomic_int bad_data;		/* a buffer changed or was wrong while written */
	atomic_int fail_at;		/* the run whose write fails; -1: none */
};

static void nap(unsigned int us)
{
	struct timespec ts = { 0, (long)us * 1000 };

	nanosleep(&ts, NULL);
}

/* Each buffer holds its run's number, in every word. */
static void fill(unsigned char *buf, unsigned int run)
{
	for (size_t i = 0; i < BUF; i += sizeof(run))
		memcpy(buf + i, &run, sizeof(run));
}

static bool holds(const unsigned char *buf, unsigned int run)
{
	unsigned int v;

	for (size_t i = 0; i < BUF; i += sizeof(run)) {
		memcpy(&v, buf + i, sizeof(v));
		if (v != run)
			return false;
	}
	return true;
}

static int write_run(void *ctx, const struct queued_run *run, struct tool_error *err)
{
	struct check *c = ctx;
	unsigned int k = (unsigned int)run->addr;

	if (k >= RUNS || !holds(run->buf, k))
		atomic_fetch_add(&c->bad_data, 1);
	if (k < RUNS && atomic_exchange(&c->next, (int)k + 1) != (int)k)
		atomic_store(&c->order_ok, 0);
	/* a slow writer, now and then: the caller then finds the buffers full */
	nap(k % 3 ? 50 : 400);
	if (k < RUNS && !holds(run->buf, k))
		atomic_fetch_add(&c->bad_data, 1);
	if (k < RUNS)
		atomic_fetch_add(&c->written[k], 1);
	if ((int)k == atomic_load(&c->fail_at))
		return tool_fail(err, 0, "run %u failed", k);
	return 0;
}

/* Push RUNS runs (or until the queue fails); the runs pushed. */
static int push_all(struct run_queue *q)
{
	unsigned char *buf;
	int k;

	for (k = 0; k < RUNS; k++) {
		buf = run_queue_buf(q);
		if (!buf)
			break;
		fill(buf, (unsigned int)k);
		nap(k % 5 ? 20 : 300);
		if (run_queue_push(q, (uint64_t)k, 1))
			break;
	}
	return k;
}

static void run(bool threaded)
{
	const char *name = threaded ? "threaded" : "unthreaded";
	struct check c = { .order_ok = 1, .fail_at = -1 };
	struct tool_error err = { 0 };
	struct run_queue *q;
	int once = 0, pushed;

	q = run_queue_open(BUF, write_run, &c, threaded);
	if (!tap_check(&t, q != NULL, "%s: opened", name))
		return;
	pushed = push_all(q);
	tap_check(&t, run_queue_close(q, &err) == 0 && pushed == RUNS, "%s: %d runs pushed, "
		  "closed without an error", name, pushed);
	for (int k = 0; k < RUNS; k++)
		once += atomic_load(&c.written[k]) == 1;
	tap_check(&t, once == RUNS, "%s: every run written once (%d)", name, once);
	tap_check(&t, atomic_load(&c.bad_data) == 0,
		  "%s: each from its own buffer, untouched while written", name);
	tap_check(&t, atomic_load(&c.order_ok), "%s: in push order", name);
}

static void run_failing(bool threaded)
{
	const char *name = threaded ? "threaded" : "unthreaded";
	struct check c = { .order_ok = 1, .fail_at = 37 };
	struct tool_error err = { 0 };
	struct run_queue *q;
	int pushed, ret;

	q = run_queue_open(BUF, write_run, &c, threaded);
	if (!q)
		return;
	pushed = push_all(q);
	ret = run_queue_close(q, &err);
	tap_check(&t, ret == -1 && strstr(err.msg, "run 37 failed") && pushed < RUNS,
		  "%s: a failed write stops the queue (%d runs pushed) and is reported: %s",
		  name, pushed, err.msg);
}

int main(void)
{
	run(true);
	run(false);
	run_failing(true);
	run_failing(false);
	return tap_done(&t);
}
