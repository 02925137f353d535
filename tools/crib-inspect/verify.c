// SPDX-License-Identifier: GPL-2.0-only
/*
 * --verify: read the whole stream, which checks its framing, limits,
 * schema, trailer counts and checksum, and print only the verdict.
 */
#include <inttypes.h>

#include "inspect.h"

int run_verify(const char *path, const struct options *o)
{
	struct crib_record rec;
	struct crib_reader *r;
	uint64_t records = 0;
	int fd, code, ret;

	r = open_snapshot(path, o, &fd, &code, NULL);
	if (!r)
		return code;
	while ((ret = crib_reader_next(r, &rec)) > 0)
		records++;
	if (ret < 0) {
		report_error(path, crib_reader_error(r));
		code = exit_code_for(crib_reader_error(r)->code);
	} else {
		printf("%s: OK, format %u.%u, %" PRIu64 " records, checksum verified\n", path,
		       crib_reader_header(r)->version_major, crib_reader_header(r)->version_minor,
		       records);
		code = EXIT_OK;
	}
	close_snapshot(r, fd);
	return code;
}
