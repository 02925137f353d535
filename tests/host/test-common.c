// SPDX-License-Identifier: GPL-2.0
/*
 * tools/common, what every tool builds on: the first error wins and
 * names its errno; arrays grow and keep what they hold; the progress
 * meter stays silent for a second, then draws a line it redraws in
 * place, and erases it; the seccomp filters all threads share come
 * first, and one shared past them is found; a ring's items are consumed
 * once each, in order, drained on demand, and a failure stops it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "progress.h"
#include "ring.h"
#include "seccomp_share.h"
#include "tap.h"

static struct tap t;

static void test_error(void)
{
	struct tool_error err = { 0 }, cause = { 0 };

	tap_check(&t, !tool_failed(&err), "a new error holds no failure");
	tap_check(&t, tool_fail(&err, ENOENT, "cannot open %s", "/x") == -1 &&
		  !strcmp(err.msg, "cannot open /x: No such file or directory") &&
		  err.errnum == ENOENT, "the failure, then what its errno says: \"%s\"", err.msg);
	tap_check(&t, tool_fail(&err, EPERM, "a consequence") == -1 &&
		  !strcmp(err.msg, "cannot open /x: No such file or directory") &&
		  err.errnum == ENOENT, "a later failure does not replace the first");
	tool_error_append(&err, "; %s", "nothing was left");
	tap_check(&t, !strcmp(err.msg, "cannot open /x: No such file or directory; nothing was left"),
		  "what followed from it is added to it");
	tool_error_clear(&err);
	tap_check(&t, !tool_failed(&err) && !err.errnum, "a cleared error holds no failure");
	tool_fail(&cause, 0, "the table cannot be made");
	tap_check(&t, tool_fail_with(&err, &cause) == -1 &&
		  !strcmp(err.msg, "the table cannot be made") && !err.errnum,
		  "a failure passed on as it was, without an errno");
}

struct point {
	int x, y;
};

static void test_array(void)
{
	struct { ARRAY(struct point); } a = { 0 };
	struct point *p;
	bool kept = true;
	int i;

	for (i = 0; i < 1000; i++) {
		p = array_push(&a);
		if (!p || p->x || p->y)
			break;
		p->x = i;
		p->y = -i;
	}
	for (int j = 0; j < 1000 && kept; j++)
		kept = a.items[j].x == j && a.items[j].y == -j;
	tap_check(&t, i == 1000 && a.n == 1000 && a.cap >= 1000 && kept &&
		  array_last(&a)->x == 999, "1000 pushes, each zeroed, all kept in order");
	tap_check(&t, !array_reserve(&a, 5000) && a.cap >= 6000 && a.n == 1000 &&
		  a.items[500].x == 500, "room for 5000 more, nothing moved out");
	tap_check(&t, array_reserve(&a, SIZE_MAX / 2) == -ENOMEM && a.n == 1000 &&
		  a.items[999].x == 999, "room that cannot be had: -ENOMEM, the array as it was");
	array_free(&a);
	tap_check(&t, !a.items && !a.n && !a.cap, "freed, empty");
}

static void test_progress(void)
{
	struct progress p;
	char *text = NULL;
	size_t len = 0, before;
	FILE *out;

	progress_init(&p, "crib-test", true);
	tap_check(&t, !p.on, "quiet: no meter");
	progress_init(&p, "crib-test", false);
	out = open_memstream(&text, &len);
	if (!out)
		abort();
	p.out = out;
	p.on = true;		/* as on a terminal */
	progress_begin(&p, 1);
	progress_process(&p, 1, 4 << 20);
	progress_add(&p, 1 << 20);
	fflush(out);
	tap_check(&t, len == 0, "nothing shown in a run's first second");
	p.start_ns -= 2000000000ULL;	/* the run began two seconds ago ... */
	p.first_ns -= 1000000000ULL;	/* ... its first MiB came one second ago */
	progress_add(&p, 1 << 20);
	fflush(out);
	tap_check(&t, len && strstr(text, "\rcrib-test: process 1 of 1, 2.0 of 4.0 MiB, ") &&
		  strstr(text, " MiB/s\033[K"),
		  "then a line drawn in place: process, MiB done of MiB to go, rate");
	before = len;
	progress_add(&p, 1 << 20);
	fflush(out);
	tap_check(&t, len == before, "not redrawn within a quarter of a second");
	progress_hide(&p);
	fflush(out);
	tap_check(&t, len == before + 4 && !strcmp(text + before, "\r\033[K"),
		  "hidden: the line is erased, for other output");
	p.drawn_ns -= 1000000000ULL;
	progress_add(&p, 1 << 20);
	fflush(out);
	tap_check(&t, len > before + 4 && strstr(text + before + 4, "4.0 of 4.0 MiB"),
		  "the next update draws it again");
	before = len;
	progress_end(&p);
	progress_add(&p, 1 << 20);
	fflush(out);
	tap_check(&t, !strcmp(text + before, "\r\033[K"), "ended: erased, and silent after");
	fclose(out);
	free(text);
}

/* Threads as rows of filter identities, the first installed first; 0 ends a row. */
struct chains {
	uint64_t f[3][4];
};

static size_t chain_count(const void *ctx, size_t k)
{
	const struct chains *c = ctx;
	size_t n = 0;

	while (n < 4 && c->f[k][n])
		n++;
	return n;
}

static uint64_t chain_filter(const void *ctx, size_t k, size_t i)
{
	const struct chains *c = ctx;

	return c->f[k][i];
}

static void test_seccomp_share(void)
{
	struct chains own = { { { 1, 2, 5 }, { 1, 2, 6 }, { 1, 2 } } };
	struct chains shared = { { { 1, 7 }, { 1, 8 }, { 1, 8 } } };
	struct chains none = { { { 0 }, { 3 }, { 0 } } };
	struct seccomp_threads st = { .n = 3, .ctx = &own, .count = chain_count,
				      .filter = chain_filter };
	size_t a = 9, b = 9, i = 9;

	tap_check(&t, seccomp_shared_prefix(&st) == 2 &&
		  !seccomp_shared_past(&st, 2, &a, &b, &i),
		  "two filters shared by all, then each thread's own");
	st.ctx = &shared;
	tap_check(&t, seccomp_shared_prefix(&st) == 1 &&
		  seccomp_shared_past(&st, 1, &a, &b, &i) && a == 1 && b == 2 && i == 1,
		  "a filter two threads of three share past the prefix is found");
	st.ctx = &none;
	tap_check(&t, seccomp_shared_prefix(&st) == 0 &&
		  !seccomp_shared_past(&st, 0, &a, &b, &i),
		  "one thread's own filter, none shared");
	st.n = 0;
	tap_check(&t, seccomp_shared_prefix(&st) == 0, "no threads, no prefix");
}

/* Items consumed: how many, whether in order, and the one that fails (0: none). */
struct ring_check {
	int consumed, next, fail_at;
	bool in_order;
};

static int consume_one(void *ctx, void *item, struct tool_error *err)
{
	struct ring_check *c = ctx;
	int v = *(int *)item;

	if (v == c->fail_at)
		return tool_fail(err, 0, "item %d refused", v);
	c->in_order &= v == c->next;
	c->next = v + 1;
	c->consumed++;
	return 0;
}

/* Push @n items numbered from 1; returns the push that failed, or 0. */
static int push_all(struct ring *r, int n)
{
	int *slot, v;

	for (v = 1; v <= n; v++) {
		slot = ring_slot(r);
		if (!slot)
			return v;
		*slot = v;
		if (ring_push(r))
			return v;
	}
	return 0;
}

static void test_ring(void)
{
	struct ring_check c = { .next = 1, .in_order = true };
	struct tool_error err = { 0 };
	struct ring *r;
	bool threaded;
	int *slot, v;

	for (int pass = 0; pass < 2; pass++) {
		c = (struct ring_check){ .next = 1, .in_order = true };
		r = ring_open(sizeof(int), 3, consume_one, &c, pass == 1);
		threaded = r && ring_threaded(r);
		for (v = 1; r && v <= 1000; v++) {
			slot = ring_slot(r);
			*slot = v;
			ring_push(r);
		}
		if (r)
			ring_drain(r);
		tap_check(&t, r && c.consumed == 1000 && c.in_order,
			  "ring%s: every item consumed once, in order, by the drain",
			  threaded ? " with a thread" : " without a thread");
		tap_check(&t, r && !ring_close(r, &err), "ring%s: closes without an error",
			  threaded ? " with a thread" : " without a thread");
	}
	c = (struct ring_check){ .next = 1, .in_order = true, .fail_at = 10 };
	r = ring_open(sizeof(int), 3, consume_one, &c, true);
	v = r ? push_all(r, 1000) : 0;
	tap_check(&t, r && v > 10 && v < 1000 && ring_close(r, &err) == -1 &&
		  !strcmp(err.msg, "item 10 refused") && c.consumed == 9,
		  "ring: a failed item stops it and is told at the close");
}

int main(void)
{
	test_error();
	test_array();
	test_progress();
	test_seccomp_share();
	test_ring();
	return tap_done(&t);
}
