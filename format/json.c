// SPDX-License-Identifier: GPL-2.0-only
/* JSON output of records, table-driven like everything else. */
#include <inttypes.h>
#include <string.h>

#include "internal.h"

void crib_json_print_string(FILE *f, const char *s, size_t len)
{
	fputc('"', f);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void print_hex(FILE *f, const void *data, size_t len)
{
	const uint8_t *p = data;

	fputc('"', f);
	for (size_t i = 0; i < len; i++)
		fprintf(f, "%02x", p[i]);
	fputc('"', f);
}

void crib_json_print_path(FILE *f, const char *path)
{
	size_t len = path ? strlen(path) : 0;

	/* Paths are bytes; those that are not UTF-8 are given in hex. */
	if (crib_utf8_valid((const uint8_t *)path, len)) {
		crib_json_print_string(f, path ? path : "", len);
	} else {
		fputs("{\"hex\":", f);
		print_hex(f, path, len);
		fputc('}', f);
	}
}

static void print_struct(FILE *f, const struct crib_struct_desc *d, const void *s)
{
	fputc('{', f);
	for (size_t i = 0; i < d->nfields; i++) {
		if (i)
			fputc(',', f);
		fprintf(f, "\"%s\":", d->fields[i].name);
		crib_json_print_field(f, &d->fields[i], s);
	}
	fputc('}', f);
}

void crib_json_print_field(FILE *f, const struct crib_field *fd, const void *s)
{
	const uint8_t *p = (const uint8_t *)s + fd->offset;

	switch (fd->type) {
	case CRIB_FT_UINT:
		fprintf(f, "%" PRIu64, *(const uint64_t *)p);
		break;
	case CRIB_FT_INT:
		fprintf(f, "%" PRId64, *(const int64_t *)p);
		break;
	case CRIB_FT_BOOL:
		fputs(*(const bool *)p ? "true" : "false", f);
		break;
	case CRIB_FT_TEXT:
	case CRIB_FT_PATH: {
		crib_json_print_path(f, *(const char *const *)p);
		break;
	}
	case CRIB_FT_BLOB: {
		const struct crib_blob *b = (const struct crib_blob *)p;

		if (fd->flags & CRIB_FIELD_BULK)
			fprintf(f, "{\"len\":%zu,\"xxh64\":\"%016" PRIx64 "\"}", b->len,
				crib_xxh64(b->data, b->len, 0));
		else
			print_hex(f, b->data, b->len);
		break;
	}
	case CRIB_FT_UINT_ARRAY: {
		const uint64_t *v = *(const uint64_t *const *)p;
		size_t n = *(const size_t *)((const uint8_t *)s + fd->count_offset);

		fputc('[', f);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s%" PRIu64, i ? "," : "", v[i]);
		fputc(']', f);
		break;
	}
	case CRIB_FT_STRUCT:
		print_struct(f, fd->sub, p);
		break;
	case CRIB_FT_STRUCT_ARRAY: {
		const uint8_t *v = *(const uint8_t *const *)p;
		size_t n = *(const size_t *)((const uint8_t *)s + fd->count_offset);

		fputc('[', f);
		for (size_t i = 0; i < n; i++) {
			if (i)
				fputc(',', f);
			print_struct(f, fd->sub, v + i * fd->sub->size);
		}
		fputc(']', f);
		break;
	}
	}
}

void crib_json_print_record(FILE *f, const struct crib_record *rec)
{
	fprintf(f, "{\"offset\":%" PRIu64 ",\"type\":", rec->offset);
	if (rec->info)
		crib_json_print_string(f, rec->info->name, strlen(rec->info->name));
	else
		fputs("null", f);
	fprintf(f, ",\"type_id\":%" PRIu32 ",\"critical\":%s", rec->type,
		crib_record_is_critical(rec->type) ? "true" : "false");
	if (rec->type == CRIB_REC_HEADER)
		fprintf(f, ",\"version\":[%u,%u]", rec->u.header.version_major,
			rec->u.header.version_minor);
	if (rec->info) {
		fputs(",\"fields\":", f);
		print_struct(f, rec->info->body, &rec->u);
	} else {
		fputs(",\"raw\":", f);
		print_hex(f, rec->raw, rec->raw_len);
	}
	fputc('}', f);
}
