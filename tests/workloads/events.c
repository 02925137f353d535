// SPDX-License-Identifier: GPL-2.0
/*
 * A workload waiting in epoll on event files of every kind, and a
 * self-check that they all behave as they did.
 *
 *   events DIR [WATCHED]
 *
 * It holds: a pipe, a UNIX stream pair, an eventfd made with
 * EFD_SEMAPHORE holding 5, an eventfd holding more than 32 bits, a
 * signalfd for SIGUSR2 and SIGRTMIN+1 with SIGUSR2 pending, a one-shot
 * timerfd on CLOCK_MONOTONIC due TIMER_SECONDS after setup, a periodic
 * timerfd on CLOCK_BOOTTIME, a CLOCK_REALTIME timerfd armed with
 * TFD_TIMER_ABSTIME an hour ahead, a one-shot timerfd that has expired
 * once, unread, and an epoll instance watching the pipe, the pair's
 * socket (edge-triggered), the eventfds (one under a descriptor since
 * closed, one with EPOLLEXCLUSIVE), the signalfd (EPOLLONESHOT), a
 * timerfd, a second epoll instance (watching an eventfd of its own), and
 * an eventfd only its child holds, with 1 in it.  And an inotify
 * instance watching WATCHED (DIR/watched by default; IN_CREATE,
 * IN_DELETE) and the file WATCHED/file (IN_MODIFY, IN_ONESHOT) under
 * watch descriptors 2 and 3 (1 was removed), with two events unread.  The descriptors go to
 * DIR/fds, as "name fd" lines, then DIR/ready.
 *
 * On SIGUSR1 it checks, and writes "ok" or what failed to DIR/check: the
 * files ready in the epoll are exactly those that were, and the pipe, the
 * socket and the inner epoll's eventfd wake it when written; the
 * one-shot signalfd reports once; the counts, the signal and the
 * expiration read back; the epoll knows its items by the descriptors
 * they were added under; the one-shot timer fires when timerfd_gettime()
 * said it would, within TIMER_SLACK_MS; the inotify watches report a
 * file made and removed in the directory and a write to the file under
 * their own descriptors, the file's watch once.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "ready.h"
#include "selfcheck.h"

#define TIMER_SECONDS	30
#define TIMER_SLACK_MS	400
#define BIG_COUNT	0x123456789ull
#define MAX_READY	16

enum item_data {
	DATA_PIPE = 1, DATA_SOCKET, DATA_SEMAPHORE, DATA_TIMER, DATA_SIGNAL, DATA_INNER,
	DATA_CLOSED, DATA_EXCLUSIVE, DATA_CHILD,
};

struct fds {
	int pipe[2], pair[2], semaphore, big, inner_efd, child_efd;
	int signal, timer, periodic, absolute, expired;
	int epoll, inner, closed;	/* closed: the number the big eventfd was added under */
	int inotify, dir_wd, file_wd;
	char watched[4096];		/* DIR/watched */
};

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void add(int epoll, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };

	if (epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &ev))
		die("epoll_ctl");
}

static void arm(int fd, int flags, time_t value, long value_ns, time_t interval)
{
	struct itimerspec its = {
		.it_value = { value, value_ns },
		.it_interval = { interval, 0 },
	};

	if (timerfd_settime(fd, flags, &its, NULL))
		die("timerfd_settime");
}

static void make_timers(struct fds *f)
{
	struct pollfd pfd;
	struct timespec now;

	f->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	f->periodic = timerfd_create(CLOCK_BOOTTIME, 0);
	f->absolute = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);
	f->expired = timerfd_create(CLOCK_MONOTONIC, 0);
	if (f->timer < 0 || f->periodic < 0 || f->absolute < 0 || f->expired < 0)
		die("timerfd_create");
	arm(f->timer, 0, TIMER_SECONDS, 0, 0);
	arm(f->periodic, 0, 3600, 0, 1800);
	clock_gettime(CLOCK_REALTIME, &now);
	arm(f->absolute, TFD_TIMER_ABSTIME, now.tv_sec + 3600, 0, 0);
	arm(f->expired, 0, 0, 1000000, 0);
	/* its expiration waits, unread: poll() does not consume it */
	pfd = (struct pollfd){ .fd = f->expired, .events = POLLIN };
	if (poll(&pfd, 1, 5000) != 1)
		die("poll on an expiring timerfd");
}

/* A child holding an eventfd with 1 in it, the only one holding it once the parent closed it. */
static void make_child_efd(struct fds *f)
{
	uint64_t one = 1;
	pid_t pid;

	f->child_efd = eventfd(0, EFD_NONBLOCK);
	if (f->child_efd < 0 || write(f->child_efd, &one, sizeof(one)) != sizeof(one))
		die("eventfd");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
}

static void touch(const char *dir, const char *name)
{
	char path[4096 + 64];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die(path);
	close(fd);
}

/* Watches 2 and 3 on @watched, the first one removed, and two events left unread. */
static void make_inotify(struct fds *f, const char *dir, const char *watched)
{
	char file[4096 + 16];
	int wd;

	if (watched)
		snprintf(f->watched, sizeof(f->watched), "%s", watched);
	else
		snprintf(f->watched, sizeof(f->watched), "%s/watched", dir);
	snprintf(file, sizeof(file), "%s/file", f->watched);
	if (mkdir(f->watched, 0755) && errno != EEXIST)
		die(f->watched);
	touch(f->watched, "file");
	f->inotify = inotify_init1(IN_NONBLOCK);
	if (f->inotify < 0)
		die("inotify_init1");
	wd = inotify_add_watch(f->inotify, dir, IN_CREATE);
	if (wd < 0 || inotify_rm_watch(f->inotify, wd))
		die("inotify watch 1");
	f->dir_wd = inotify_add_watch(f->inotify, f->watched, IN_CREATE | IN_DELETE);
	f->file_wd = inotify_add_watch(f->inotify, file, IN_MODIFY | IN_ONESHOT);
	if (f->dir_wd < 0 || f->file_wd < 0)
		die("inotify_add_watch");
	touch(f->watched, "queued");
}

static void set_up(struct fds *f, const char *dir, const char *watched)
{
	sigset_t mask;
	int dup_big;

	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGRTMIN + 1);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		die("sigprocmask");
	if (pipe2(f->pipe, O_NONBLOCK) || socketpair(AF_UNIX, SOCK_STREAM, 0, f->pair))
		die("pipe");
	f->semaphore = eventfd(5, EFD_SEMAPHORE | EFD_NONBLOCK | EFD_CLOEXEC);
	f->big = eventfd(0, EFD_NONBLOCK);
	f->inner_efd = eventfd(0, EFD_NONBLOCK);
	f->signal = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	f->epoll = epoll_create1(EPOLL_CLOEXEC);
	f->inner = epoll_create1(0);
	if (f->semaphore < 0 || f->big < 0 || f->inner_efd < 0 || f->signal < 0 ||
	    f->epoll < 0 || f->inner < 0)
		die("event files");
	if (write(f->big, &(uint64_t){ BIG_COUNT }, 8) != 8)
		die("write eventfd");
	make_timers(f);
	make_child_efd(f);
	make_inotify(f, dir, watched);
	kill(getpid(), SIGUSR2);

	add(f->inner, f->inner_efd, EPOLLIN, 0x77);
	add(f->epoll, f->pipe[0], EPOLLIN, DATA_PIPE);
	add(f->epoll, f->pair[0], EPOLLIN | EPOLLET, DATA_SOCKET);
	add(f->epoll, f->semaphore, EPOLLIN, DATA_SEMAPHORE);
	add(f->epoll, f->timer, EPOLLIN, DATA_TIMER);
	add(f->epoll, f->signal, EPOLLIN | EPOLLONESHOT, DATA_SIGNAL);
	add(f->epoll, f->inner, EPOLLIN, DATA_INNER);
	add(f->epoll, f->big, EPOLLIN | EPOLLEXCLUSIVE, DATA_EXCLUSIVE);
	add(f->epoll, f->child_efd, EPOLLIN, DATA_CHILD);
	/* the big eventfd once more, under a descriptor closed since */
	dup_big = dup(f->big);
	if (dup_big < 0)
		die("dup");
	add(f->epoll, dup_big, EPOLLIN, DATA_CLOSED);
	close(dup_big);
	f->closed = dup_big;
	close(f->child_efd);
}

static int write_fds(const struct fds *f, const char *dir)
{
	char path[4096], text[1024];

	snprintf(text, sizeof(text),
		 "pipe_read %d\npipe_write %d\npair %d\npair_peer %d\nsemaphore %d\nbig %d\n"
		 "inner_efd %d\nchild_efd %d\nsignal %d\ntimer %d\nperiodic %d\nabsolute %d\n"
		 "expired %d\nepoll %d\ninner %d\nclosed %d\ninotify %d\n",
		 f->pipe[0], f->pipe[1], f->pair[0], f->pair[1], f->semaphore, f->big,
		 f->inner_efd, f->child_efd, f->signal, f->timer, f->periodic, f->absolute,
		 f->expired, f->epoll, f->inner, f->closed, f->inotify);
	snprintf(path, sizeof(path), "%s/fds", dir);
	if (write_ready(path, text))
		return -1;
	snprintf(path, sizeof(path), "%s/ready", dir);
	return write_ready(path, "ready\n");
}

/* What the epoll reports now, as a bit per item's data. */
static unsigned int ready_set(int epoll, int timeout_ms)
{
	struct epoll_event evs[MAX_READY];
	unsigned int set = 0;
	int n, i;

	n = epoll_wait(epoll, evs, MAX_READY, timeout_ms);
	for (i = 0; i < n; i++)
		set |= evs[i].data.u64 < 32 ? 1u << evs[i].data.u64 : 1u << 31;
	return set;
}

#define BIT(d)	(1u << (d))

static void check_ready(const struct fds *f, struct check_report *r)
{
	unsigned int base = BIT(DATA_SEMAPHORE) | BIT(DATA_EXCLUSIVE) | BIT(DATA_CLOSED) |
			    BIT(DATA_CHILD), got;
	uint64_t one = 1;

	got = ready_set(f->epoll, 0);
	if (got != (base | BIT(DATA_SIGNAL)))
		check_fail(r, "ready at first: %#x, not %#x", got, base | BIT(DATA_SIGNAL));
	got = ready_set(f->epoll, 0);
	if (got != base)
		check_fail(r, "ready again (the one-shot signalfd reported): %#x, not %#x", got,
			   base);
	if (write(f->pipe[1], "x", 1) != 1 || write(f->pair[1], "y", 1) != 1 ||
	    write(f->inner_efd, &one, 8) != 8)
		check_fail(r, "cannot write to the pipe, the socket or the inner eventfd");
	got = ready_set(f->epoll, 0);
	if (got != (base | BIT(DATA_PIPE) | BIT(DATA_SOCKET) | BIT(DATA_INNER)))
		check_fail(r, "ready once written to: %#x, not %#x", got,
			   base | BIT(DATA_PIPE) | BIT(DATA_SOCKET) | BIT(DATA_INNER));
	got = ready_set(f->epoll, 0);
	if (got & BIT(DATA_SOCKET))
		check_fail(r, "the edge-triggered socket reported twice for one write");
}

static void check_counts(const struct fds *f, struct check_report *r)
{
	struct signalfd_siginfo si;
	uint64_t v;
	int i;

	for (i = 0; i < 5; i++)
		if (read(f->semaphore, &v, 8) != 8 || v != 1)
			check_fail(r, "semaphore eventfd: read %d did not give 1", i + 1);
	if (read(f->semaphore, &v, 8) != -1 || errno != EAGAIN)
		check_fail(r, "semaphore eventfd: more than 5, or blocking");
	if (read(f->big, &v, 8) != 8 || v != BIG_COUNT)
		check_fail(r, "eventfd count: %#llx, not %#llx", (unsigned long long)v, BIG_COUNT);
	if (read(f->signal, &si, sizeof(si)) != sizeof(si) || si.ssi_signo != SIGUSR2)
		check_fail(r, "signalfd: SIGUSR2 not read back");
	if (read(f->expired, &v, 8) != 8 || v != 1)
		check_fail(r, "expired timerfd: no expiration to read");
}

/* Items are known by the descriptor they were added under: delete two that way. */
static void check_item_keys(const struct fds *f, struct check_report *r)
{
	int again;

	if (epoll_ctl(f->epoll, EPOLL_CTL_DEL, f->big, NULL))
		check_fail(r, "no epoll item for the big eventfd under fd %d", f->big);
	again = dup2(f->big, f->closed);
	if (again != f->closed || epoll_ctl(f->epoll, EPOLL_CTL_DEL, f->closed, NULL))
		check_fail(r, "no epoll item for the big eventfd under fd %d, closed", f->closed);
	if (again >= 0)
		close(again);
}

/* The next event, which must be @mask on @wd (for @name, if given). */
static void expect_event(const struct fds *f, int wd, uint32_t mask, const char *name,
			 struct check_report *r)
{
	char buf[sizeof(struct inotify_event) + 256] __attribute__((aligned(8)));
	const struct inotify_event *ev = (const void *)buf;
	ssize_t n = read(f->inotify, buf, sizeof(struct inotify_event) + (name ? 16 : 0));

	if (n < (ssize_t)sizeof(*ev)) {
		check_fail(r, "inotify: no event %#x on watch %d", mask, wd);
		return;
	}
	if (ev->wd != wd || ev->mask != mask || (name && strcmp(ev->name, name)))
		check_fail(r, "inotify: event %#x on watch %d (%s), not %#x on %d (%s)", ev->mask,
			   ev->wd, ev->len ? ev->name : "", mask, wd, name ? name : "");
}

static void check_inotify(const struct fds *f, struct check_report *r)
{
	char buf[4096], path[4096 + 16];
	int fd;

	/* what was queued at the dump, if it is still there, is not checked */
	while (read(f->inotify, buf, sizeof(buf)) > 0)
		;
	touch(f->watched, "new");
	expect_event(f, f->dir_wd, IN_CREATE, "new", r);
	snprintf(path, sizeof(path), "%s/file", f->watched);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "x", 1) != 1 || write(fd, "y", 1) != 1)
		check_fail(r, "cannot write %s", path);
	if (fd >= 0)
		close(fd);
	expect_event(f, f->file_wd, IN_MODIFY, NULL, r);
	expect_event(f, f->file_wd, IN_IGNORED, NULL, r);	/* IN_ONESHOT */
	snprintf(path, sizeof(path), "%s/new", f->watched);
	if (unlink(path))
		check_fail(r, "cannot remove %s", path);
	expect_event(f, f->dir_wd, IN_DELETE, "new", r);
	if (read(f->inotify, buf, sizeof(buf)) != -1 || errno != EAGAIN)
		check_fail(r, "inotify: more events than the changes made");
}

static long long ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000LL + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

static void check_timers(const struct fds *f, struct check_report *r)
{
	struct itimerspec its;
	struct timespec t0;
	long long due_ms, took;
	unsigned int got;

	if (timerfd_gettime(f->periodic, &its) || its.it_interval.tv_sec != 1800)
		check_fail(r, "periodic timerfd: interval %lld s, not 1800",
			   (long long)its.it_interval.tv_sec);
	if (timerfd_gettime(f->absolute, &its) || its.it_value.tv_sec < 3000 ||
	    its.it_value.tv_sec > 3600)
		check_fail(r, "absolute timerfd: %lld s left, not about 3600",
			   (long long)its.it_value.tv_sec);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (timerfd_gettime(f->timer, &its) || (!its.it_value.tv_sec && !its.it_value.tv_nsec)) {
		check_fail(r, "one-shot timerfd: not armed");
		return;
	}
	due_ms = its.it_value.tv_sec * 1000LL + its.it_value.tv_nsec / 1000000;
	if (due_ms > TIMER_SECONDS * 1000LL)
		check_fail(r, "one-shot timerfd: %lld ms left, more than it was set to", due_ms);
	do
		got = ready_set(f->epoll, (int)(due_ms + 2000 - ms_since(&t0)));
	while (!(got & BIT(DATA_TIMER)) && ms_since(&t0) < due_ms + 2000);
	took = ms_since(&t0);
	if (!(got & BIT(DATA_TIMER)))
		check_fail(r, "one-shot timerfd: did not fire within %lld ms", due_ms + 2000);
	else if (took < due_ms - TIMER_SLACK_MS || took > due_ms + TIMER_SLACK_MS)
		check_fail(r, "one-shot timerfd: fired after %lld ms, due in %lld", took, due_ms);
}

int main(int argc, char **argv)
{
	struct check_report report = { 0 };
	struct fds f;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: events DIR [WATCHED]\n");
		return 2;
	}
	check_on_request();
	set_up(&f, argv[1], argv[2]);
	if (write_fds(&f, argv[1]))
		return 1;
	check_wait_for_request();
	check_ready(&f, &report);
	check_counts(&f, &report);
	check_item_keys(&f, &report);
	check_inotify(&f, &report);
	check_timers(&f, &report);
	return check_write(&report, argv[1]) ? 1 : 0;
}
