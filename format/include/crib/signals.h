/* SPDX-License-Identifier: GPL-2.0-only */
/* Signal handlers, process-wide pending signals, timers. */
#ifndef CRIB_SIGNALS_H
#define CRIB_SIGNALS_H

#include <stddef.h>
#include <stdint.h>

#include <crib/types.h>

struct crib_writer;
struct crib_siginfo;

struct crib_sigaction {
	uint64_t signo;
	uint64_t handler;		/* SIG_DFL 0, SIG_IGN 1, else an address */
	uint64_t flags;			/* SA_* */
	uint64_t restorer;
	uint64_t mask;
};

struct crib_sighand {
	uint64_t pid;
	const struct crib_sigaction *actions;	/* only non-default ones */
	size_t n_actions;
};

struct crib_sigpending {
	uint64_t pid;
	const struct crib_siginfo *signals;
	size_t n_signals;
};

struct crib_itimer {
	uint64_t interval_ns;
	uint64_t value_ns;		/* time left when dumped; 0 when disarmed */
};

struct crib_posix_timer {
	uint64_t id;
	int64_t clockid;		/* CPU-time clocks name their thread; pid 0 is the process */
	uint64_t signo;
	uint64_t notify;		/* SIGEV_* */
	uint64_t sigev_value;
	uint64_t notify_tid;
	uint64_t interval_ns;
	uint64_t value_ns;		/* time left when dumped; 0 when disarmed */
	uint64_t overrun;		/* timer_getoverrun(2) */
};

struct crib_timers {
	uint64_t pid;
	struct crib_itimer real;
	struct crib_itimer virt;
	struct crib_itimer prof;
	const struct crib_posix_timer *posix;
	size_t n_posix;
};

extern const struct crib_struct_desc crib_sighand_desc;
extern const struct crib_struct_desc crib_sigpending_desc;
extern const struct crib_struct_desc crib_timers_desc;

int crib_write_sighand(struct crib_writer *w, const struct crib_sighand *s);
int crib_write_sigpending(struct crib_writer *w, const struct crib_sigpending *s);
int crib_write_timers(struct crib_writer *w, const struct crib_timers *t);

#endif /* CRIB_SIGNALS_H */
