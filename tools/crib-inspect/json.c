// SPDX-License-Identifier: GPL-2.0-only
/*
 * --json: every record as JSON (the format library's printer), then the
 * verdict on the stream, with where an error was found.
 */
#include <inttypes.h>
#include <string.h>

#include "inspect.h"

/* The status object of a stream that did not verify, and the document's end. */
static void print_failure(const struct crib_error *err)
{
	printf("{\"ok\":false,\"error\":");
	crib_json_print_string(stdout, crib_err_name(err->code), strlen(crib_err_name(err->code)));
	printf(",\"message\":");
	crib_json_print_string(stdout, err->msg, strlen(err->msg));
	printf(",\"file_offset\":%" PRIu64 "}}\n", err->file_offset);
}

int run_json(const char *path, const struct options *o)
{
	const struct crib_error *err;
	struct crib_error why;
	struct crib_record rec;
	struct crib_reader *r;
	bool first = true;
	int fd, code, ret;

	printf("{\"format\":\"crib-snapshot\",\"records\":[");
	r = open_snapshot(path, o, &fd, &code, &why);
	if (!r) {
		printf("],\"status\":");
		print_failure(&why);
		return code;
	}
	while ((ret = crib_reader_next(r, &rec)) > 0) {
		if (!section_selected(o, &rec) || record_filtered_out(o, &rec))
			continue;
		printf("%s\n", first ? "" : ",");
		crib_json_print_record(stdout, &rec);
		first = false;
	}
	printf("\n],\"status\":");
	if (ret < 0) {
		err = crib_reader_error(r);
		print_failure(err);
		report_error(path, err);
		code = exit_code_for(err->code);
	} else {
		printf("{\"ok\":true}}\n");
		code = EXIT_OK;
	}
	close_snapshot(r, fd);
	return code;
}
