/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A workload's self-check on request: once set up it waits for SIGUSR1,
 * checks its own state, and writes its report to DIR/check: "ok", or a
 * line for each thing that failed.
 */
#ifndef CRIB_SELFCHECK_H
#define CRIB_SELFCHECK_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ready.h"

struct check_report {
	char text[8192];
};

/* Add a line to @r, as much of it as fits. */
static inline void check_fail(struct check_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void check_fail(struct check_report *r, const char *fmt, ...)
{
	size_t used = strlen(r->text);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->text + used, sizeof(r->text) - used, fmt, ap);
	va_end(ap);
	used = strlen(r->text);
	if (used + 1 < sizeof(r->text))
		strcat(r->text, "\n");
}

/* Write @r to DIR/check, "ok" when nothing failed. */
static inline int check_write(const struct check_report *r, const char *dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/check", dir);
	return write_ready(path, r->text[0] ? r->text : "ok\n");
}

/* Set by SIGUSR1 only: the signal handler's one way to say it came. */
static volatile sig_atomic_t check_requested;

static void on_check_request(int sig)
{
	(void)sig;
	check_requested = 1;
}

/* Before setting up: SIGUSR1 then asks for the check instead of killing. */
static inline void check_on_request(void)
{
	signal(SIGUSR1, on_check_request);
}

/* Sleep until SIGUSR1 has asked for the check (perhaps already). */
static inline void check_wait_for_request(void)
{
	sigset_t mask, old;

	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, &old);
	while (!check_requested)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

#endif /* CRIB_SELFCHECK_H */
