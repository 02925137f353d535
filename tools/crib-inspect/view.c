// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the views (--ps-tree, --files, --sockets, --memory, --stats) share:
 * their state made, with the options and where they print, and their
 * header line printed; the stream read once, each record handed to the
 * view, what it kept printed at the end, as text or as one JSON document
 * with the verdict on the stream; and the --pid filter, by the record's
 * own pid field.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

void view_json_item(struct view_out *out)
{
	fputs(out->items++ ? ",\n" : "\n", stdout);
}

void json_key_string(const char *key, const char *value)
{
	printf("\"%s\":", key);
	crib_json_print_path(stdout, value);
}

/* The pid field of @rec, if its type has one (header, ghosts, notes do not). */
static bool record_pid(const struct crib_record *rec, uint64_t *pid)
{
	if (!rec->info)
		return false;
	for (size_t i = 0; i < rec->info->body->nfields; i++) {
		const struct crib_field *f = &rec->info->body->fields[i];

		if (f->type == CRIB_FT_UINT && !strcmp(f->name, "pid")) {
			memcpy(pid, (const uint8_t *)&rec->u + f->offset, sizeof(*pid));
			return true;
		}
	}
	return false;
}

bool record_filtered_out(const struct options *o, const struct crib_record *rec)
{
	uint64_t pid;

	return o->have_pid && record_pid(rec, &pid) && pid != o->pid;
}

/* The status object that ends a JSON view: the stream's verdict. */
static void print_status(const struct crib_error *err)
{
	printf("\"status\":");
	if (!err) {
		printf("{\"ok\":true}}\n");
		return;
	}
	printf("{\"ok\":false,\"error\":");
	crib_json_print_string(stdout, crib_err_name(err->code), strlen(crib_err_name(err->code)));
	printf(",\"message\":");
	crib_json_print_string(stdout, err->msg, strlen(err->msg));
	printf(",\"file_offset\":%" PRIu64 "}}\n", err->file_offset);
}

static void view_free(const struct view_ops *v, void *state)
{
	if (v->release)
		v->release(state);
	free(state);
}

/* @v's state, its header printed unless as JSON; NULL when out of memory. */
static void *view_start(const struct view_ops *v, const struct options *o,
			const struct crib_header *h, struct view_out *out)
{
	struct view *state = calloc(1, v->size);

	if (!state)
		return NULL;
	state->o = o;
	state->out = out;
	if (v->start && v->start(state, h)) {
		view_free(v, state);
		return NULL;
	}
	if (!out->json && v->header)
		printf("%s\n", v->header);
	return state;
}

int run_view(const char *path, const struct options *o, const struct view_ops *v)
{
	struct view_out out = { .json = o->json };
	const struct crib_error *err = NULL;
	struct crib_error why;
	struct crib_record rec;
	struct crib_reader *r;
	void *state = NULL;
	int fd, code, ret;

	if (out.json)
		printf("{\"format\":\"crib-snapshot\",\"view\":\"%s\",", v->name);
	r = open_snapshot(path, o, &fd, &code, &why);
	if (!r) {
		if (out.json) {
			printf("\"%s\":[],", v->items);
			print_status(&why);
		}
		return code;
	}
	state = view_start(v, o, crib_reader_header(r), &out);
	if (!state) {
		fprintf(stderr, "crib-inspect: out of memory\n");
		close_snapshot(r, fd);
		return EXIT_IO;
	}
	if (out.json)
		printf("\"%s\":[", v->items);
	while ((ret = crib_reader_next(r, &rec)) > 0)
		v->record(state, &rec);
	out.input_bytes = crib_reader_input_offset(r);
	if (ret < 0)
		err = crib_reader_error(r);
	out.failed = err;
	code = v->finish ? v->finish(state) : EXIT_OK;
	if (!out.json && v->none && !out.rows)
		printf("(no %s%s)\n", v->none, o->have_pid ? " of that process" : "");
	if (out.json) {
		printf("%s],", out.items ? "\n" : "");
		print_status(err);
	}
	if (err) {
		fflush(stdout);
		report_error(path, err);
		code = exit_code_for(err->code);
	}
	view_free(v, state);
	close_snapshot(r, fd);
	return code;
}
