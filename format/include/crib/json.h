/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The JSON form of records, as documented in spec/format.md ("JSON
 * representation").  Tools that emit JSON use this so the output is the same
 * everywhere.
 */
#ifndef CRIB_JSON_H
#define CRIB_JSON_H

#include <stdio.h>

#include <crib/reader.h>

/* A JSON string literal for bytes that are valid UTF-8 without NUL. */
void crib_json_print_string(FILE *f, const char *s, size_t len);
/* A path or name as the records give it: a string, or {"hex":...} when not UTF-8. */
void crib_json_print_path(FILE *f, const char *path);
/* One record as a JSON object (no trailing newline). */
void crib_json_print_record(FILE *f, const struct crib_record *rec);
/* The value of one field of a struct described by d. */
void crib_json_print_field(FILE *f, const struct crib_field *field, const void *s);

#endif /* CRIB_JSON_H */
