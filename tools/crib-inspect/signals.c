// SPDX-License-Identifier: GPL-2.0-only
/*
 * The summary of signal state: handlers, pending signals (the process's
 * and each thread's), interval and POSIX timers.  Numbers are Linux's
 * (signal numbers, SA_*, si_code, clock ids); the raw values are printed
 * along with the names.
 */
#include <inttypes.h>
#include <string.h>

#include "inspect.h"

#define NSIG_		64
#define SIGINFO_MIN	32	/* bytes of siginfo the decoder looks at */

static const char *const signal_names[32] = {
	[1] = "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1",
	"SEGV", "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP",
	"TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
};

static const struct {
	uint64_t bit;
	const char *name;
} sa_flags[] = {
	{ 0x00000001, "NOCLDSTOP" }, { 0x00000002, "NOCLDWAIT" }, { 0x00000004, "SIGINFO" },
	{ 0x00000400, "UNSUPPORTED" }, { 0x00000800, "EXPOSE_TAGBITS" },
	{ 0x04000000, "RESTORER" }, { 0x08000000, "ONSTACK" }, { 0x10000000, "RESTART" },
	{ 0x40000000, "NODEFER" }, { 0x80000000, "RESETHAND" },
};

/* "USR1" for the classic signals, "35" for the others. */
static const char *signal_name(uint64_t sig, char *buf, size_t len)
{
	if (sig < 32 && signal_names[sig])
		return signal_names[sig];
	snprintf(buf, len, "%" PRIu64, sig);
	return buf;
}

static void print_signal(uint64_t sig)
{
	char buf[24];

	printf("%s", signal_name(sig, buf, sizeof(buf)));
}

static void print_sigset(uint64_t mask)
{
	bool first = true;

	for (uint64_t sig = 1; sig <= NSIG_; sig++) {
		if (!(mask & (1ull << (sig - 1))))
			continue;
		printf("%s", first ? "" : ",");
		print_signal(sig);
		first = false;
	}
	if (first)
		printf("-");
}

static void print_sa_flags(uint64_t flags)
{
	uint64_t rest = flags;
	bool first = true;

	for (size_t i = 0; i < sizeof(sa_flags) / sizeof(sa_flags[0]); i++) {
		if (!(flags & sa_flags[i].bit))
			continue;
		printf("%s%s", first ? "" : ",", sa_flags[i].name);
		rest &= ~sa_flags[i].bit;
		first = false;
	}
	if (rest)
		printf("%s0x%" PRIx64, first ? "" : ",", rest);
	else if (first)
		printf("-");
}

void print_sighand(const struct crib_sighand *h)
{
	printf("  signal handlers: %zu%s\n", h->n_actions, h->n_actions ? "" : " (all default)");
	for (size_t i = 0; i < h->n_actions; i++) {
		const struct crib_sigaction *a = &h->actions[i];
		char buf[24];

		printf("    %-7s ", signal_name(a->signo, buf, sizeof(buf)));
		if (a->handler == 0)
			printf("%-16s", "default");
		else if (a->handler == 1)
			printf("%-16s", "ignore");
		else
			printf("0x%-14" PRIx64, a->handler);
		printf(" flags 0x%08" PRIx64 " (", a->flags);
		print_sa_flags(a->flags);
		printf(")  mask ");
		print_sigset(a->mask);
		if (a->restorer)
			printf("  restorer 0x%" PRIx64, a->restorer);
		putchar('\n');
	}
}

static int32_t s32_at(const uint8_t *p, size_t off)
{
	int32_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static uint64_t u64_at(const uint8_t *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static const char *si_code_name(int32_t code)
{
	switch (code) {
	case 0: return "SI_USER";
	case 0x80: return "SI_KERNEL";
	case -1: return "SI_QUEUE";
	case -2: return "SI_TIMER";
	case -3: return "SI_MESGQ";
	case -4: return "SI_ASYNCIO";
	case -5: return "SI_SIGIO";
	case -6: return "SI_TKILL";
	default: return NULL;
	}
}

/* One queued signal: what its siginfo says, by the layout its si_code implies. */
static void print_siginfo(const struct crib_siginfo *si)
{
	const uint8_t *b = si->info.data;
	const char *name;
	int32_t code;

	printf("      ");
	print_signal(si->signo);
	if (si->info.len < SIGINFO_MIN) {
		printf("  siginfo of %zu bytes\n", si->info.len);
		return;
	}
	code = s32_at(b, 8);
	name = si_code_name(code);
	if (name)
		printf("  %s", name);
	else
		printf("  code %" PRId32, code);
	switch (code) {
	case 0:		/* SI_USER, SI_TKILL: _kill */
	case -6:
		printf(" from pid %" PRId32 " uid %" PRIu32, s32_at(b, 16), (uint32_t)s32_at(b, 20));
		break;
	case -1:	/* SI_QUEUE, SI_MESGQ, SI_ASYNCIO: _rt */
	case -3:
	case -4:
		printf(" from pid %" PRId32 " uid %" PRIu32 " value 0x%" PRIx64, s32_at(b, 16),
		       (uint32_t)s32_at(b, 20), u64_at(b, 24));
		break;
	case -2:	/* SI_TIMER: _timer */
		printf(" timer %" PRId32 " overrun %" PRId32 " value 0x%" PRIx64, s32_at(b, 16),
		       s32_at(b, 20), u64_at(b, 24));
		break;
	default:
		if (code > 0 && si->signo == 17)	/* SIGCHLD: _sigchld */
			printf(" pid %" PRId32 " status %" PRId32, s32_at(b, 16), s32_at(b, 24));
		else if (code > 0 && code != 0x80)	/* faults: _sigfault */
			printf(" addr 0x%" PRIx64, u64_at(b, 16));
		break;
	}
	if (s32_at(b, 4))
		printf(" errno %" PRId32, s32_at(b, 4));
	putchar('\n');
}

void print_siginfo_list(const struct crib_siginfo *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		print_siginfo(&list[i]);
}

void print_sigpending(const struct crib_sigpending *p)
{
	printf("  pending for the process: %zu signal%s\n", p->n_signals,
	       p->n_signals == 1 ? "" : "s");
	print_siginfo_list(p->signals, p->n_signals);
}

static void print_left(uint64_t value_ns, uint64_t interval_ns)
{
	if (!value_ns)
		printf("disarmed");
	else
		printf("%" PRIu64 ".%09" PRIu64 " s left", value_ns / 1000000000,
		       value_ns % 1000000000);
	if (interval_ns)
		printf(", every %" PRIu64 ".%09" PRIu64 " s", interval_ns / 1000000000,
		       interval_ns % 1000000000);
}

static void print_clock(int64_t clock)
{
	static const char *const cpu_clocks[] = { "profiling", "virtual", "scheduler" };
	static const char *const clocks[] = {
		[0] = "CLOCK_REALTIME", [1] = "CLOCK_MONOTONIC", [7] = "CLOCK_BOOTTIME",
		[8] = "CLOCK_REALTIME_ALARM", [9] = "CLOCK_BOOTTIME_ALARM", [11] = "CLOCK_TAI",
	};
	int64_t pid;

	if (clock >= 0 && clock < 12 && clocks[clock]) {
		printf("%s", clocks[clock]);
		return;
	}
	if (clock >= 0 || (clock & 3) == 3) {
		printf("clock %" PRId64, clock);
		return;
	}
	pid = ~(clock >> 3);
	printf("%s CPU time of ", cpu_clocks[clock & 3]);
	if (clock & 4)
		printf("thread %" PRId64, pid);
	else if (pid)
		printf("process %" PRId64, pid);
	else
		printf("the process");
}

static void print_posix_timer(const struct crib_posix_timer *t)
{
	printf("    POSIX timer %" PRIu64 ": ", t->id);
	print_clock(t->clockid);
	switch (t->notify) {
	case 1:		/* SIGEV_NONE */
		printf(", no signal");
		break;
	case 4:		/* SIGEV_THREAD_ID */
		printf(", signal ");
		print_signal(t->signo);
		printf(" to thread %" PRIu64, t->notify_tid);
		break;
	default:
		printf(", signal ");
		print_signal(t->signo);
		printf(" to the process");
		if (t->notify)
			printf(" (notify %" PRIu64 ")", t->notify);
		break;
	}
	printf(", value 0x%" PRIx64 ", ", t->sigev_value);
	print_left(t->value_ns, t->interval_ns);
	if (t->overrun)
		printf(", overrun %" PRIu64, t->overrun);
	putchar('\n');
}

void print_timers(const struct crib_timers *t)
{
	printf("  timers:\n    ITIMER_REAL: ");
	print_left(t->real.value_ns, t->real.interval_ns);
	printf("\n    ITIMER_VIRTUAL: ");
	print_left(t->virt.value_ns, t->virt.interval_ns);
	printf("\n    ITIMER_PROF: ");
	print_left(t->prof.value_ns, t->prof.interval_ns);
	putchar('\n');
	for (size_t i = 0; i < t->n_posix; i++)
		print_posix_timer(&t->posix[i]);
}
