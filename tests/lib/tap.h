/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP producer for the test programs: one "ok"/"not ok" line per
 * check, a plan at the end, exit status 1 when any check failed.
 */
#ifndef CRIB_TAP_H
#define CRIB_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

struct tap {
	int run;
	int failed;
};

static inline bool tap_check(struct tap *t, bool cond, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline bool tap_check(struct tap *t, bool cond, const char *fmt, ...)
{
	va_list ap;

	t->run++;
	if (!cond)
		t->failed++;
	printf("%sok %d - ", cond ? "" : "not ", t->run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

/* A diagnostic line, shown by TAP consumers next to the results. */
#define tap_diag(...) do { printf("# "); printf(__VA_ARGS__); putchar('\n'); } while (0)

static inline int tap_done(struct tap *t)
{
	printf("1..%d\n", t->run);
	return t->failed ? 1 : 0;
}

#endif /* CRIB_TAP_H */
