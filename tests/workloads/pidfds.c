// SPDX-License-Identifier: GPL-2.0
/*
 * A workload holding a pidfd of every kind crib carries:
 *
 *   pidfds DIR
 *
 * CHILDFD, a pidfd of its child, and DUPFD, a dup() of it (one
 * description); SELFFD, of itself; THREADFD, of its second thread,
 * opened with PIDFD_THREAD | PIDFD_NONBLOCK; DEADFD, of a child that
 * exited and was reaped; and TAKENFD, the read end of a pipe its child
 * made and wrote "hello" into, taken with pidfd_getfd(2).  A second child,
 * the sibling, forked once the first four were open, inherits them (a
 * description shared across processes).  Writes "CHILD SIBLING TID
 * CHILDFD DUPFD SELFFD THREADFD DEADFD TAKENFD" to DIR/ready.
 *
 * SIGUSR1: it checks each, through the pidfd system calls and its own
 * fdinfo: SELFFD names itself and THREADFD its thread, with O_EXCL and
 * O_NONBLOCK; CHILDFD names the child, shares its status flags with
 * DUPFD, and pidfd_send_signal() reaches it; DEADFD polls as exited
 * (POLLIN | POLLHUP), pidfd_send_signal() finds no process and
 * waitid(P_PIDFD) no child; TAKENFD is the child's pipe (the inode of its
 * fd 40) with the five bytes queued.  Last, it ends the child with
 * SIGTERM through CHILDFD and reaps it with waitid(P_PIDFD).  Writes the
 * verdict to DIR/check.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "selfcheck.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL
#endif
#ifndef PIDFD_NONBLOCK
#define PIDFD_NONBLOCK	O_NONBLOCK
#endif
#ifndef P_PIDFD
#define P_PIDFD		3
#endif

/* Where the child keeps its pipe: the read end TAKENFD is a copy of. */
#define CHILD_PIPE_READ		40
#define CHILD_PIPE_WRITE	41

struct held {
	pid_t child, sibling, tid;
	int childfd, dupfd, selffd, threadfd, deadfd, takenfd;
};

static int pidfd_open(pid_t pid, unsigned int flags)
{
	return (int)syscall(SYS_pidfd_open, pid, flags);
}

static int pidfd_send_signal(int pidfd, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

static int pidfd_getfd(int pidfd, int fd)
{
	return (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
}

/* The child: its pipe at known numbers, "hello" in it; then it waits. */
static pid_t start_child(void)
{
	int sync[2], p[2];
	pid_t pid;
	char c;

	if (pipe(sync))
		return -1;
	pid = fork();
	if (pid == 0) {
		if (pipe(p) || dup2(p[0], CHILD_PIPE_READ) < 0 ||
		    dup2(p[1], CHILD_PIPE_WRITE) < 0 || write(CHILD_PIPE_WRITE, "hello", 5) != 5 ||
		    write(sync[1], "r", 1) != 1)
			_exit(1);
		close(p[0]);
		close(p[1]);
		for (;;)
			pause();
	}
	close(sync[1]);
	if (pid > 0 && read(sync[0], &c, 1) != 1)
		pid = -1;
	close(sync[0]);
	return pid;
}

static pid_t start_sibling(void)
{
	pid_t pid = fork();

	if (pid == 0)
		for (;;)
			pause();
	return pid;
}

static pid_t thread_tid;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t started = PTHREAD_COND_INITIALIZER;

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	thread_tid = (pid_t)syscall(SYS_gettid);
	pthread_cond_signal(&started);
	pthread_mutex_unlock(&lock);
	for (;;)
		pause();
	return NULL;
}

static pid_t start_thread(void)
{
	pthread_t th;

	if (pthread_create(&th, NULL, thread_main, NULL))
		return -1;
	pthread_mutex_lock(&lock);
	while (!thread_tid)
		pthread_cond_wait(&started, &lock);
	pthread_mutex_unlock(&lock);
	return thread_tid;
}

/* A pidfd of a child that has exited and been reaped. */
static int dead_pidfd(void)
{
	pid_t pid = fork();
	int fd;

	if (pid == 0)
		_exit(3);
	if (pid < 0)
		return -1;
	fd = pidfd_open(pid, 0);
	if (waitpid(pid, NULL, 0) != pid) {
		close(fd);
		return -1;
	}
	return fd;
}

static int set_up(struct held *h)
{
	h->child = start_child();
	if (h->child < 0)
		return -1;
	h->childfd = pidfd_open(h->child, 0);
	h->dupfd = dup(h->childfd);
	h->selffd = pidfd_open(getpid(), 0);
	h->takenfd = pidfd_getfd(h->childfd, CHILD_PIPE_READ);
	if (h->childfd < 0 || h->dupfd < 0 || h->selffd < 0 || h->takenfd < 0)
		return -1;
	h->sibling = start_sibling();
	h->tid = start_thread();
	if (h->sibling < 0 || h->tid < 0)
		return -1;
	h->threadfd = pidfd_open(h->tid, PIDFD_THREAD | PIDFD_NONBLOCK);
	h->deadfd = dead_pidfd();
	return h->threadfd < 0 || h->deadfd < 0 ? -1 : 0;
}

/* The "Pid:" of a descriptor's fdinfo; 0 when there is none. */
static long fdinfo_pid(int fd)
{
	char path[64], line[128];
	long pid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Pid:\t%ld", &pid) == 1)
			break;
	fclose(f);
	return pid;
}

static void check_names(struct check_report *r, const char *what, int fd, long want)
{
	long got = fdinfo_pid(fd);

	if (got != want)
		check_fail(r, "%s (fd %d): fdinfo Pid %ld, expected %ld", what, fd, got, want);
}

static void check_thread(struct check_report *r, const struct held *h)
{
	int fl = fcntl(h->threadfd, F_GETFL);

	check_names(r, "thread pidfd", h->threadfd, h->tid);
	if (fl < 0 || !(fl & PIDFD_THREAD) || !(fl & PIDFD_NONBLOCK))
		check_fail(r, "thread pidfd: flags %#o, without PIDFD_THREAD or PIDFD_NONBLOCK",
			   fl);
}

/* CHILDFD and DUPFD: one description, one set of status flags. */
static void check_shared(struct check_report *r, const struct held *h)
{
	int fl = fcntl(h->dupfd, F_GETFL);

	if (fl < 0 || fcntl(h->dupfd, F_SETFL, fl | O_NONBLOCK)) {
		check_fail(r, "dup of the child's pidfd: F_SETFL: %s", strerror(errno));
		return;
	}
	if (!(fcntl(h->childfd, F_GETFL) & O_NONBLOCK))
		check_fail(r, "the child's pidfd and its dup() no longer share their description");
	fcntl(h->dupfd, F_SETFL, fl);
}

static void check_dead(struct check_report *r, const struct held *h)
{
	struct pollfd pfd = { .fd = h->deadfd, .events = POLLIN };
	siginfo_t info;

	check_names(r, "dead pidfd", h->deadfd, -1);
	if (poll(&pfd, 1, 0) != 1 || (pfd.revents & (POLLIN | POLLHUP)) != (POLLIN | POLLHUP))
		check_fail(r, "dead pidfd: poll gives %#x, not POLLIN | POLLHUP", pfd.revents);
	if (!pidfd_send_signal(h->deadfd, 0) || errno != ESRCH)
		check_fail(r, "dead pidfd: pidfd_send_signal() does not fail with ESRCH: %s",
			   strerror(errno));
	if (!waitid(P_PIDFD, (id_t)h->deadfd, &info, WEXITED | WNOHANG) || errno != ECHILD)
		check_fail(r, "dead pidfd: waitid(P_PIDFD) does not fail with ECHILD: %s",
			   strerror(errno));
}

static void check_taken(struct check_report *r, const struct held *h)
{
	struct stat mine, theirs;
	char path[64];
	int queued = -1;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)h->child, CHILD_PIPE_READ);
	if (fstat(h->takenfd, &mine) || stat(path, &theirs) || mine.st_ino != theirs.st_ino)
		check_fail(r, "taken pipe (fd %d): not the child's fd %d", h->takenfd,
			   CHILD_PIPE_READ);
	if (ioctl(h->takenfd, FIONREAD, &queued) || queued != 5)
		check_fail(r, "taken pipe (fd %d): %d bytes queued, not 5", h->takenfd, queued);
}

/* Last: the child ended through its pidfd and reaped through it. */
static void check_child_ends(struct check_report *r, const struct held *h)
{
	struct pollfd pfd = { .fd = h->childfd, .events = POLLIN };
	siginfo_t info = { 0 };

	if (poll(&pfd, 1, 0) != 0)
		check_fail(r, "child pidfd: polls as exited (%#x) while the child runs",
			   pfd.revents);
	if (pidfd_send_signal(h->childfd, SIGTERM)) {
		check_fail(r, "child pidfd: pidfd_send_signal(SIGTERM): %s", strerror(errno));
		return;
	}
	if (waitid(P_PIDFD, (id_t)h->childfd, &info, WEXITED))
		check_fail(r, "child pidfd: waitid(P_PIDFD): %s", strerror(errno));
	else if (info.si_pid != h->child || info.si_code != CLD_KILLED ||
		 info.si_status != SIGTERM)
		check_fail(r, "child pidfd: waitid(P_PIDFD) reaped pid %d, code %d, status %d",
			   (int)info.si_pid, info.si_code, info.si_status);
}

static void check(struct check_report *r, const struct held *h)
{
	check_names(r, "own pidfd", h->selffd, getpid());
	check_names(r, "child pidfd", h->childfd, h->child);
	check_names(r, "dup of the child pidfd", h->dupfd, h->child);
	check_thread(r, h);
	check_shared(r, h);
	check_dead(r, h);
	check_taken(r, h);
	check_child_ends(r, h);
}

int main(int argc, char **argv)
{
	struct check_report r = { 0 };
	struct held h;
	char text[128];

	if (argc != 2) {
		fprintf(stderr, "usage: pidfds DIR\n");
		return 2;
	}
	check_on_request();
	if (set_up(&h)) {
		perror("pidfds: set up");
		return 1;
	}
	snprintf(text, sizeof(text), "%d %d %d %d %d %d %d %d %d\n", (int)h.child,
		 (int)h.sibling, (int)h.tid, h.childfd, h.dupfd, h.selffd, h.threadfd, h.deadfd,
		 h.takenfd);
	snprintf(r.text, sizeof(r.text), "%s/ready", argv[1]);
	if (write_ready(r.text, text))
		return 1;
	r.text[0] = '\0';
	check_wait_for_request();
	check(&r, &h);
	if (check_write(&r, argv[1]))
		return 1;
	for (;;)
		pause();
}
