// SPDX-License-Identifier: GPL-2.0-only
/*
 * Comparing two snapshots record by record: see crib/diff.h.  Each side is
 * a list of entries sorted by identity, numbers by value; walking both lists in step pairs
 * the records, and a pair whose encodings differ is decoded again and
 * compared field by field with the schema tables.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <crib/diff.h>
#include <crib/json.h>

/*
 * A record's encoding is kept for a field by field comparison when it is
 * metadata of at most RAW_KEEP bytes, and while the side's copies total
 * at most RAW_BUDGET: a crafted snapshot of many large records that
 * compress to nothing must not make a side hold gigabytes.  Bulk records
 * (memory, file and queue contents) and whatever is past the budget are
 * compared by digest.
 */
#define RAW_KEEP (64u << 10)
#define RAW_BUDGET (64u << 20)

struct entry {
	char key[96];
	uint64_t seq;		/* position in the stream, to pair duplicates in order */
	uint32_t type;
	uint64_t digest;
	uint8_t *raw;		/* NULL when larger than RAW_KEEP */
	size_t raw_len;
};

struct crib_diff_side {
	struct entry *e;
	size_t n, cap;
	size_t raw_bytes;	/* encodings kept, at most RAW_BUDGET */
	uint64_t page_size;
	unsigned major, minor;
};

static void make_key(const struct crib_record *rec, unsigned flags, char *buf, size_t len)
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
		if ((flags & CRIB_DIFF_IGNORE_VOLATILE) && (f->flags & CRIB_FIELD_VOLATILE))
			continue;
		n += snprintf(buf + n, len - (size_t)n,
			      (f->flags & CRIB_FIELD_HEX) ? " %s=0x%" PRIx64 : " %s=%" PRIu64,
			      f->name, *(const uint64_t *)((const uint8_t *)&rec->u + f->offset));
	}
}

static uint64_t hash_struct(const struct crib_struct_desc *desc, const void *rec,
			    unsigned flags, uint64_t h);

static uint64_t hash_field(const struct crib_field *f, const void *rec, unsigned flags,
			   uint64_t h)
{
	const uint8_t *p = (const uint8_t *)rec + f->offset;
	const uint8_t *e;
	const char *str;
	size_t i, n, esize;

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
		return hash_struct(f->sub, p, flags, h);
	case CRIB_FT_UINT_ARRAY:
	case CRIB_FT_STRUCT_ARRAY:
		n = *(const size_t *)((const uint8_t *)rec + f->count_offset);
		esize = f->type == CRIB_FT_UINT_ARRAY ? sizeof(uint64_t) : f->sub->size;
		h = crib_xxh64(&n, sizeof(n), h);
		for (i = 0; i < n; i++) {
			e = *(const uint8_t *const *)p + i * esize;
			h = f->type == CRIB_FT_UINT_ARRAY ? crib_xxh64(e, esize, h) :
			    hash_struct(f->sub, e, flags, h);
		}
		return h;
	}
	return h;
}

/*
 * A digest of a record's decoded fields, the volatile ones left out when
 * they are ignored: the encodings of two records that differ only there
 * differ, and records too large to keep are compared by this alone.
 */
static uint64_t hash_struct(const struct crib_struct_desc *desc, const void *rec,
			    unsigned flags, uint64_t h)
{
	const struct crib_field *f;
	size_t i;

	for (i = 0; i < desc->nfields; i++) {
		f = &desc->fields[i];
		if ((flags & CRIB_DIFF_IGNORE_VOLATILE) && (f->flags & CRIB_FIELD_VOLATILE))
			continue;
		h = hash_field(f, rec, flags, h);
	}
	return h;
}

static bool is_hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * The number that starts at *@p (decimal, or hex after "0x") compared with
 * the one at *@q by value, both moved past theirs: leading zeros skipped,
 * a longer run is larger, runs of one length compare as text.
 */
static int number_cmp(const char **p, const char **q, bool hex)
{
	bool (*digit)(char) = hex ? is_hex_digit : is_digit;
	const char *a = *p, *b = *q;
	size_t la = 0, lb = 0;
	int c;

	while (*a == '0' && digit(a[1]))
		a++;
	while (*b == '0' && digit(b[1]))
		b++;
	while (digit(a[la]))
		la++;
	while (digit(b[lb]))
		lb++;
	*p = a + la;
	*q = b + lb;
	if (la != lb)
		return la < lb ? -1 : 1;
	c = strncasecmp(a, b, la);
	return c < 0 ? -1 : c > 0;
}

/*
 * Keys in numeric order ("pid=99" before "pid=100", "addr=0x9000" before
 * "addr=0x10000"): a run of digits compares by value, the rest as text.
 */
static int key_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		bool hex = a[0] == '0' && b[0] == '0' && a[1] == 'x' && b[1] == 'x' &&
			   is_hex_digit(a[2]) && is_hex_digit(b[2]);
		int c;

		if (hex) {
			a += 2;
			b += 2;
		}
		if (hex || (is_digit(*a) && is_digit(*b))) {
			c = number_cmp(&a, &b, hex);
			if (c)
				return c;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return !*a && !*b ? 0 : !*a ? -1 : 1;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = key_cmp(x->key, y->key);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool is_bulk(uint32_t type)
{
	switch (type) {
	case CRIB_REC_PAGES:
	case CRIB_REC_GHOST_DATA:
	case CRIB_REC_PIPE_DATA:
	case CRIB_REC_SOCKET_QUEUE:
		return true;
	default:
		return false;
	}
}

static bool keep_raw(const struct crib_diff_side *s, const struct crib_record *rec)
{
	/* a stored record's raw bytes lack its data: compared by digest only */
	if (rec->stored || is_bulk(rec->type) || rec->raw_len > RAW_KEEP)
		return false;
	return s->raw_bytes + rec->raw_len <= RAW_BUDGET;
}

static int add_entry(struct crib_diff_side *s, const struct crib_record *rec, unsigned flags)
{
	struct entry *e;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct entry *p = reallocarray(s->e, cap, sizeof(*p));

		if (!p)
			return -1;
		s->e = p;
		s->cap = cap;
	}
	e = &s->e[s->n];
	memset(e, 0, sizeof(*e));
	make_key(rec, flags, e->key, sizeof(e->key));
	e->seq = s->n;
	e->type = rec->type;
	e->digest = rec->info ? hash_struct(rec->info->body, &rec->u, flags, 0) :
		    crib_xxh64(rec->raw, rec->raw_len, 0);
	e->raw_len = rec->raw_len;
	if (keep_raw(s, rec)) {
		e->raw = malloc(rec->raw_len ? rec->raw_len : 1);
		if (!e->raw)
			return -1;
		memcpy(e->raw, rec->raw, rec->raw_len);
		s->raw_bytes += rec->raw_len;
	}
	s->n++;
	return 0;
}

struct crib_diff_side *crib_diff_side_read(struct crib_reader *r, unsigned flags,
					   struct crib_error *err)
{
	const struct crib_header *h = crib_reader_header(r);
	struct crib_diff_side *s = calloc(1, sizeof(*s));
	struct crib_record rec;
	int ret;

	if (!s)
		goto nomem;
	s->page_size = h->page_size;
	s->major = h->version_major;
	s->minor = h->version_minor;
	while ((ret = crib_reader_next(r, &rec)) > 0) {
		if (rec.type == CRIB_REC_TRAILER)
			continue;	/* framing, and it mirrors the records compared */
		if ((rec.type == CRIB_REC_NOTE || rec.type == CRIB_REC_DUMP_STATS) &&
		    (flags & CRIB_DIFF_IGNORE_VOLATILE))
			continue;	/* about a dump, not about its processes */
		if (add_entry(s, &rec, flags))
			goto nomem;
	}
	if (ret < 0) {
		*err = *crib_reader_error(r);
		crib_diff_side_free(s);
		return NULL;
	}
	qsort(s->e, s->n, sizeof(*s->e), entry_cmp);
	return s;
nomem:
	crib_diff_side_free(s);
	memset(err, 0, sizeof(*err));
	err->code = CRIB_E_NOMEM;
	err->stream_offset = CRIB_OFFSET_NONE;
	snprintf(err->msg, sizeof(err->msg), "out of memory");
	return NULL;
}

size_t crib_diff_side_mem(const struct crib_diff_side *s)
{
	return sizeof(*s) + s->cap * sizeof(*s->e) + s->raw_bytes;
}

void crib_diff_side_free(struct crib_diff_side *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->e[i].raw);
	free(s->e);
	free(s);
}

/* ---- field comparison ---- */

struct differ {
	const struct crib_diff_options *opt;
	FILE *out;
	const char *record;	/* the record type's name */
	const char *key;
	bool header_printed;
	unsigned changes;
};

static void change(struct differ *d, const char *path, const struct crib_field *f,
		   const void *a, const void *b)
{
	if (!d->header_printed) {
		fprintf(d->out, "changed: %s\n", d->key);
		d->header_printed = true;
	}
	fprintf(d->out, "    %s: ", path);
	if (a && f)
		crib_json_print_field(d->out, f, a);
	else
		fputs("(absent)", d->out);
	fputs(" -> ", d->out);
	if (b && f)
		crib_json_print_field(d->out, f, b);
	else
		fputs("(absent)", d->out);
	fputc('\n', d->out);
	d->changes++;
}

/* Is the field at @path (within the record) one the caller asked to ignore? */
static bool ignored(const struct differ *d, const char *path)
{
	size_t len = strlen(d->record);

	for (const char *const *p = d->opt->ignore; p && *p; p++)
		if (!strncmp(*p, d->record, len) && (*p)[len] == '.' && !strcmp(*p + len + 1, path))
			return true;
	return false;
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

	if ((d->opt->flags & CRIB_DIFF_IGNORE_VOLATILE) && (f->flags & CRIB_FIELD_VOLATILE))
		return;
	if (snprintf(path, sizeof(path), "%s%s", prefix, f->name) >= (int)sizeof(path) ||
	    ignored(d, path))
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
static unsigned diff_entries(const struct crib_diff_options *opt, FILE *out,
			     const struct crib_diff_side *sa, const struct entry *a,
			     const struct crib_diff_side *sb, const struct entry *b)
{
	struct differ d = { .opt = opt, .out = out, .key = a->key };
	struct crib_decoder *da, *db;
	struct crib_record ra, rb;
	struct crib_error err;

	if (a->digest == b->digest)
		return 0;
	if (!a->raw || !b->raw || !crib_record_info_by_type(a->type)) {
		fprintf(out, "changed: %s: contents differ (%zu vs %zu bytes encoded)\n", a->key,
			a->raw_len, b->raw_len);
		return 1;
	}
	da = crib_decoder_new();
	db = crib_decoder_new();
	if (!da || !db ||
	    crib_decoder_decode(da, a->raw, a->raw_len, sa->page_size, &ra, &err) ||
	    crib_decoder_decode(db, b->raw, b->raw_len, sb->page_size, &rb, &err)) {
		fprintf(out, "changed: %s: cannot decode for comparison\n", a->key);
		d.changes = 1;
	} else {
		d.record = ra.info->name;
		diff_struct(&d, ra.info->body, &ra.u, &rb.u, "");
	}
	crib_decoder_free(da);
	crib_decoder_free(db);
	return d.changes;
}

unsigned crib_diff(const struct crib_diff_side *a, const struct crib_diff_side *b,
		   const struct crib_diff_options *opt, FILE *out)
{
	unsigned changed = 0, records = 0, only_a = 0, only_b = 0, c;
	size_t i = 0, k = 0;

	if (a->major != b->major || a->minor != b->minor) {
		fprintf(out, "changed: format version %u.%u -> %u.%u\n", a->major, a->minor,
			b->major, b->minor);
		changed++;
		records++;
	}
	while (i < a->n || k < b->n) {
		int order = i == a->n ? 1 : k == b->n ? -1 : key_cmp(a->e[i].key, b->e[k].key);

		if (order < 0) {
			fprintf(out, "only in A: %s\n", a->e[i++].key);
			only_a++;
		} else if (order > 0) {
			fprintf(out, "only in B: %s\n", b->e[k++].key);
			only_b++;
		} else {
			c = diff_entries(opt, out, a, &a->e[i], b, &b->e[k]);
			changed += c;
			records += !!c;
			i++;
			k++;
		}
	}
	if (changed + only_a + only_b)
		fprintf(out, "total: %u record%s changed (%u difference%s), %u only in A, "
			"%u only in B\n", records, records == 1 ? "" : "s", changed,
			changed == 1 ? "" : "s", only_a, only_b);
	return changed + only_a + only_b;
}
