// SPDX-License-Identifier: GPL-2.0-only
/*
 * --diff: the comparison itself is the format library's (crib/diff.h);
 * here the two snapshots are opened and the verdict becomes an exit code.
 */
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

static int load(const char *path, const struct options *o, unsigned flags,
		struct crib_diff_side **side)
{
	struct crib_error err;
	struct crib_reader *r;
	int fd, code;

	r = open_snapshot(path, o, &fd, &code, NULL);
	if (!r)
		return code;
	*side = crib_diff_side_read(r, flags, &err);
	code = EXIT_OK;
	if (!*side) {
		report_error(path, &err);
		code = exit_code_for(err.code);
	}
	close_snapshot(r, fd);
	return code;
}

int run_diff(const char *path_a, const char *path_b, const struct options *o)
{
	struct crib_diff_options opt = {
		.flags = o->ignore_volatile ? CRIB_DIFF_IGNORE_VOLATILE : 0,
	};
	struct crib_diff_side *a = NULL, *b = NULL;
	unsigned differences;
	int code;

	if (!strcmp(path_a, "-") && !strcmp(path_b, "-")) {
		fprintf(stderr, "crib-inspect: only one snapshot can come from stdin\n");
		return EXIT_USAGE;
	}
	code = load(path_a, o, opt.flags, &a);
	if (code == EXIT_OK)
		code = load(path_b, o, opt.flags, &b);
	if (code != EXIT_OK)
		goto out;
	differences = crib_diff(a, b, &opt, stdout);
	if (!differences)
		printf("no differences%s\n", o->ignore_volatile ? " (volatile fields ignored)" : "");
	code = differences ? EXIT_NEGATIVE : EXIT_OK;
out:
	crib_diff_side_free(a);
	crib_diff_side_free(b);
	return code;
}
