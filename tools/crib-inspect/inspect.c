// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the subcommands of crib-inspect share: opening a snapshot, its
 * errors reported and turned into an exit code, the sections asked for.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inspect.h"

int exit_code_for(enum crib_err code)
{
	return tool_exit_for(code);
}

void report_error(const char *path, const struct crib_error *err)
{
	fprintf(stderr, "crib-inspect: %s: %s: %s (file offset %" PRIu64, path,
		crib_err_name(err->code), err->msg, err->file_offset);
	if (err->stream_offset != CRIB_OFFSET_NONE)
		fprintf(stderr, ", record stream offset %" PRIu64, err->stream_offset);
	fputs(")\n", stderr);
}

/* A failure before the reader exists, as the reader would report it. */
static struct crib_reader *open_failed(struct crib_error *why, const char *msg, int code,
				       int *exit_code)
{
	if (why) {
		*why = (struct crib_error){ .code = CRIB_E_IO, .stream_offset = CRIB_OFFSET_NONE };
		snprintf(why->msg, sizeof(why->msg), "%s", msg);
	}
	*exit_code = code;
	return NULL;
}

struct crib_reader *open_snapshot(const char *path, const struct options *o, int *fd_out,
				  int *exit_code, struct crib_error *why)
{
	CRIB_OPTS(crib_reader_opts, opts, .max_size = o->max_size);
	struct crib_reader *r;
	struct crib_error err;
	int fd = 0;

	if (!strcmp(path, "-") && isatty(STDIN_FILENO)) {
		/* as zstd -d: a snapshot is never typed in */
		fprintf(stderr, "crib-inspect: standard input is a terminal: give a snapshot "
			"file, or pipe one in\n");
		return open_failed(why, "standard input is a terminal", EXIT_USAGE, exit_code);
	}
	if (strcmp(path, "-")) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "crib-inspect: %s: %s\n", path, strerror(errno));
			return open_failed(why, strerror(errno), EXIT_IO, exit_code);
		}
	}
	r = crib_reader_open(fd, &opts, &err);
	if (!r) {
		report_error(path, &err);
		*exit_code = exit_code_for(err.code);
		if (why)
			*why = err;
		if (fd)
			close(fd);
		return NULL;
	}
	*fd_out = fd;
	return r;
}

void close_snapshot(struct crib_reader *r, int fd)
{
	crib_reader_close(r);
	if (fd > 0)
		close(fd);
}

bool section_selected(const struct options *o, const struct crib_record *rec)
{
	return section_name_selected(o, rec->info ? rec->info->section : "other");
}

bool section_name_selected(const struct options *o, const char *name)
{
	size_t len = strlen(name);
	const char *p = o->sections;

	if (!p)
		return true;
	while (*p) {
		const char *end = strchrnul(p, ',');

		if ((size_t)(end - p) == len && !strncmp(p, name, len))
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

const char *size_str(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "BKMGTPE";
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 6) {
		v /= 1024;
		u++;
	}
	if (u)
		snprintf(buf, len, "%.1f%c", v, units[u]);
	else
		snprintf(buf, len, "%" PRIu64 "B", bytes);
	return buf;
}

/*
 * Names and paths are bytes a process chose: an escape sequence among
 * them would drive the reader's terminal.  What is not printable ASCII
 * (and the backslash, so the escape reads back) is shown as \xNN.
 */
void print_text(const char *text)
{
	for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
		if (*p >= 0x20 && *p < 0x7f && *p != '\\')
			putchar(*p);
		else
			printf("\\x%02x", *p);
	}
}

void print_path(const char *path)
{
	if (!path || !*path)
		putchar('-');
	else
		print_text(path);
}
