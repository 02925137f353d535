// SPDX-License-Identifier: GPL-2.0
/*
 * A workload holding every kind of file lock, each on a file of its own
 * in DIR: "posix", a POSIX read lock on bytes 0-9 and write locks on
 * 100-199 and from 1000 to the end of the file; "ofd", an OFD write lock
 * on bytes 0-49; "flock", opened before a fork and locked by the child
 * (flock() exclusive), so that the lock belongs to a description both
 * hold and /proc/locks names the child; "lease", opened read-only with a
 * read lease.  Writes "POSIX OFD FLOCK LEASE CHILD" (the four descriptors
 * and the child's PID) to DIR/ready once set up.
 *
 * On SIGUSR1 it checks that it still holds them all, as another process
 * sees them: a checker it forks finds each POSIX lock with F_GETLK (its
 * type, range and this PID) and none between them, the OFD lock with
 * F_OFD_GETLK and cannot take it, and cannot take the flock(); the
 * process itself finds its lease with F_GETLEASE.  Writes the verdict to
 * DIR/check.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "selfcheck.h"

struct held {
	int posix, ofd, flock, lease;
	pid_t child;
};

static int open_in(const char *dir, const char *name, int flags)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, flags | O_CREAT, 0644);
}

static int range_lock(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };

	return fcntl(fd, cmd, &fl);
}

/* The child shares the description of @fd and takes its flock() itself. */
static pid_t flock_in_child(int fd)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	if (flock(fd, LOCK_EX | LOCK_NB))
		_exit(1);
	for (;;)
		pause();
}

static int set_up(const char *dir, struct held *h)
{
	h->posix = open_in(dir, "posix", O_RDWR);
	h->ofd = open_in(dir, "ofd", O_RDWR);
	h->flock = open_in(dir, "flock", O_RDWR);
	close(open_in(dir, "lease", O_WRONLY));
	h->lease = open_in(dir, "lease", O_RDONLY);
	if (h->posix < 0 || h->ofd < 0 || h->flock < 0 || h->lease < 0)
		return -1;
	if (range_lock(h->posix, F_SETLK, F_RDLCK, 0, 10) ||
	    range_lock(h->posix, F_SETLK, F_WRLCK, 100, 100) ||
	    range_lock(h->posix, F_SETLK, F_WRLCK, 1000, 0) ||
	    range_lock(h->ofd, F_OFD_SETLK, F_WRLCK, 0, 50) ||
	    fcntl(h->lease, F_SETLEASE, F_RDLCK))
		return -1;
	h->child = flock_in_child(h->flock);
	return h->child < 0 ? -1 : 0;
}

/* What F_GETLK reports for a write lock wanted on @start, @len. */
static void expect_posix(struct check_report *r, int fd, off_t start, off_t len, short type,
			 pid_t owner)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = start,
			    .l_len = len };

	if (fcntl(fd, F_GETLK, &fl)) {
		check_fail(r, "posix: F_GETLK on %lld: %s", (long long)start, strerror(errno));
		return;
	}
	if (fl.l_type != type || (type != F_UNLCK && (fl.l_start != start || fl.l_len != len ||
						      fl.l_pid != owner)))
		check_fail(r, "posix: bytes %lld+%lld: type %d start %lld len %lld pid %d, "
			   "expected type %d pid %d", (long long)start, (long long)len, fl.l_type,
			   (long long)fl.l_start, (long long)fl.l_len, fl.l_pid, type, owner);
}

static void check_others(struct check_report *r, const char *dir, pid_t owner)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 50 };
	int posix = open_in(dir, "posix", O_RDWR), ofd = open_in(dir, "ofd", O_RDWR);
	int other = open_in(dir, "flock", O_RDWR);

	if (posix < 0 || ofd < 0 || other < 0) {
		check_fail(r, "checker: cannot open the files: %s", strerror(errno));
		return;
	}
	expect_posix(r, posix, 0, 10, F_RDLCK, owner);
	expect_posix(r, posix, 100, 100, F_WRLCK, owner);
	expect_posix(r, posix, 1000, 0, F_WRLCK, owner);
	expect_posix(r, posix, 20, 50, F_UNLCK, 0);
	if (fcntl(ofd, F_OFD_GETLK, &fl) || fl.l_type != F_WRLCK || fl.l_start != 0 ||
	    fl.l_len != 50 || fl.l_pid != -1)
		check_fail(r, "ofd: F_OFD_GETLK: type %d start %lld len %lld pid %d", fl.l_type,
			   (long long)fl.l_start, (long long)fl.l_len, fl.l_pid);
	if (!range_lock(ofd, F_OFD_SETLK, F_RDLCK, 10, 1) || errno != EAGAIN)
		check_fail(r, "ofd: another description takes a read lock inside it");
	if (!flock(other, LOCK_SH | LOCK_NB) || errno != EWOULDBLOCK)
		check_fail(r, "flock: another description takes a shared flock()");
}

/* The report of a checker process, which does not share our POSIX locks. */
static void check_from_outside(struct check_report *r, const char *dir)
{
	pid_t owner = getpid(), pid;
	int pipefd[2], status;
	ssize_t n;

	if (pipe(pipefd)) {
		check_fail(r, "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (!pid) {
		struct check_report mine = { 0 };

		close(pipefd[0]);
		check_others(&mine, dir, owner);
		n = write(pipefd[1], mine.text, strlen(mine.text));
		_exit(n < 0);
	}
	close(pipefd[1]);
	n = read(pipefd[0], r->text + strlen(r->text),
		 sizeof(r->text) - strlen(r->text) - 1);
	close(pipefd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || n < 0)
		check_fail(r, "checker: did not finish");
}

int main(int argc, char **argv)
{
	struct check_report r = { 0 };
	struct held h;
	char text[96];
	int lease;

	if (argc != 2) {
		fprintf(stderr, "usage: locks DIR\n");
		return 2;
	}
	check_on_request();
	if (set_up(argv[1], &h))
		return 1;
	snprintf(text, sizeof(text), "%d %d %d %d %d\n", h.posix, h.ofd, h.flock, h.lease,
		 (int)h.child);
	snprintf(r.text, sizeof(r.text), "%s/ready", argv[1]);
	if (write_ready(r.text, text))
		return 1;
	r.text[0] = '\0';
	check_wait_for_request();
	check_from_outside(&r, argv[1]);
	lease = fcntl(h.lease, F_GETLEASE);
	if (lease != F_RDLCK)
		check_fail(&r, "lease: F_GETLEASE is %d, not F_RDLCK", lease);
	if (check_write(&r, argv[1]))
		return 1;
	for (;;)
		pause();
}
