// SPDX-License-Identifier: GPL-2.0
/*
 * Where the snapshot goes: standard output, or FILE.  A FILE is written
 * as a temporary file in its directory and renamed into place only once
 * the snapshot is complete and on disk, before the processes are killed:
 * a dump that fails never destroys the snapshot FILE held, and a process
 * is never killed for a snapshot that did not reach the disk.  An existing
 * FILE is replaced only when asked (--force), as zstd does.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

static int to_stdout(struct dump_file *out, struct tool_error *err)
{
	if (isatty(STDOUT_FILENO))
		return tool_fail(err, 0, "refusing to write a snapshot to a terminal; use -o FILE "
				 "or a redirection");
	out->fd = STDOUT_FILENO;
	return 0;
}

int output_open(struct dump_file *out, const char *path, bool force, struct tool_error *err)
{
	char dir[PATH_MAX], base[PATH_MAX];

	*out = (struct dump_file){ .path = path, .fd = -1 };
	if (!path)
		return to_stdout(out, err);
	if (!force && !access(path, F_OK))
		return tool_fail(err, EEXIST, "%s: not replaced (--force replaces it)", path);
	if (strlen(path) >= sizeof(dir))
		return tool_fail(err, ENAMETOOLONG, "%s", path);
	strcpy(dir, path);
	strcpy(base, path);
	if (snprintf(out->tmp, sizeof(out->tmp), "%s/.%s.XXXXXX", dirname(dir),
		     basename(base)) >= (int)sizeof(out->tmp))
		return tool_fail(err, ENAMETOOLONG, "%s", path);
	out->fd = mkostemp(out->tmp, O_CLOEXEC);
	if (out->fd < 0) {
		out->tmp[0] = '\0';
		return tool_fail(err, errno, "cannot create a file next to %s", path);
	}
	return 0;
}

/* The rename itself on disk: the directory's entry. */
static int sync_dir_of(const char *path)
{
	char dir[PATH_MAX];
	int fd, ret;

	snprintf(dir, sizeof(dir), "%s", path);
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = fsync(fd);
	close(fd);
	return ret;
}

int output_commit(struct dump_file *out, struct tool_error *err)
{
	struct stat st;

	/* A pipe or a terminal has nothing to sync; a regular file must be. */
	if (!fstat(out->fd, &st) && S_ISREG(st.st_mode) && fsync(out->fd))
		return tool_fail(err, errno, "writing %s", out->path ? out->path : "the snapshot");
	if (!out->path)
		return 0;
	if (close(out->fd)) {
		out->fd = -1;
		return tool_fail(err, errno, "writing %s", out->path);
	}
	out->fd = -1;
	if (rename(out->tmp, out->path))
		return tool_fail(err, errno, "cannot put the snapshot in place as %s", out->path);
	out->tmp[0] = '\0';
	if (sync_dir_of(out->path))
		return tool_fail(err, errno, "syncing the directory of %s", out->path);
	return 0;
}

void output_abort(struct dump_file *out)
{
	if (!out->path)
		return;
	if (out->fd >= 0)
		close(out->fd);
	out->fd = -1;
	if (out->tmp[0])
		unlink(out->tmp);
	out->tmp[0] = '\0';
}
