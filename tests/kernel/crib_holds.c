// SPDX-License-Identifier: GPL-2.0
/*
 * What a CRIB program run leaves behind in the process it reads, checked
 * at run time (the release kernel has CONFIG_BUG=n: a refcount_t that
 * goes wrong warns nowhere there).  TAP output.
 *
 *  - Socket references: a bound UDP sock's count is the same after runs
 *    that take and drop references of their own (bpf_sock_from_task_fd(),
 *    the skb iterator).  A sock from a sockmap, which the lookup did not
 *    reference (a bound UDP sock is SOCK_RCU_FREE), and which no ptrace
 *    check reached, must be refused by the verifier in every CRIB kfunc;
 *    should such a program load, it is run once and the count it dropped
 *    is reported.
 *  - Locks: after a program read an epoll's items or an inotify's watches,
 *    and after one that threw right after reading, epoll_ctl() on that
 *    epoll, inotify_add_watch() on that inotify and the unlink of a watched
 *    file must finish, in a child, within HANG_SECONDS.
 *  - Dentries: the paths of an inotify's watches are read over and over
 *    while a thread adds watches on files and unlinks them, which drops
 *    the last reference of the watched inodes while a path may be read:
 *    every run must return within HANG_SECONDS.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "crib_holds.skel.h"
#include "crib_holds_sock.skel.h"
#include "crib_libbpf.h"
#include "crib_target.h"
#include "tap.h"
#include "udp_queue.h"

#define HANG_SECONDS	30
#define RUNS		16
#define CHURN_SECONDS	5
#define WATCHED_DIR	"/tmp/crib-holds"

struct holds_args {
	struct crib_target target;	/* the process the run is about */
	int pid;
	int fd;
};

/* Run @prog on descriptor @fd of this process; its return value, or -errno. */
static int run(struct bpf_program *prog, int fd, int *retval)
{
	struct holds_args args = { .pid = getpid(), .fd = fd };

	return crib_prog_run_about(prog, getpid(), &args, sizeof(args), retval);
}

/* The count of references on the sock at @fd, or a negative value. */
static int refcnt(struct crib_holds_sock *skel, int fd)
{
	int ret, err = run(skel->progs.sock_refcnt, fd, &ret);

	return err ? err : ret;
}

/* Runs of programs that take references of their own leave the count be. */
static void check_own_references(struct tap *t, struct crib_holds_sock *skel, int fd)
{
	int before = refcnt(skel, fd), after, ret, i, bad = 0;

	for (i = 0; i < RUNS; i++) {
		bad |= run(skel->progs.sock_get_put, fd, &ret) || ret != 0;
		bad |= run(skel->progs.sock_iter_skb, fd, &ret) || ret != 2;
	}
	after = refcnt(skel, fd);
	tap_check(t, !bad, "programs taking sock references of their own run");
	tap_check(t, before > 0 && after == before,
		  "sock refcount unchanged by %d runs taking and dropping references (%d, then %d)",
		  2 * RUNS, before, after);
}

/*
 * A program handing a sockmap's sock to a CRIB kfunc must not load.  The
 * sockmap is @skel's; should the program load, it is run once and what it
 * did to the count is told.
 */
static void check_sockmap_refused(struct tap *t, struct crib_holds_sock *skel, int fd,
				  const char *name)
{
	static char log[1 << 16];
	struct crib_holds_sock *neg = crib_holds_sock__open();
	struct bpf_program *p, *prog = NULL;
	int err, before, after, ret;

	if (!neg) {
		tap_check(t, false, "%s: open: %s", name, strerror(errno));
		return;
	}
	bpf_object__for_each_program(p, neg->obj) {
		bool me = !strcmp(bpf_program__name(p), name);

		bpf_program__set_autoload(p, me);
		if (me)
			prog = p;
	}
	log[0] = 0;
	bpf_program__set_log_buf(prog, log, sizeof(log));
	bpf_program__set_log_level(prog, 1);
	err = bpf_map__reuse_fd(neg->maps.socks, bpf_map__fd(skel->maps.socks));
	if (!err)
		err = crib_holds_sock__load(neg);
	if (tap_check(t, err && strstr(log, "a CRIB kfunc takes a sock from a CRIB kfunc"),
		      "%s: a sockmap's sock refused by the CRIB kfuncs", name)) {
		crib_holds_sock__destroy(neg);
		return;
	}
	if (!err) {
		before = refcnt(skel, fd);
		err = run(prog, fd, &ret);
		after = refcnt(skel, fd);
		tap_diag("%s loaded; one run (%d) took the sock's count from %d to %d",
			 name, err ? err : ret, before, after);
	} else {
		tap_diag("load: %d, log tail: %.400s", err,
			 log + (strlen(log) > 400 ? strlen(log) - 400 : 0));
	}
	crib_holds_sock__destroy(neg);
}

static void check_sockets(struct tap *t, struct crib_holds_sock *skel)
{
	__u64 value;
	__u32 key = 0;
	int fd = udp_with_queue(2);

	if (!tap_check(t, fd >= 0, "a bound UDP socket with datagrams queued"))
		return;
	value = fd;
	if (!tap_check(t, !bpf_map_update_elem(bpf_map__fd(skel->maps.socks), &key, &value,
					       BPF_ANY), "the socket in a sockmap"))
		tap_diag("%s", strerror(errno));
	check_own_references(t, skel, fd);
	check_sockmap_refused(t, skel, fd, "sockmap_release");
	check_sockmap_refused(t, skel, fd, "sockmap_iter_skb");
	tap_check(t, refcnt(skel, fd) > 0, "the socket still has its references");
	close(fd);
}

/* What a child does, with the descriptors of the test. */
struct action {
	int (*fn)(const struct action *a);
	int ep, in, fd;
	const char *path;
	struct bpf_program *prog;
};

/*
 * Run @a in a child; 0 if it succeeded within HANG_SECONDS, -ETIMEDOUT if
 * it did not finish (the child is killed, which a task sleeping on a
 * mutex does not notice: it stays behind), else -1.
 */
static int within(const struct action *a)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	int status, i;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(a->fn(a) ? 1 : 0);
	for (i = 0; i < HANG_SECONDS * 20; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	return -ETIMEDOUT;
}

static int epoll_add(const struct action *a)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd = eventfd(0, 0);

	return epoll_ctl(a->ep, EPOLL_CTL_ADD, fd, &ev);
}

static int epoll_mod(const struct action *a)
{
	struct epoll_event ev = { .events = EPOLLIN };

	return epoll_ctl(a->ep, EPOLL_CTL_MOD, a->fd, &ev);
}

static int inotify_add(const struct action *a)
{
	return inotify_add_watch(a->in, "/", IN_ATTRIB) < 0;
}

static int unlink_watched(const struct action *a)
{
	return unlink(a->path);
}

/* An epoll with three items; the descriptor of one watched file in *@fd. */
static int epoll_with_items(int *fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	int ep = epoll_create1(0), i, efd;

	for (i = 0; i < 3; i++) {
		efd = eventfd(0, 0);
		ev.data.u64 = i;
		if (ep < 0 || efd < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev))
			return -1;
		*fd = efd;
	}
	return ep;
}

/* The lock checks of one program: after each run, @actions finish. */
static void check_unlocked(struct tap *t, struct bpf_program *prog, int fd, int want,
			   const struct action *actions, const char *const *what, int n)
{
	const char *name = bpf_program__name(prog);
	int err, ret, i;

	err = run(prog, fd, &ret);
	if (!tap_check(t, !err && (want < 0 || ret == want), "%s runs (%d, %d)", name, err, ret))
		return;
	for (i = 0; i < n; i++) {
		err = within(&actions[i]);
		tap_check(t, !err, "after %s: %s %s", name, what[i],
			  err == -ETIMEDOUT ? "hangs, a lock is still held" :
			  err ? "fails" : "finishes");
	}
}

static void check_epoll(struct tap *t, struct crib_holds *skel)
{
	const char *what[] = { "epoll_ctl(ADD)", "epoll_ctl(MOD)" };
	struct action actions[2];
	int fd = -1, ep = epoll_with_items(&fd);

	if (!tap_check(t, ep >= 0, "an epoll with three items"))
		return;
	actions[0] = (struct action){ .fn = epoll_add, .ep = ep };
	actions[1] = (struct action){ .fn = epoll_mod, .ep = ep, .fd = fd };
	check_unlocked(t, skel->progs.epoll_read, ep, 3, actions, what, 2);
	check_unlocked(t, skel->progs.epoll_throw, ep, -1, actions, what, 2);
	close(ep);
}

/* An inotify watching @n files of WATCHED_DIR, file0 and on; or -1. */
static int inotify_with_watches(int n)
{
	char path[64];
	int in = inotify_init1(0), i, fd;

	mkdir(WATCHED_DIR, 0700);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), WATCHED_DIR "/file%d", i);
		fd = open(path, O_CREAT | O_WRONLY, 0600);
		if (in < 0 || fd < 0 || inotify_add_watch(in, path, IN_MODIFY) < 0)
			return -1;
		close(fd);
	}
	return in;
}

static void check_inotify(struct tap *t, struct crib_holds *skel)
{
	const char *what[] = { "inotify_add_watch()", "unlink of a watched file" };
	struct action actions[2];
	int in = inotify_with_watches(3);

	if (!tap_check(t, in >= 0, "an inotify with three watches"))
		return;
	actions[0] = (struct action){ .fn = inotify_add, .in = in };
	actions[1] = (struct action){ .fn = unlink_watched, .path = WATCHED_DIR "/file0" };
	check_unlocked(t, skel->progs.inotify_read, in, 3, actions, what, 2);
	actions[1].path = WATCHED_DIR "/file1";
	check_unlocked(t, skel->progs.inotify_throw, in, -1, actions, what, 2);
	close(in);
}

/* Watched files created, watched and unlinked until told to stop. */
struct churn {
	int in;
	atomic_bool stop;
	unsigned long unlinked;
};

static void *churn(void *arg)
{
	struct churn *c = arg;
	const char *path = WATCHED_DIR "/churn";
	int fd;

	while (!atomic_load(&c->stop)) {
		fd = open(path, O_CREAT | O_WRONLY, 0600);
		if (fd < 0)
			break;
		close(fd);
		inotify_add_watch(c->in, path, IN_MODIFY);
		if (!unlink(path))
			c->unlinked++;
	}
	return NULL;
}

/* The child of check_paths: reads paths while watched inodes go. */
static int read_paths_while_unlinking(const struct action *a)
{
	struct churn c = { .in = a->in };
	time_t end = time(NULL) + CHURN_SECONDS;
	unsigned long runs = 0;
	pthread_t th;
	int ret, err = 0;

	if (pthread_create(&th, NULL, churn, &c))
		return -1;
	while (time(NULL) < end && !err) {
		err = run(a->prog, a->in, &ret);
		runs++;
	}
	atomic_store(&c.stop, true);
	pthread_join(th, NULL);
	printf("# %lu runs reading paths, %lu watched files unlinked\n", runs, c.unlinked);
	return err;
}

static void check_paths(struct tap *t, struct crib_holds *skel)
{
	struct action a = { .fn = read_paths_while_unlinking, .prog = skel->progs.inotify_read };
	int in = inotify_init1(0), err;

	if (!tap_check(t, in >= 0, "an inotify for watched files that go"))
		return;
	a.in = in;
	err = within(&a);
	tap_check(t, !err, "paths read while watched files are unlinked: %s",
		  err == -ETIMEDOUT ? "a run hangs" : err ? "a run fails" : "every run returns");
	close(in);
}

/* libbpf's own messages only with CRIB_VERBOSE set */
static int print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!getenv("CRIB_VERBOSE") || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(void)
{
	struct crib_holds_sock *socks;
	struct crib_holds *events;
	struct tap t = {};
	char err[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(print);
	if (crib_libbpf_init(err, sizeof(err))) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	socks = crib_holds_sock__open_and_load();
	if (!socks) {
		printf("Bail out! crib_holds_sock: %s\n", strerror(errno));
		return 1;
	}
	check_sockets(&t, socks);
	crib_holds_sock__destroy(socks);

	/* the kfuncs they call are those of the series since v3 */
	events = crib_holds__open_and_load();
	if (tap_check(&t, events, "the epoll and inotify programs load")) {
		check_epoll(&t, events);
		check_inotify(&t, events);
		check_paths(&t, events);
	}
	crib_holds__destroy(events);
	return tap_done(&t);
}
