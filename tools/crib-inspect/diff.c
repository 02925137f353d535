// SPDX-License-Identifier: GPL-2.0-only
/*
 * --diff: match records of two snapshots by identity (record type plus the
 * fields flagged CRIB_FIELD_ID: pid, tid, fd, address ...) and compare them
 * field by field.  With --ignore-volatile an identity field that is also
 * volatile (a socket's inode number) is left out of the identity: records
 * that then look alike are paired in the order they come.  Records keep their raw encoding only up to RAW_KEEP bytes
 * (page data is compared by digest), so memory follows the metadata size.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

#define RAW_KEEP (64u << 10)

struct entry {
	char key[96];
	uint64_t seq;		/* position in the stream, to pair duplicates in order */
	uint32_t type;
	uint64_t digest;
	uint8_t *raw;		/* NULL when larger than RAW_KEEP */
	size_t raw_len;
};

struct side {
	const char *path;
	struct entry *e;
	size_t n, cap;
	uint64_t page_size;
	unsigned major, minor;
};

static void make_key(const struct crib_record *rec, bool ignore_volatile, char *buf,
		     size_t len)
{
	int n;

	if (!rec->info) {
		snprintf(buf, len, "record 0x%04x", rec->type);
		return;
	}
	n = snprintf(buf, len, "%s", rec->info->name);
	for (size_t i = 0; i < rec->info->body->nfields; i++) {
		const struct crib_field *f = &rec->info->body->fields[i];

		if (!(f->flags & CRIB_FIELD_ID) || f->type != CRIB_FT_UINT || n < 0 ||
		    (size_t)n >= len)
			continue;
		if (ignore_volatile && (f->flags & CRIB_FIELD_VOLATILE))
			continue;
		n += snprintf(buf + n, len - (size_t)n,
			      (f->flags & CRIB_FIELD_HEX) ? " %s=0x%" PRIx64 : " %s=%" PRIu64,
			      f->name, *(const uint64_t *)((const uint8_t *)&rec->u + f->offset));
	}
}

static uint64_t hash_struct(const struct crib_struct_desc *desc, const void *rec,
			    bool ignore_volatile, uint64_t h);

static uint64_t hash_field(const struct crib_field *f, const void *rec, bool ignore_volatile,
			   uint64_t h)
{
	const uint8_t *p = (const uint8_t *)rec + f->offset;
	const char *str;
	size_t n, esize;

	switch (f->type) {
	case CRIB_FT_UINT:
	case CRIB_FT_INT:
		return crib_xxh64(p, sizeof(uint64_t), h);
	case CRIB_FT_BOOL:
		return crib_xxh64(p, sizeof(bool), h);
	case CRIB_FT_TEXT:
	case CRIB_FT_PATH:
		str = *(const char *const *)p;
		return str ? crib_xxh64(str, strlen(str) + 1, h) : crib_xxh64("", 0, h);
	case CRIB_FT_BLOB:
		n = ((const struct crib_blob *)p)->len;
		h = crib_xxh64(&n, sizeof(n), h);
		return n ? crib_xxh64(((const struct crib_blob *)p)->data, n, h) : h;
	case CRIB_FT_STRUCT:
		return hash_struct(f->sub, p, ignore_volatile, h);
	case CRIB_FT_UINT_ARRAY:
	case CRIB_FT_STRUCT_ARRAY:
		n = *(const size_t *)((const uint8_t *)rec + f->count_offset);
		esize = f->type == CRIB_FT_UINT_ARRAY ? sizeof(uint64_t) : f->sub->size;
		h = crib_xxh64(&n, sizeof(n), h);
		for (size_t i = 0; i < n; i++) {
			const uint8_t *e = *(const uint8_t *const *)p + i * esize;

			h = f->type == CRIB_FT_UINT_ARRAY ? crib_xxh64(e, esize, h) :
			    hash_struct(f->sub, e, ignore_volatile, h);
		}
		return h;
	}
	return h;
}

/*
 * A digest of a record's decoded fields, volatile ones left out when they
 * are ignored: what compares records too large to keep whole.
 */
static uint64_t hash_struct(const struct crib_struct_desc *desc, const void *rec,
			    bool ignore_volatile, uint64_t h)
{
	for (size_t i = 0; i < desc->nfields; i++) {
		const struct crib_field *f = &desc->fields[i];

		if (ignore_volatile && (f->flags & CRIB_FIELD_VOLATILE))
			continue;
		h = hash_field(f, rec, ignore_volatile, h);
	}
	return h;
}

static int load(struct side *s, bool ignore_volatile)
{
	struct crib_record rec;
	struct crib_reader *r;
	int fd, code, ret;

	r = open_snapshot(s->path, &fd, &code);
	if (!r)
		return code;
	s->page_size = crib_reader_header(r)->page_size;
	s->major = crib_reader_header(r)->version_major;
	s->minor = crib_reader_header(r)->version_minor;
	while ((ret = crib_reader_next(r, &rec)) > 0) {
		struct entry *e;

		if (rec.type == CRIB_REC_TRAILER)
			continue;	/* framing, and it mirrors the records compared here */
		if (s->n == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 256;
			struct entry *p = realloc(s->e, cap * sizeof(*p));

			if (!p)
				goto nomem;
			s->e = p;
			s->cap = cap;
		}
		e = &s->e[s->n];
		memset(e, 0, sizeof(*e));
		make_key(&rec, ignore_volatile, e->key, sizeof(e->key));
		e->seq = s->n;
		e->type = rec.type;
		e->digest = rec.info ? hash_struct(rec.info->body, &rec.u, ignore_volatile, 0) :
			    crib_xxh64(rec.raw, rec.raw_len, 0);
		e->raw_len = rec.raw_len;
		if (rec.raw_len <= RAW_KEEP) {
			e->raw = malloc(rec.raw_len);
			if (!e->raw)
				goto nomem;
			memcpy(e->raw, rec.raw, rec.raw_len);
		}
		s->n++;
	}
	code = EXIT_OK;
	if (ret < 0) {
		report_error(s->path, crib_reader_error(r));
		code = exit_code_for(crib_reader_error(r)->code);
	}
	close_snapshot(r, fd);
	return code;
nomem:
	fprintf(stderr, "crib-inspect: out of memory\n");
	close_snapshot(r, fd);
	return EXIT_IO;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- field comparison ---- */

struct differ {
	const struct options *o;
	const char *key;
	bool header_printed;
	unsigned changes;
};

static void change(struct differ *d, const char *path, const struct crib_field *f,
		   const void *a, const void *b)
{
	if (!d->header_printed) {
		printf("changed: %s\n", d->key);
		d->header_printed = true;
	}
	printf("    %s: ", path);
	if (a && f)
		crib_json_print_field(stdout, f, a);
	else
		printf("(absent)");
	printf(" -> ");
	if (b && f)
		crib_json_print_field(stdout, f, b);
	else
		printf("(absent)");
	putchar('\n');
	d->changes++;
}

static bool str_eq(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static void diff_struct(struct differ *d, const struct crib_struct_desc *desc, const void *a,
			const void *b, const char *prefix);

static void diff_field(struct differ *d, const struct crib_field *f, const void *a, const void *b,
		       const char *prefix)
{
	const uint8_t *pa = (const uint8_t *)a + f->offset, *pb = (const uint8_t *)b + f->offset;
	char path[256];
	bool same = true;

	if (d->o->ignore_volatile && (f->flags & CRIB_FIELD_VOLATILE))
		return;
	if (snprintf(path, sizeof(path), "%s%s", prefix, f->name) >= (int)sizeof(path))
		return;
	switch (f->type) {
	case CRIB_FT_UINT:
	case CRIB_FT_INT:
		same = *(const uint64_t *)pa == *(const uint64_t *)pb;
		break;
	case CRIB_FT_BOOL:
		same = *(const bool *)pa == *(const bool *)pb;
		break;
	case CRIB_FT_TEXT:
	case CRIB_FT_PATH:
		same = str_eq(*(const char *const *)pa, *(const char *const *)pb);
		break;
	case CRIB_FT_BLOB: {
		const struct crib_blob *x = (const void *)pa, *y = (const void *)pb;

		same = x->len == y->len && (!x->len || !memcmp(x->data, y->data, x->len));
		break;
	}
	case CRIB_FT_STRUCT:
		diff_struct(d, f->sub, pa, pb, path);
		return;
	case CRIB_FT_UINT_ARRAY:
	case CRIB_FT_STRUCT_ARRAY: {
		size_t na = *(const size_t *)((const uint8_t *)a + f->count_offset);
		size_t nb = *(const size_t *)((const uint8_t *)b + f->count_offset);
		size_t esize = f->type == CRIB_FT_UINT_ARRAY ? sizeof(uint64_t) : f->sub->size;
		const uint8_t *va = *(const uint8_t *const *)pa, *vb = *(const uint8_t *const *)pb;

		if (na != nb || f->type == CRIB_FT_UINT_ARRAY) {
			same = na == nb && (!na || !memcmp(va, vb, na * esize));
			break;
		}
		for (size_t i = 0; i < na; i++) {
			char sub[256];

			if (snprintf(sub, sizeof(sub), "%s[%zu]", path, i) >= (int)sizeof(sub))
				continue;
			diff_struct(d, f->sub, va + i * esize, vb + i * esize, sub);
		}
		return;
	}
	}
	if (!same)
		change(d, path, f, a, b);
}

static void diff_struct(struct differ *d, const struct crib_struct_desc *desc, const void *a,
			const void *b, const char *prefix)
{
	char sub[256];

	if (snprintf(sub, sizeof(sub), "%s%s", prefix, *prefix ? "." : "") >= (int)sizeof(sub))
		return;
	for (size_t i = 0; i < desc->nfields; i++)
		diff_field(d, &desc->fields[i], a, b, sub);
}

/* Decode both sides and compare; returns the number of differing fields. */
static unsigned diff_entries(const struct options *o, const struct side *sa, const struct entry *a,
			     const struct side *sb, const struct entry *b)
{
	struct differ d = { .o = o, .key = a->key };
	struct crib_decoder *da, *db;
	struct crib_record ra, rb;
	struct crib_error err;

	if (a->digest == b->digest)
		return 0;
	if (!a->raw || !b->raw || !crib_record_info_by_type(a->type)) {
		printf("changed: %s: contents differ (%zu vs %zu bytes encoded)\n", a->key,
		       a->raw_len, b->raw_len);
		return 1;
	}
	da = crib_decoder_new();
	db = crib_decoder_new();
	if (!da || !db ||
	    crib_decoder_decode(da, a->raw, a->raw_len, sa->page_size, &ra, &err) ||
	    crib_decoder_decode(db, b->raw, b->raw_len, sb->page_size, &rb, &err)) {
		printf("changed: %s: cannot decode for comparison\n", a->key);
		d.changes = 1;
	} else {
		diff_struct(&d, ra.info->body, &ra.u, &rb.u, "");
	}
	crib_decoder_free(da);
	crib_decoder_free(db);
	return d.changes;
}

static void free_side(struct side *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->e[i].raw);
	free(s->e);
}

int run_diff(const char *path_a, const char *path_b, const struct options *o)
{
	struct side a = { .path = path_a }, b = { .path = path_b };
	unsigned differences = 0;
	size_t i = 0, k = 0;
	int code;

	if (!strcmp(path_a, "-") && !strcmp(path_b, "-")) {
		fprintf(stderr, "crib-inspect: only one snapshot can come from stdin\n");
		return EXIT_USAGE;
	}
	code = load(&a, o->ignore_volatile);
	if (code == EXIT_OK)
		code = load(&b, o->ignore_volatile);
	if (code != EXIT_OK)
		goto out;
	if (a.major != b.major || a.minor != b.minor) {
		printf("changed: format version %u.%u -> %u.%u\n", a.major, a.minor, b.major, b.minor);
		differences++;
	}
	qsort(a.e, a.n, sizeof(*a.e), entry_cmp);
	qsort(b.e, b.n, sizeof(*b.e), entry_cmp);
	while (i < a.n || k < b.n) {
		int c = i == a.n ? 1 : k == b.n ? -1 : strcmp(a.e[i].key, b.e[k].key);

		if (c < 0) {
			printf("only in A: %s\n", a.e[i++].key);
			differences++;
		} else if (c > 0) {
			printf("only in B: %s\n", b.e[k++].key);
			differences++;
		} else {
			differences += diff_entries(o, &a, &a.e[i], &b, &b.e[k]);
			i++;
			k++;
		}
	}
	if (!differences)
		printf("no differences%s\n", o->ignore_volatile ? " (volatile fields ignored)" : "");
	code = differences ? EXIT_NEGATIVE : EXIT_OK;
out:
	free_side(&a);
	free_side(&b);
	return code;
}
