// SPDX-License-Identifier: GPL-2.0
/*
 * --verify: once restored, the tree is dumped again by crib-dump
 * --leave-running and that dump is compared with the snapshot, volatile
 * fields (spec/format.md, §9) and the parents aside, by the format
 * library's comparison.  A tree that differs is killed: it must not run
 * on as if restored.
 *
 * The tree runs between its restore and the second dump, so what it
 * changes of itself by then (a counter counting, a sleep cut short) shows
 * as a difference: the check suits processes that wait.
 *
 * The snapshot is read once for the restore and once for the comparison:
 * a regular file is read again from where it started, anything else (a
 * pipe) is first copied into a memfd that both reads use.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crib-restore.h"
#include "plan.h"
#include "verify.h"

#define COPY_CHUNK	(1u << 20)

/*
 * Besides the volatile fields: a restored root is the child of whoever
 * restored it.  The comparison names fields, not records, so every
 * process's parent is left out; the others' are right by construction,
 * each forked by its restored parent.
 */
static const char *const not_restored[] = { "process.ppid", NULL };

static int copy_to_memfd(int fd, struct tool_error *err)
{
	char *buf = malloc(COPY_CHUNK);
	ssize_t n, w, done;
	int mfd;

	if (!buf)
		return tool_fail(err, 0, "out of memory");
	mfd = memfd_create("crib-restore-input", MFD_CLOEXEC);
	if (mfd < 0) {
		free(buf);
		return tool_fail(err, errno, "memfd_create");
	}
	for (;;) {
		n = read(fd, buf, COPY_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (done = 0; done < n; done += w) {
			w = write(mfd, buf + done, (size_t)(n - done));
			if (w < 0)
				goto fail;
		}
	}
	if (n < 0) {
		tool_fail(err, errno, "reading the snapshot");
		goto out_close;
	}
	if (lseek(mfd, 0, SEEK_SET) < 0)
		goto fail;
	free(buf);
	return mfd;
fail:
	tool_fail(err, errno, "keeping a copy of the snapshot");
out_close:
	close(mfd);
	free(buf);
	return -1;
}

int verify_keep_input(int fd, struct verify_input *in, struct tool_error *err)
{
	struct stat st;

	in->start = 0;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
		in->start = lseek(fd, 0, SEEK_CUR);
		in->fd = in->start < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (in->fd < 0)
			return tool_fail(err, errno, "cannot keep the snapshot");
		return 0;
	}
	in->fd = copy_to_memfd(fd, err);
	return in->fd < 0 ? -1 : 0;
}

void verify_input_close(struct verify_input *in)
{
	if (in->fd >= 0)
		close(in->fd);
	in->fd = -1;
}

/* crib-dump next to this program, else wherever PATH finds it. */
static void find_crib_dump(char *path, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			if ((size_t)snprintf(path, len, "%s/crib-dump", self) < len &&
			    !access(path, X_OK))
				return;
		}
	}
	snprintf(path, len, "crib-dump");
}

/* Dump @pid, leaving it running, into a new memfd; returns it or -1. */
static int dump_again(pid_t pid, const struct restore_options *opt, struct tool_error *err)
{
	char dumper[PATH_MAX], pid_arg[16];
	int out, status;
	pid_t child;

	find_crib_dump(dumper, sizeof(dumper));
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)pid);
	out = memfd_create("crib-restore-verify", MFD_CLOEXEC);
	if (out < 0)
		return tool_fail(err, errno, "memfd_create");
	restore_verbose(opt, "verify: %s -p %s --leave-running%s\n", dumper, pid_arg,
			opt->quiet ? " --quiet" : "");
	child = fork();
	if (child == 0) {
		if (dup2(out, STDOUT_FILENO) == STDOUT_FILENO)
			execlp(dumper, "crib-dump", "-p", pid_arg, "--leave-running",
			       opt->quiet ? "--quiet" : (char *)NULL, (char *)NULL);
		fprintf(stderr, "crib-restore: cannot run %s: %s\n", dumper, strerror(errno));
		_exit(127);
	}
	if (child < 0) {
		tool_fail(err, errno, "fork");
		goto fail;
	}
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR) {
			tool_fail(err, errno, "waiting for crib-dump");
			goto fail;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		tool_fail(err, 0, "cannot verify: crib-dump of the restored process failed "
			  "(status %#x)", status);
		goto fail;
	}
	if (lseek(out, 0, SEEK_SET) < 0) {
		tool_fail(err, errno, "lseek");
		goto fail;
	}
	return out;
fail:
	close(out);
	return -1;
}

/* Read a whole snapshot from @fd for the comparison. */
static struct crib_diff_side *read_side(int fd, const char *what, struct tool_error *err)
{
	struct crib_diff_side *side = NULL;
	struct crib_error cerr;
	struct crib_reader *r;

	r = crib_reader_open(fd, NULL, &cerr);
	if (r) {
		side = crib_diff_side_read(r, CRIB_DIFF_IGNORE_VOLATILE, &cerr);
		crib_reader_close(r);
	}
	if (!side)
		tool_fail(err, 0, "cannot verify: %s: %s", what, cerr.msg);
	return side;
}

/* Compare; differences go to standard error.  Returns 0 when there are none. */
static int compare(int snap_fd, int again_fd, struct tool_error *err)
{
	struct crib_diff_side *a, *b = NULL;
	char *text = NULL;
	size_t len = 0;
	unsigned n = 0;
	FILE *out;
	int ret = -1;

	a = read_side(snap_fd, "the snapshot read again", err);
	if (a)
		b = read_side(again_fd, "the dump of the restored process", err);
	if (!b)
		goto out;
	out = open_memstream(&text, &len);
	if (!out) {
		tool_fail(err, 0, "out of memory");
		goto out;
	}
	n = crib_diff(a, b, &(struct crib_diff_options) {
			.flags = CRIB_DIFF_IGNORE_VOLATILE, .ignore = not_restored }, out);
	if (fclose(out)) {
		tool_fail(err, 0, "out of memory");
		goto out;
	}
	if (n) {
		fprintf(stderr, "crib-restore: the restored process differs from its snapshot "
			"(A: the snapshot, B: the restored process):\n%s", text);
		tool_fail(err, 0, "verification failed: %u difference%s", n, n == 1 ? "" : "s");
		goto out;
	}
	ret = 0;
out:
	free(text);
	crib_diff_side_free(a);
	crib_diff_side_free(b);
	return ret;
}

/*
 * Kill the restored tree and collect every process of it, so that the
 * PIDs are free again: crib-restore becomes a child subreaper for it, so
 * that the orphans come to it rather than to init.
 */
static void kill_restored(const struct restore_tree *tree)
{
	int status;

	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	for (size_t i = 0; i < tree->procs.n; i++)
		kill((pid_t)tree->procs.items[i]->proc.pid, SIGKILL);
	while (waitpid(-1, &status, __WALL) > 0 || errno == EINTR)
		;
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
}

int verify_restored(const struct restore_tree *tree, const struct verify_input *in,
		    const struct restore_options *opt, struct tool_error *err)
{
	pid_t pid = (pid_t)plan_root(tree)->proc.pid;
	int again, ret = -1;

	again = dump_again(pid, opt, err);
	if (again < 0)
		goto out;
	if (lseek(in->fd, in->start, SEEK_SET) < 0) {
		tool_fail(err, errno, "cannot read the snapshot again");
		goto out_close;
	}
	ret = compare(in->fd, again, err);
	if (!ret)
		restore_verbose(opt, "verify: process %d matches its snapshot\n", (int)pid);
out_close:
	close(again);
out:
	if (ret) {
		kill_restored(tree);
		tool_error_append(err, tree->procs.n > 1 ? "; process %d and its descendants "
				  "were killed" : "; process %d was killed", (int)pid);
	}
	return ret;
}
