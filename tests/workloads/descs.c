// SPDX-License-Identifier: GPL-2.0
/*
 * Open file descriptions: shared by several descriptors, or several of
 * one pipe with different status flags.
 *
 *   descs [--fork] [--local LDIR] DIR
 *
 * The root holds:
 *   a, b   DIR/file opened O_RDWR at offset 10, and a dup() of it: one
 *          description, one offset, one set of flags
 *   c      DIR/file opened again, read-only at offset 3: a description of its own
 *   p1     a pipe whose read end alone was made O_NONBLOCK, 7 bytes queued
 *   p2     a pipe made with pipe2(O_NONBLOCK): both ends non-blocking
 *   p3     a blocking pipe whose read end was opened a second time through
 *          /proc/self/fd, O_NONBLOCK: two read descriptions, two sets of flags
 *   fr, fb, fw, frw
 *          the FIFO DIR/fifo opened for reading O_NONBLOCK, for reading
 *          (blocking), for writing (9 bytes queued), and O_RDWR (with
 *          --local LDIR, the FIFO is LDIR/fifo)
 *   stat   /proc/self/stat, 5 bytes read: a file of the root's own /proc
 * With --fork, a child forked after all that holds every one of them too,
 * and the root then opens /proc/CHILD/status: a file that exists only
 * once the child does.
 *
 * Each writes DIR/pid.ROLE (root, child), the root DIR/ready.  SIGUSR1 to
 * the root: every descriptor has the flags and offset it had; a move of
 * a's offset and a change of a's flags show through b (and not c); the
 * queued bytes are there and a non-blocking read end does not block.
 * With --fork the child then writes 5 bytes through its a, which moves the
 * root's offset too.  DIR/check.root, DIR/check.child.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tree.h"

enum { A, B, C, P1R, P1W, P2R, P2W, P3R, P3W, P3R2, FR, FB, FW, FRW, STAT, NFDS };

static const char *const names[NFDS] = {
	"a", "b", "c", "p1 read", "p1 write", "p2 read", "p2 write", "p3 read", "p3 write",
	"p3 read again", "fifo read O_NONBLOCK", "fifo read", "fifo write", "fifo O_RDWR",
	"/proc/self/stat",
};

static int fds[NFDS];
static int flags[NFDS];		/* F_GETFL when set up */
static pid_t child_pid;
static int child_status_fd = -1;	/* the root's /proc/CHILD/status */

static void open_files(void)
{
	char path[1024];
	int p[2];

	snprintf(path, sizeof(path), "%s/file", tree_dir);
	fds[A] = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fds[A] < 0 || write(fds[A], "0123456789abcdefghij", 20) != 20 ||
	    lseek(fds[A], 10, SEEK_SET) != 10)
		tree_die("%s", path);
	fds[B] = dup(fds[A]);
	fds[C] = open(path, O_RDONLY);
	if (fds[B] < 0 || fds[C] < 0 || lseek(fds[C], 3, SEEK_SET) != 3)
		tree_die("dup, open %s", path);

	if (pipe(p) || fcntl(p[0], F_SETFL, O_NONBLOCK) || write(p[1], "p1 data", 7) != 7)
		tree_die("pipe p1");
	fds[P1R] = p[0];
	fds[P1W] = p[1];
	if (pipe2(p, O_NONBLOCK))
		tree_die("pipe p2");
	fds[P2R] = p[0];
	fds[P2W] = p[1];
	if (pipe(p))
		tree_die("pipe p3");
	fds[P3R] = p[0];
	fds[P3W] = p[1];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[P3R]);
	fds[P3R2] = open(path, O_RDONLY | O_NONBLOCK);
	if (fds[P3R2] < 0)
		tree_die("%s", path);

	tree_local_file(path, sizeof(path), "fifo");
	if (mkfifo(path, 0600))
		tree_die("mkfifo %s", path);
	fds[FR] = open(path, O_RDONLY | O_NONBLOCK);
	fds[FW] = open(path, O_WRONLY);		/* a reader exists: does not block */
	fds[FB] = open(path, O_RDONLY);		/* a writer exists: does not block */
	fds[FRW] = open(path, O_RDWR);
	if (fds[FR] < 0 || fds[FW] < 0 || fds[FB] < 0 || fds[FRW] < 0 ||
	    write(fds[FW], "fifo data", 9) != 9)
		tree_die("%s", path);
	fds[STAT] = open("/proc/self/stat", O_RDONLY);
	if (fds[STAT] < 0 || read(fds[STAT], path, 5) != 5)
		tree_die("/proc/self/stat");
	for (int i = 0; i < NFDS; i++)
		flags[i] = fcntl(fds[i], F_GETFL);
}

static void check_flags(void)
{
	for (int i = 0; i < NFDS; i++) {
		int now = fcntl(fds[i], F_GETFL);

		if (now != flags[i])
			tree_fail("%s (fd %d): flags %#o, not %#o", names[i], fds[i], now, flags[i]);
	}
}

static off_t offset(int i)
{
	return lseek(fds[i], 0, SEEK_CUR);
}

/* a and b share their offset and flags, c has its own. */
static void check_sharing(off_t a_at)
{
	if (offset(A) != a_at || offset(B) != a_at || offset(C) != 3)
		tree_fail("offsets a %lld, b %lld, c %lld; not %lld, %lld, 3", (long long)offset(A),
			  (long long)offset(B), (long long)offset(C), (long long)a_at,
			  (long long)a_at);
	lseek(fds[A], 4, SEEK_SET);
	if (offset(B) != 4 || offset(C) != 3)
		tree_fail("moving a moved b to %lld and c to %lld", (long long)offset(B),
			  (long long)offset(C));
	lseek(fds[A], a_at, SEEK_SET);
	fcntl(fds[A], F_SETFL, flags[A] | O_APPEND);
	if (!(fcntl(fds[B], F_GETFL) & O_APPEND) || (fcntl(fds[C], F_GETFL) & O_APPEND))
		tree_fail("O_APPEND on a is not on b alone");
	fcntl(fds[A], F_SETFL, flags[A]);
}

static void expect_read(int i, const char *want)
{
	char buf[64];
	ssize_t n = read(fds[i], buf, sizeof(buf));

	if (n != (ssize_t)strlen(want) || memcmp(buf, want, n))
		tree_fail("%s: read %zd bytes (%s), not \"%s\"", names[i], n,
			  n < 0 ? strerror(errno) : "other bytes", want);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * A non-blocking read end with nothing in its pipe says EAGAIN at once.
 * One that came back blocking would block: an alarm cuts it short.
 */
static void expect_empty(int i)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	ssize_t n;
	char c;

	sigaction(SIGALRM, &sa, NULL);
	alarm(2);
	n = read(fds[i], &c, 1);
	alarm(0);
	if (n == -1 && errno == EINTR)
		tree_fail("%s: a read of the empty pipe blocks", names[i]);
	else if (n != -1 || errno != EAGAIN)
		tree_fail("%s: a read of the empty pipe did not fail with EAGAIN", names[i]);
}

/* @fd reads, from its start, what /proc/@pid/@name has now: @pid's own file. */
static void check_proc_file(int fd, pid_t pid, const char *name, const char *want_fmt)
{
	char buf[256], want[64];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	snprintf(want, sizeof(want), want_fmt, (int)pid);
	if (n < 0)
		tree_fail("/proc/%d/%s: %s", (int)pid, name, strerror(errno));
	buf[n < 0 ? 0 : n] = '\0';
	if (!strstr(buf, want))
		tree_fail("/proc/%d/%s does not say \"%s\"", (int)pid, name, want);
}

static void root_check(void)
{
	off_t a_at = offset(A);

	check_flags();
	check_sharing(10);
	if (offset(STAT) != 5)
		tree_fail("/proc/self/stat at offset %lld, not 5", (long long)offset(STAT));
	check_proc_file(fds[STAT], getpid(), "stat", "%d (descs)");
	if (child_pid)
		check_proc_file(child_status_fd, child_pid, "status", "\nPid:\t%d\n");
	expect_read(P1R, "p1 data");
	expect_empty(P1R);
	expect_empty(P2R);
	expect_empty(P3R2);
	expect_read(FR, "fifo data");
	expect_empty(FR);
	if (child_pid) {
		kill(child_pid, SIGUSR1);
		if (tree_wait_file("check", "child", 60))
			tree_fail("the child did not check itself");
		if (offset(A) != a_at + 5)
			tree_fail("the child's write through a left the offset at %lld, not %lld",
				  (long long)offset(A), (long long)a_at + 5);
	}
	tree_report_to("check");
}

static void __attribute__((noreturn)) child(void)
{
	tree_become("child");
	tree_announce();
	for (;;) {
		tree_wait_signal();
		if (tree_usr1) {
			tree_usr1 = 0;
			check_flags();
			check_proc_file(fds[STAT], getppid(), "stat", "%d (descs)");
			if (write(fds[A], "child", 5) != 5)
				tree_fail("writing through a: %s", strerror(errno));
			tree_report_to("check");
		}
		if (tree_term)
			exit(0);
		tree_usr2 = 0;
	}
}

int main(int argc, char **argv)
{
	bool with_child = false;
	char path[64];

	if (argc >= 3 && !strcmp(argv[1], "--fork")) {
		with_child = true;
		argv++;
		argc--;
	}
	tree_take_local(&argc, &argv);
	if (argc != 2) {
		fprintf(stderr, "usage: descs [--fork] [--local LDIR] DIR\n");
		return 2;
	}
	tree_dir = argv[1];
	tree_become("root");
	tree_catch_signals();
	open_files();
	if (with_child) {
		child_pid = fork();
		if (child_pid < 0)
			tree_die("fork");
		if (child_pid == 0)
			child();
		if (tree_wait_file("pid", "child", 120))
			tree_die("the child did not start");
		snprintf(path, sizeof(path), "/proc/%d/status", (int)child_pid);
		child_status_fd = open(path, O_RDONLY);
		if (child_status_fd < 0)
			tree_die("%s", path);
	}
	tree_announce();
	tree_ready();
	for (;;) {
		tree_wait_signal();
		if (tree_usr1) {
			tree_usr1 = 0;
			root_check();
		}
		if (tree_term)
			exit(0);
		tree_usr2 = 0;
	}
}
