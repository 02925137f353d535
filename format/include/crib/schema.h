/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The record type registry.  Every record type of the format is described
 * once, as a table of fields (CBOR key, name, value type, limits, place in
 * the C struct).  The writer encodes from it, the reader decodes and checks
 * against it, crib-inspect prints and compares with it, and a test checks
 * that spec/snapshot.cddl names the same types and keys.
 */
#ifndef CRIB_SCHEMA_H
#define CRIB_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum crib_field_type {
	CRIB_FT_UINT,		/* uint64_t; CBOR uint */
	CRIB_FT_INT,		/* int64_t; CBOR uint or nint */
	CRIB_FT_BOOL,		/* bool; CBOR true/false */
	CRIB_FT_TEXT,		/* const char *; CBOR tstr, UTF-8, no NUL */
	CRIB_FT_PATH,		/* const char *; CBOR bstr, no NUL (paths are bytes) */
	CRIB_FT_BLOB,		/* struct crib_blob; CBOR bstr */
	CRIB_FT_UINT_ARRAY,	/* const uint64_t *, size_t count; CBOR [* uint] */
	CRIB_FT_STRUCT,		/* embedded struct; CBOR map */
	CRIB_FT_STRUCT_ARRAY,	/* const struct *, size_t count; CBOR [* map] */
};

/* Field flags. */
#define CRIB_FIELD_REQUIRED	0x01	/* always encoded; a reader refuses a record without it */
#define CRIB_FIELD_VOLATILE	0x02	/* ignored by crib-inspect --diff --ignore-volatile */
#define CRIB_FIELD_ID		0x04	/* part of the record's identity (for --diff) */
#define CRIB_FIELD_BULK		0x08	/* bulk data: summarised, not printed */
#define CRIB_FIELD_HEX		0x10	/* shown in hex by crib-inspect */

struct crib_struct_desc;

struct crib_field {
	uint32_t key;
	uint8_t type;		/* enum crib_field_type */
	uint8_t flags;
	const char *name;
	size_t offset;		/* of the value (or array pointer) in the struct */
	size_t count_offset;	/* of the size_t element count, for arrays */
	uint32_t max;		/* bytes for strings/blobs, elements for arrays; 0 = type default */
	const struct crib_struct_desc *sub;
};

struct crib_struct_desc {
	const char *name;	/* CDDL rule name */
	size_t size;		/* sizeof the C struct */
	const struct crib_field *fields;	/* sorted by key */
	size_t nfields;
};

struct crib_record_info {
	uint32_t type;
	const char *name;	/* record name in the spec, the CDDL and --json */
	const char *section;	/* crib-inspect --section name */
	const struct crib_struct_desc *body;
};

/* All record types this library knows, sorted by type; NULL-terminated count in *n. */
const struct crib_record_info *crib_record_types(size_t *n);
/* The entry for a type, or NULL when this library does not know it. */
const struct crib_record_info *crib_record_info_by_type(uint32_t type);
const struct crib_record_info *crib_record_info_by_name(const char *name);
/* The field with a given key, or NULL. */
const struct crib_field *crib_field_by_key(const struct crib_struct_desc *d, uint64_t key);

/* Helpers for the tables in process.c, mm.c, ... */
#define CRIB_F(k, t, fl, s, m, mx, sb) \
	{ .key = (k), .type = (t), .flags = (fl), .name = #m, \
	  .offset = offsetof(s, m), .count_offset = 0, .max = (mx), .sub = (sb) }
#define CRIB_FA(k, t, fl, s, m, mx, sb) \
	{ .key = (k), .type = (t), .flags = (fl), .name = #m, \
	  .offset = offsetof(s, m), .count_offset = offsetof(s, n_##m), .max = (mx), .sub = (sb) }
#define CRIB_DESC(n, s, f) \
	{ .name = (n), .size = sizeof(s), .fields = (f), .nfields = sizeof(f) / sizeof((f)[0]) }

#endif /* CRIB_SCHEMA_H */
