// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with signal state: handlers with various flags and masks,
 * blocked signals pending for the process and for each of its two threads
 * (legacy and realtime ones, some with a sigqueue value), interval timers
 * and POSIX timers on several clocks, two of which have expired with
 * their signal blocked.  Every timer has a long period, so none fires
 * during a test.
 *
 *   signals DIR [foreign-timer | trap]
 *
 * It writes what it set up to DIR/truth (one fact per line, see
 * write_truth()), then "ready" to DIR/ready.  Once DIR/check appears it
 * checks that its state is still what it set up: the same signals pending
 * with the same siginfo in the same order (taking them off their queues),
 * every timer still armed.  It writes the verdict to DIR/check.ok or
 * DIR/check.bad and exits.
 *
 * With "foreign-timer" it also arms a timer on its parent's CPU-time
 * clock, which a snapshot cannot hold.  With "trap" SIGTRAP is caught,
 * blocked, and pending for the process and for each thread too: the
 * signal a restorer's own breakpoint raises.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "ready.h"

#define SEC		1000000000LL
#define N_TIMERS	8

/* struct sigaction as rt_sigaction(2) takes it. */
struct ksigaction {
	unsigned long handler;
	unsigned long flags;
	unsigned long restorer;
	unsigned long mask;
};

struct timer_spec {
	const char *name;
	clockid_t clock;
	int notify;		/* SIGEV_SIGNAL, SIGEV_NONE, SIGEV_THREAD_ID */
	int signo;
	long value;		/* sigev_value */
	long long first_ns;	/* 0: never armed */
	long long interval_ns;
	bool on_worker;		/* created by (and SIGEV_THREAD_ID to) the worker */
	bool expires;		/* fires once before the workload is ready */
	timer_t id;
};

static const char *dir;
static pid_t pid, main_tid, worker_tid;
static FILE *bad;		/* the check's findings */
static bool trap;		/* SIGTRAP caught, blocked and pending too */
static atomic_int stage;	/* 1: worker set up; 2: check asked; 3: worker checked */
static struct timer_spec timers[N_TIMERS];

static void on_signal(int sig)
{
	(void)sig;
}

static void on_siginfo(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(bad, fmt, ap);
	va_end(ap);
	fputc('\n', bad);
}

static int install(int sig, void (*handler)(int), void (*action)(int, siginfo_t *, void *),
		   int flags, int mask1, int mask2)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	if (action)
		sa.sa_sigaction = action;
	else
		sa.sa_handler = handler;
	sa.sa_flags = flags | (action ? SA_SIGINFO : 0);
	sigemptyset(&sa.sa_mask);
	if (mask1)
		sigaddset(&sa.sa_mask, mask1);
	if (mask2)
		sigaddset(&sa.sa_mask, mask2);
	return sigaction(sig, &sa, NULL);
}

static int install_handlers(void)
{
	return install(SIGUSR1, NULL, on_siginfo, SA_RESTART, SIGUSR2, SIGTERM) ||
	       install(SIGUSR2, on_signal, NULL, SA_NODEFER | SA_RESETHAND, 0, 0) ||
	       install(SIGTERM, on_signal, NULL, SA_ONSTACK, SIGINT, SIGQUIT) ||
	       install(SIGHUP, SIG_IGN, NULL, 0, 0, 0) ||
	       install(SIGPIPE, SIG_IGN, NULL, SA_RESTART, 0, 0) ||
	       install(SIGCHLD, SIG_DFL, NULL, SA_NOCLDSTOP, 0, 0) ||
	       install(SIGALRM, on_signal, NULL, 0, 0, 0) ||
	       install(SIGVTALRM, on_signal, NULL, 0, 0, 0) ||
	       install(SIGPROF, on_signal, NULL, 0, 0, 0) ||
	       install(SIGRTMIN + 1, NULL, on_siginfo, 0, SIGRTMIN + 2, 0) ||
	       install(SIGRTMIN + 3, NULL, on_siginfo, SA_RESTART, 0, 0) ||
	       install(SIGRTMIN + 4, on_signal, NULL, 0, 0, 0) ||
	       install(SIGRTMIN + 5, NULL, on_siginfo, 0, 0, 0) ||
	       install(SIGRTMIN + 6, NULL, on_siginfo, 0, 0, 0) ||
	       install(SIGRTMIN + 7, NULL, on_siginfo, 0, 0, 0) ||
	       install(SIGRTMIN + 8, NULL, on_siginfo, 0, 0, 0) ||
	       (trap && install(SIGTRAP, NULL, on_siginfo, SA_RESTART, 0, 0));
}

/* Blocked in both threads; the main thread blocks SIGRTMIN + 9 besides. */
static void blocked_set(sigset_t *set)
{
	static const int sigs[] = { SIGUSR1, SIGUSR2, SIGTERM, SIGINT, SIGALRM, SIGVTALRM,
				    SIGPROF };
	size_t i;

	sigemptyset(set);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(set, sigs[i]);
	for (i = 1; i <= 8; i++)
		sigaddset(set, SIGRTMIN + (int)i);
	if (trap)
		sigaddset(set, SIGTRAP);
}

static int queue_to(pid_t tid, int sig, long value)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = SI_QUEUE;
	si.si_pid = pid;
	si.si_uid = getuid();
	si.si_value.sival_ptr = (void *)value;
	return (int)syscall(SYS_rt_tgsigqueueinfo, pid, tid, sig, &si);
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static int arm_timer(const struct timer_spec *t)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = t->first_ns / SEC;
	its.it_value.tv_nsec = t->first_ns % SEC;
	its.it_interval.tv_sec = t->interval_ns / SEC;
	its.it_interval.tv_nsec = t->interval_ns % SEC;
	return timer_settime(t->id, 0, &its, NULL);
}

/* The timers that expire at once are armed later, once the other signals are queued. */
static int create_timer(struct timer_spec *t)
{
	struct sigevent ev;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = t->notify;
	ev.sigev_signo = t->signo;
	ev.sigev_value.sival_ptr = (void *)t->value;
	if (t->notify == SIGEV_THREAD_ID)
		ev._sigev_un._tid = worker_tid;
	if (timer_create(t->clock, &ev, &t->id))
		return -1;
	if (!t->first_ns || t->expires)
		return 0;
	return arm_timer(t);
}

#define TIMER(n, c, how, sig, val, first, iv, worker, once) \
	{ .name = (n), .clock = (c), .notify = (how), .signo = (sig), .value = (val), \
	  .first_ns = (first), .interval_ns = (iv), .on_worker = (worker), .expires = (once) }

static void define_timers(void)
{
	const struct timer_spec spec[N_TIMERS] = {
		TIMER("mono", CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGRTMIN + 5, 0x5555, 2000 * SEC,
		      100 * SEC, false, false),
		TIMER("real-thread", CLOCK_REALTIME, SIGEV_THREAD_ID, SIGRTMIN + 6, 0x6666,
		      3000 * SEC, 0, false, false),
		TIMER("boot-none", CLOCK_BOOTTIME, SIGEV_NONE, SIGRTMIN + 5, 0x7777, 1500 * SEC,
		      10 * SEC, false, false),
		TIMER("disarmed", CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGALRM, 0x8888, 0, 0, false,
		      false),
		TIMER("process-cpu", CLOCK_PROCESS_CPUTIME_ID, SIGEV_SIGNAL, SIGPROF, 0x9999,
		      600 * SEC, 60 * SEC, false, false),
		TIMER("thread-cpu", CLOCK_THREAD_CPUTIME_ID, SIGEV_THREAD_ID, SIGVTALRM, 0xaaaa,
		      700 * SEC, 0, true, false),
		TIMER("fired-once", CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGRTMIN + 7, 0xbbbb,
		      SEC / 1000, 0, false, true),
		TIMER("fired-periodic", CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGRTMIN + 8, 0xcccc,
		      SEC / 100, 1000 * SEC, false, true),
	};

	memcpy(timers, spec, sizeof(spec));
}

static int set_itimers(void)
{
	struct itimerval real = { { 500, 0 }, { 1000, 0 } };
	struct itimerval virt = { { 300, 0 }, { 900, 0 } };
	struct itimerval prof = { { 0, 0 }, { 800, 0 } };

	return setitimer(ITIMER_REAL, &real, NULL) || setitimer(ITIMER_VIRTUAL, &virt, NULL) ||
	       setitimer(ITIMER_PROF, &prof, NULL);
}

static bool is_pending(int sig)
{
	sigset_t set;

	sigpending(&set);
	return sigismember(&set, sig);
}

/* Thread-directed signals, then process-wide ones, in the order they queue. */
static int send_signals(void)
{
	union sigval v;

	if (syscall(SYS_tgkill, pid, worker_tid, SIGUSR2) ||
	    queue_to(worker_tid, SIGRTMIN + 3, 0x3333) ||
	    syscall(SYS_tgkill, pid, main_tid, SIGTERM) ||
	    queue_to(main_tid, SIGRTMIN + 4, 0x4444) ||
	    queue_to(main_tid, SIGRTMIN + 4, 0x4445))
		return -1;
	if (trap && (syscall(SYS_tgkill, pid, worker_tid, SIGTRAP) ||
		     syscall(SYS_tgkill, pid, main_tid, SIGTRAP) || kill(pid, SIGTRAP)))
		return -1;
	if (kill(pid, SIGUSR1) || kill(pid, SIGINT))
		return -1;
	v.sival_ptr = (void *)0x1111;
	if (sigqueue(pid, SIGRTMIN + 1, v))
		return -1;
	v.sival_ptr = (void *)0x2222;
	return sigqueue(pid, SIGRTMIN + 1, v);
}

static void write_truth(FILE *f)
{
	struct ksigaction k;
	int sig, i;

	fprintf(f, "pid %d\nthread main %d\nthread worker %d\n", pid, main_tid, worker_tid);
	for (sig = 1; sig <= 64; sig++) {
		if (syscall(SYS_rt_sigaction, sig, NULL, &k, 8))
			continue;
		if (k.handler || k.flags || k.restorer || k.mask)
			fprintf(f, "action %d %#lx %#lx %#lx %#lx\n", sig, k.handler, k.flags,
				k.restorer, k.mask);
	}
	fprintf(f, "rtmin %d\n", SIGRTMIN);
	fprintf(f, "itimer real 1000 500\nitimer virt 900 300\nitimer prof 800 0\n");
	for (i = 0; i < N_TIMERS; i++)
		fprintf(f, "timer %s %ld %d %d %d %#lx %d %lld %lld\n", timers[i].name,
			(long)(intptr_t)timers[i].id, timers[i].clock, timers[i].signo,
			timers[i].notify, timers[i].value,
			timers[i].notify == SIGEV_THREAD_ID ? worker_tid : 0,
			timers[i].first_ns, timers[i].interval_ns);
}

/* Take @sig off the calling thread's queues and check its siginfo. */
static void expect(const char *who, int sig, int code, long value)
{
	const struct timespec zero = { 0 };
	siginfo_t si;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	/* not glibc's sigtimedwait(), which reports SI_TKILL as SI_USER */
	if (syscall(SYS_rt_sigtimedwait, &set, &si, &zero, 8) != sig) {
		fail("%s: signal %d is not pending (%s)", who, sig, strerror(errno));
		return;
	}
	if (si.si_code != code)
		fail("%s: signal %d: si_code %d, want %d", who, sig, si.si_code, code);
	if (code == SI_USER || code == SI_TKILL || code == SI_QUEUE) {
		if (si.si_pid != pid)
			fail("%s: signal %d: si_pid %d, want %d", who, sig, si.si_pid, pid);
	}
	if ((code == SI_QUEUE || code == SI_TIMER) && (long)si.si_value.sival_ptr != value)
		fail("%s: signal %d: value %#lx, want %#lx", who, sig,
		     (long)si.si_value.sival_ptr, value);
}

static void expect_none_pending(const char *who)
{
	sigset_t set;
	int sig;

	sigpending(&set);
	for (sig = 1; sig <= 64; sig++)
		if (sigismember(&set, sig))
			fail("%s: signal %d pending too", who, sig);
}

/* CPU-time itimers are armed a tick late (set_cpu_itimer()): allow 10 ms more. */
static void check_itimer(int which, const char *name, long value_s, long interval_s)
{
	long long left, most = value_s * 1000000LL + (which == ITIMER_REAL ? 0 : 10000);
	struct itimerval v;

	getitimer(which, &v);
	if (v.it_interval.tv_sec != interval_s || v.it_interval.tv_usec)
		fail("%s: interval %ld.%06ld s, want %ld s", name, (long)v.it_interval.tv_sec,
		     (long)v.it_interval.tv_usec, interval_s);
	left = v.it_value.tv_sec * 1000000LL + v.it_value.tv_usec;
	if (left <= 0 || left > most)
		fail("%s: %lld us left, want some, at most %lld us", name, left, most);
}

static void check_timers(void)
{
	struct itimerspec its;
	long long left;
	int i;

	check_itimer(ITIMER_REAL, "ITIMER_REAL", 1000, 500);
	check_itimer(ITIMER_VIRTUAL, "ITIMER_VIRTUAL", 900, 300);
	check_itimer(ITIMER_PROF, "ITIMER_PROF", 800, 0);
	for (i = 0; i < N_TIMERS; i++) {
		const struct timer_spec *t = &timers[i];
		long long want_left = t->expires ? t->interval_ns : t->first_ns;

		if (timer_gettime(t->id, &its)) {
			fail("timer %s: %s", t->name, strerror(errno));
			continue;
		}
		left = its.it_value.tv_sec * SEC + its.it_value.tv_nsec;
		if (its.it_interval.tv_sec * SEC + its.it_interval.tv_nsec != t->interval_ns)
			fail("timer %s: another interval", t->name);
		if (want_left ? (left <= 0 || left > want_left) : left != 0)
			fail("timer %s: %lld ns left, want %s %lld", t->name, left,
			     want_left ? "some, at most" : "", want_left);
	}
}

/* The main thread's part of the check; signals for the process come here. */
static void check_main(void)
{
	expect("main", SIGTERM, SI_TKILL, 0);
	expect("main", SIGRTMIN + 4, SI_QUEUE, 0x4444);
	expect("main", SIGRTMIN + 4, SI_QUEUE, 0x4445);
	expect("process", SIGUSR1, SI_USER, 0);
	expect("process", SIGINT, SI_USER, 0);
	expect("process", SIGRTMIN + 1, SI_QUEUE, 0x1111);
	expect("process", SIGRTMIN + 1, SI_QUEUE, 0x2222);
	expect("process", SIGRTMIN + 7, SI_TIMER, 0xbbbb);
	expect("process", SIGRTMIN + 8, SI_TIMER, 0xcccc);
	if (trap) {
		struct sigaction sa;

		expect("main", SIGTRAP, SI_TKILL, 0);
		expect("process", SIGTRAP, SI_USER, 0);
		if (sigaction(SIGTRAP, NULL, &sa) || sa.sa_sigaction != on_siginfo)
			fail("SIGTRAP: its handler is gone");
	}
	expect_none_pending("main");
}

static void check_worker(void)
{
	expect("worker", SIGUSR2, SI_TKILL, 0);
	expect("worker", SIGRTMIN + 3, SI_QUEUE, 0x3333);
	if (trap)
		expect("worker", SIGTRAP, SI_TKILL, 0);
}

static void *worker(void *arg)
{
	const struct timespec nap = { 0, 20000000 };
	int i;

	(void)arg;
	pthread_setname_np(pthread_self(), "sig-worker");
	worker_tid = gettid_();
	for (i = 0; i < N_TIMERS; i++)
		if (timers[i].on_worker && create_timer(&timers[i]))
			exit(1);
	atomic_store(&stage, 1);
	while (atomic_load(&stage) != 2)
		nanosleep(&nap, NULL);
	check_worker();
	atomic_store(&stage, 3);
	return NULL;
}

static bool file_exists(const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static int foreign_timer(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_NONE };
	struct itimerspec its = { .it_value = { 3600, 0 } };
	clockid_t clock;
	timer_t id;

	if (clock_getcpuclockid(getppid(), &clock) || timer_create(clock, &ev, &id))
		return -1;
	return timer_settime(id, 0, &its, NULL);
}

static int set_up(bool foreign)
{
	const struct timespec nap = { 0, 1000000 };
	pthread_t t;
	sigset_t set;
	int i;

	pid = getpid();
	main_tid = gettid_();
	define_timers();
	if (install_handlers())
		return -1;
	blocked_set(&set);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		return -1;
	if (pthread_create(&t, NULL, worker, NULL))
		return -1;
	while (atomic_load(&stage) != 1)
		nanosleep(&nap, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 9);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (i = 0; i < N_TIMERS; i++)
		if (!timers[i].on_worker && create_timer(&timers[i]))
			return -1;
	if (set_itimers() || send_signals() || (foreign && foreign_timer()))
		return -1;
	/* the two short timers, in this order; they fired once their signals are pending */
	for (i = 0; i < N_TIMERS; i++)
		if (timers[i].expires && arm_timer(&timers[i]))
			return -1;
	while (!is_pending(SIGRTMIN + 7) || !is_pending(SIGRTMIN + 8))
		nanosleep(&nap, NULL);
	pthread_detach(t);
	return 0;
}

int main(int argc, char **argv)
{
	const struct timespec nap = { 0, 50000000 };
	char path[4096], verdict[4096];
	FILE *f;

	if (argc < 2 || argc > 3 ||
	    (argc == 3 && strcmp(argv[2], "foreign-timer") && strcmp(argv[2], "trap"))) {
		fprintf(stderr, "usage: signals DIR [foreign-timer | trap]\n");
		return 2;
	}
	dir = argv[1];
	trap = argc == 3 && !strcmp(argv[2], "trap");
	if (set_up(argc == 3 && !trap)) {
		perror("signals: setting up");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/truth", dir);
	f = fopen(path, "w");
	if (!f)
		return 1;
	write_truth(f);
	if (fclose(f))
		return 1;
	snprintf(path, sizeof(path), "%s/ready", dir);
	if (write_ready(path, "ready\n"))
		return 1;

	while (!file_exists("check"))
		nanosleep(&nap, NULL);
	bad = tmpfile();
	if (!bad)
		return 1;
	check_timers();
	atomic_store(&stage, 2);
	while (atomic_load(&stage) != 3)
		nanosleep(&nap, NULL);
	check_main();
	rewind(bad);
	memset(verdict, 0, sizeof(verdict));
	fread(verdict, 1, sizeof(verdict) - 1, bad);
	snprintf(path, sizeof(path), "%s/check.%s", dir, verdict[0] ? "bad" : "ok");
	return write_ready(path, verdict[0] ? verdict : "ok\n") ? 1 : 0;
}
