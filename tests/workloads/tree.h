/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the process-tree workloads (family, session, children, stream,
 * forkserver, shmem, descs, cloned): how each process of a tree says who it is and
 * reports what it checked of itself.
 *
 * Every process of a tree has a role ("root", "c1", "c1g2", ...).  Once set
 * up it writes its pid to DIR/pid.ROLE; a self-check writes "ok" or what
 * failed, one line each, to DIR/check.ROLE.  Files are written whole
 * (write_ready), so a reader never sees half of one.
 */
#ifndef CRIB_TREE_H
#define CRIB_TREE_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ready.h"

static const char *tree_dir;
/*
 * Where sockets and FIFOs go: DIR, unless the workload was given
 * --local LDIR (a migration's DIR is in the checkout, whose 9p share
 * holds neither).
 */
static const char *tree_local_dir;
static char tree_role[32];
static char tree_report[4096];

/* Note a failed check; the report says all of them. */
static inline void __attribute__((format(printf, 1, 2))) tree_fail(const char *fmt, ...)
{
	size_t len = strlen(tree_report);
	va_list ap;

	if (len + 2 >= sizeof(tree_report))
		return;
	va_start(ap, fmt);
	vsnprintf(tree_report + len, sizeof(tree_report) - len - 1, fmt, ap);
	va_end(ap);
	strcat(tree_report, "\n");
}

/* Give up: the setup itself failed.  The test sees DIR/setup.ROLE. */
static inline void __attribute__((noreturn, format(printf, 1, 2))) tree_die(const char *fmt, ...)
{
	char path[1024], text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text) - 32, fmt, ap);
	va_end(ap);
	snprintf(text + strlen(text), 32, ": %s\n", strerror(errno));
	snprintf(path, sizeof(path), "%s/setup.%s", tree_dir, tree_role);
	write_ready(path, text);
	fprintf(stderr, "%s: %s", tree_role, text);
	exit(99);
}

static inline void tree_file(char *path, size_t size, const char *what, const char *role)
{
	snprintf(path, size, "%s/%s.%s", tree_dir, what, role);
}

/* LDIR/@name, or DIR/@name without --local. */
static inline void tree_local_file(char *path, size_t size, const char *name)
{
	snprintf(path, size, "%s/%s", tree_local_dir ? tree_local_dir : tree_dir, name);
}

/* Take "--local LDIR" off the front of the arguments, if there. */
static inline void tree_take_local(int *argc, char ***argv)
{
	if (*argc >= 3 && !strcmp((*argv)[1], "--local")) {
		tree_local_dir = (*argv)[2];
		(*argv)[2] = (*argv)[0];
		*argv += 2;
		*argc -= 2;
	}
}

/* This process is @role: from here on its reports carry that name. */
static inline void tree_become(const char *role)
{
	snprintf(tree_role, sizeof(tree_role), "%s", role);
}

/* DIR/pid.ROLE: the pid of @role, for the test. */
static inline void tree_announce_pid(const char *role, pid_t pid)
{
	char path[1024], text[32];

	tree_file(path, sizeof(path), "pid", role);
	snprintf(text, sizeof(text), "%d\n", (int)pid);
	if (write_ready(path, text))
		tree_die("writing %s", path);
}

/* DIR/pid.ROLE of this process. */
static inline void tree_announce(void)
{
	tree_announce_pid(tree_role, getpid());
}

/* DIR/ready: the whole tree is set up. */
static inline void tree_ready(void)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/ready", tree_dir);
	if (write_ready(path, "ready\n"))
		tree_die("writing %s", path);
}

/* DIR/WHAT.ROLE: "ok", or the failed checks; the report starts empty again. */
static inline void tree_report_to(const char *what)
{
	char path[1024];

	tree_file(path, sizeof(path), what, tree_role);
	write_ready(path, tree_report[0] ? tree_report : "ok\n");
	tree_report[0] = '\0';
}

static inline int tree_exists(const char *what, const char *role)
{
	char path[1024];
	struct stat st;

	tree_file(path, sizeof(path), what, role);
	return !stat(path, &st);
}

/* Wait until DIR/WHAT.ROLE exists, up to @seconds; 0 when it does. */
static inline int tree_wait_file(const char *what, const char *role, int seconds)
{
	for (int i = 0; i < seconds * 50; i++) {
		if (tree_exists(what, role))
			return 0;
		usleep(20 * 1000);
	}
	return -1;
}

/* The pid @role announced, or -1. */
static inline pid_t tree_pid_of(const char *role)
{
	char path[1024];
	FILE *f;
	int pid = -1;

	tree_file(path, sizeof(path), "pid", role);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = -1;
		fclose(f);
	}
	return pid;
}

/* A byte of @role's private memory at @i: a different pattern per role. */
static inline unsigned char tree_byte(const char *role, size_t i)
{
	unsigned h = 5381;

	for (const char *p = role; *p; p++)
		h = h * 33 + (unsigned char)*p;
	return (unsigned char)(h + i * 7 + (i >> 12));
}

static inline void tree_fill(unsigned char *buf, size_t len, const char *role)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = tree_byte(role, i);
}

/* Whether @buf still holds @role's pattern; the first wrong byte is reported. */
static inline int tree_check_fill(const unsigned char *buf, size_t len, const char *role,
			   const char *what)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != tree_byte(role, i)) {
			tree_fail("%s: byte %zu is %#x, not %#x", what, i, buf[i],
				  tree_byte(role, i));
			return -1;
		}
	}
	return 0;
}

/* Flags the signal handlers set; the main loops act on them. */
static volatile sig_atomic_t tree_usr1, tree_usr2, tree_term;

static inline void tree_on_signal(int sig)
{
	if (sig == SIGUSR1)
		tree_usr1 = 1;
	else if (sig == SIGUSR2)
		tree_usr2 = 1;
	else
		tree_term = 1;
}

/*
 * SIGUSR1, SIGUSR2 and SIGTERM set the flags above.  No SA_RESTART: a
 * process blocked in accept() or read() comes back to its loop.
 */
static inline void tree_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = tree_on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Sleep until a signal sets one of the flags; none is missed. */
static inline void tree_wait_signal(void)
{
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGUSR2);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	while (!tree_usr1 && !tree_usr2 && !tree_term)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static inline void tree_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

#endif /* CRIB_TREE_H */
