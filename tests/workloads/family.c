// SPDX-License-Identifier: GPL-2.0
/*
 * A process with children and grandchildren, one of them with threads:
 *
 *   root -+- c1 -+- c1g1
 *         |      +- c1g2
 *         +- c2 --- c2g1 (and two more threads)
 *
 *   family [--pidfd] DIR
 *
 * Before its first fork the root fills a buffer that every process
 * inherits and none writes (its pages stay shared, copy-on-write); each
 * process then fills one of its own with its role's pattern.  Each writes
 * DIR/pid.ROLE, and the root DIR/ready once all have.  With --pidfd,
 * c1g2 also holds a pidfd of init, outside the tree, which crib-dump
 * refuses to dump.
 *
 * The second thread of c2g1 takes credentials of its own with the raw
 * system calls (libc would change every thread's): effective and fs ids
 * OWN_ID, which leaves it no effective capability.
 *
 * SIGUSR1: the process checks its parent (the process that forked it), its
 * buffers and, in c2g1, that its threads run (they wait on a condition
 * variable, so the tree's memory stays still until then, and answer each
 * broadcast) and that the second has its own credentials, the others
 * root's; it writes DIR/check.ROLE.
 * SIGTERM: it sends SIGTERM to its children, waits for each and checks
 * that it exited with its own code, writes DIR/reaped.ROLE, then exits
 * with its code.  Only a process's real parent can wait for it.
 */
#include <pthread.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "tree.h"

#define COW_SIZE	(256 << 10)
#define OWN_SIZE	(128 << 10)
#define MAX_KIDS	4
#define OWN_ID		1234	/* the effective ids of c2g1's second thread */

static const char *const roles[] = { "root", "c1", "c2", "c1g1", "c1g2", "c2g1" };

struct kid {
	pid_t pid;
	const char *role;
};

static struct kid kids[MAX_KIDS];
static int n_kids;
static pid_t parent_pid;
static unsigned char *cow, *own;
static bool want_pidfd;
static bool threaded;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER, answered = PTHREAD_COND_INITIALIZER;
static unsigned long rounds, ticks[2];
static pid_t creds_tid;		/* the thread with credentials of its own */

/* Each process exits with its own code, so its parent can tell it was it. */
static int exit_code_of(const char *role)
{
	return 10 + tree_byte(role, 0) % 100;
}

/* A thread answers each round once: its tick count catches up with it. */
static void *tick(void *arg)
{
	unsigned long *count = arg;
	sigset_t mine;

	/* the signals are the main thread's */
	sigemptyset(&mine);
	sigaddset(&mine, SIGUSR1);
	sigaddset(&mine, SIGUSR2);
	sigaddset(&mine, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &mine, NULL);
	if (count == &ticks[1] &&
	    (syscall(SYS_setresgid, -1, OWN_ID, -1) || syscall(SYS_setresuid, -1, OWN_ID, -1)))
		tree_die("setresuid in a thread");
	pthread_mutex_lock(&lock);
	if (count == &ticks[1]) {
		creds_tid = (pid_t)syscall(SYS_gettid);
		pthread_cond_broadcast(&answered);
	}
	for (;;) {
		while (*count == rounds)
			pthread_cond_wait(&wake, &lock);
		*count = rounds;
		pthread_cond_broadcast(&answered);
	}
	return NULL;
}

/* Start a round; true when both threads answer it within 10 seconds. */
static bool threads_answer(void)
{
	struct timespec until;
	bool ok = true;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&lock);
	rounds++;
	pthread_cond_broadcast(&wake);
	while (ticks[0] != rounds || ticks[1] != rounds)
		if (pthread_cond_timedwait(&answered, &lock, &until)) {
			ok = false;
			break;
		}
	pthread_mutex_unlock(&lock);
	return ok;
}

/* Line @key of thread @tid's status, its tabs as spaces, into @out. */
static void thread_status(pid_t tid, const char *key, char *out, size_t size)
{
	char path[64], line[256];
	size_t len = strlen(key);
	FILE *f;

	snprintf(out, size, "none");
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, len) || line[len] != ':')
			continue;
		line[strcspn(line, "\n")] = '\0';
		for (char *c = line; *c; c++)
			if (*c == '\t')
				*c = ' ';
		snprintf(out, size, "%s", line + len + 2);
	}
	fclose(f);
}

/* Thread @tid's ids, and no effective capability when @own. */
static void check_thread_creds(pid_t tid, bool own)
{
	char uid[64], gid[64], cap[64], want[64];

	thread_status(tid, "Uid", uid, sizeof(uid));
	thread_status(tid, "Gid", gid, sizeof(gid));
	thread_status(tid, "CapEff", cap, sizeof(cap));
	snprintf(want, sizeof(want), "0 %d 0 %d", own ? OWN_ID : 0, own ? OWN_ID : 0);
	if (strcmp(uid, want) || strcmp(gid, want))
		tree_fail("thread %d: uids %s, gids %s, not %s", (int)tid, uid, gid, want);
	if (own != !strcmp(cap, "0000000000000000"))
		tree_fail("thread %d: effective capabilities %s", (int)tid, cap);
}

static void self_check(void)
{
	if (parent_pid && getppid() != parent_pid)
		tree_fail("its parent is %d, not %d", (int)getppid(), (int)parent_pid);
	tree_check_fill(cow, COW_SIZE, "cow", "the buffer shared since the root forked");
	tree_check_fill(own, OWN_SIZE, tree_role, "its own buffer");
	if (threaded && !threads_answer())
		tree_fail("its threads do not run (round %lu: %lu %lu)", rounds, ticks[0],
			  ticks[1]);
	if (threaded) {
		check_thread_creds(getpid(), false);
		check_thread_creds(creds_tid, true);
	}
	tree_report_to("check");
}

static void __attribute__((noreturn)) reap_and_exit(void)
{
	int status, i;
	pid_t got;

	for (i = 0; i < n_kids; i++)
		kill(kids[i].pid, SIGTERM);
	for (i = 0; i < n_kids; i++) {
		do
			got = waitpid(kids[i].pid, &status, 0);
		while (got < 0 && errno == EINTR);
		if (got != kids[i].pid)
			tree_fail("cannot wait for %s (%d): %s", kids[i].role, (int)kids[i].pid,
				  strerror(errno));
		else if (!WIFEXITED(status) || WEXITSTATUS(status) != exit_code_of(kids[i].role))
			tree_fail("%s ended with status %#x, not exit code %d", kids[i].role, status,
				  exit_code_of(kids[i].role));
	}
	tree_report_to("reaped");
	exit(parent_pid ? exit_code_of(tree_role) : 0);
}

static void __attribute__((noreturn)) serve(void)
{
	for (;;) {
		tree_wait_signal();
		if (tree_usr1) {
			tree_usr1 = 0;
			self_check();
		}
		if (tree_term)
			reap_and_exit();
		tree_usr2 = 0;
	}
}

static void __attribute__((noreturn)) live(void)
{
	tree_announce();
	serve();
}

static void fill_own(void)
{
	own = malloc(OWN_SIZE);
	if (!own)
		tree_die("malloc");
	tree_fill(own, OWN_SIZE, tree_role);
}

static void spawn(const char *role, void (*body)(void))
{
	pid_t pid = fork();

	if (pid < 0)
		tree_die("fork %s", role);
	if (pid == 0) {
		n_kids = 0;
		parent_pid = getppid();
		tree_become(role);
		fill_own();
		body();
		exit(99);
	}
	kids[n_kids++] = (struct kid){ pid, role };
}

static void leaf(void)
{
	if (want_pidfd && !strcmp(tree_role, "c1g2") && syscall(SYS_pidfd_open, 1, 0) < 0)
		tree_die("pidfd_open");
	live();
}

static void threaded_leaf(void)
{
	pthread_t th;

	threaded = true;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th, NULL, tick, (void *)&ticks[i]))
			tree_die("pthread_create");
	pthread_mutex_lock(&lock);
	while (!creds_tid)
		pthread_cond_wait(&answered, &lock);
	pthread_mutex_unlock(&lock);
	live();
}

static void c1(void)
{
	spawn("c1g1", leaf);
	spawn("c1g2", leaf);
	live();
}

static void c2(void)
{
	spawn("c2g1", threaded_leaf);
	live();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--pidfd")) {
		want_pidfd = true;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: family [--pidfd] DIR\n");
		return 2;
	}
	tree_dir = argv[1];
	tree_become("root");
	tree_catch_signals();
	cow = malloc(COW_SIZE);
	if (!cow)
		tree_die("malloc");
	tree_fill(cow, COW_SIZE, "cow");
	spawn("c1", c1);
	spawn("c2", c2);
	fill_own();
	tree_announce();
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (tree_wait_file("pid", roles[i], 120))
			tree_die("%s did not start", roles[i]);
	tree_ready();
	serve();
}
