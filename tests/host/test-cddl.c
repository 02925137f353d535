// SPDX-License-Identifier: GPL-2.0-only
/*
 * Keeps spec/snapshot.cddl in step with the library's record table: every
 * record type and every field (key, name, type, optional or not) must be in
 * both, and nothing else.  The CDDL is parsed simply, by its line layout.
 *
 * Usage: test-cddl spec/snapshot.cddl
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crib/format.h>

#include "tap.h"

#define MAX_RULES 128
#define MAX_FIELDS 64

struct cddl_field {
	unsigned key;
	bool optional;
	char type[64];
	char name[64];
};

struct cddl_rule {
	char name[64];
	struct cddl_field fields[MAX_FIELDS];
	size_t n;
	bool used;
};

struct cddl_record {
	char name[64];
	unsigned type;
	char body[64];
	bool used;
};

static struct tap t;
static struct cddl_rule rules[MAX_RULES];
static size_t n_rules;
static struct cddl_record records[MAX_RULES];
static size_t n_records;

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static bool parse_field(char *line, struct cddl_field *f)
{
	char *arrow, *comment, *comma;

	memset(f, 0, sizeof(*f));
	if (*line == '?') {
		f->optional = true;
		line = trim(line + 1);
	}
	arrow = strstr(line, "=>");
	comment = strchr(line, ';');
	if (!arrow || !comment || !isdigit((unsigned char)*line))
		return false;
	f->key = (unsigned)strtoul(line, NULL, 10);
	*comment = '\0';
	snprintf(f->name, sizeof(f->name), "%s", trim(comment + 1));
	comma = strrchr(arrow, ',');
	if (comma)
		*comma = '\0';
	snprintf(f->type, sizeof(f->type), "%s", trim(arrow + 2));
	return true;
}

static int parse(const char *path)
{
	struct cddl_rule *cur = NULL;
	char buf[512];
	FILE *fp = fopen(path, "r");

	if (!fp)
		return -1;
	while (fgets(buf, sizeof(buf), fp)) {
		char *line = trim(buf), *p;

		if (!*line || *line == ';')
			continue;
		if (cur) {
			if (*line == '}')
				cur = NULL;
			else if (cur->n < MAX_FIELDS && parse_field(line, &cur->fields[cur->n]))
				cur->n++;
			else
				tap_diag("unparsed line in %s: %s", cur->name, line);
			continue;
		}
		p = strstr(line, "-record = [");
		if (p && !strstr(line, "..") && n_records < MAX_RULES) {
			struct cddl_record *r = &records[n_records++];
			char *body;

			*p = '\0';
			snprintf(r->name, sizeof(r->name), "%s", line);
			r->type = (unsigned)strtoul(p + strlen("-record = ["), &body, 0);
			body = trim(body + 1);	/* past the comma */
			body[strcspn(body, " ]")] = '\0';
			snprintf(r->body, sizeof(r->body), "%s", body);
			continue;
		}
		p = strstr(line, " = {");
		if (p && p[4] == '\0' && n_rules < MAX_RULES) {
			*p = '\0';
			cur = &rules[n_rules++];
			snprintf(cur->name, sizeof(cur->name), "%s", line);
		}
	}
	fclose(fp);
	return 0;
}

static const char *type_name(const struct crib_field *f, char *buf, size_t len)
{
	switch (f->type) {
	case CRIB_FT_UINT: return "uint";
	case CRIB_FT_INT: return "int";
	case CRIB_FT_BOOL: return "bool";
	case CRIB_FT_TEXT: return "tstr";
	case CRIB_FT_PATH: return "path";
	case CRIB_FT_BLOB: return "bstr";
	case CRIB_FT_UINT_ARRAY: return "[* uint]";
	case CRIB_FT_STRUCT: return f->sub->name;
	case CRIB_FT_STRUCT_ARRAY:
		snprintf(buf, len, "[* %s]", f->sub->name);
		return buf;
	}
	return "?";
}

static struct cddl_rule *find_rule(const char *name)
{
	for (size_t i = 0; i < n_rules; i++)
		if (!strcmp(rules[i].name, name))
			return &rules[i];
	return NULL;
}

static void check_struct(const struct crib_struct_desc *d)
{
	struct cddl_rule *r = find_rule(d->name);
	bool ok = r && r->n == d->nfields;

	if (r && r->used)
		return;
	if (r)
		r->used = true;
	for (size_t i = 0; ok && i < d->nfields; i++) {
		const struct crib_field *f = &d->fields[i];
		const struct cddl_field *c = &r->fields[i];
		char buf[80];

		if (c->key != f->key || strcmp(c->name, f->name) ||
		    strcmp(c->type, type_name(f, buf, sizeof(buf))) ||
		    c->optional != !(f->flags & CRIB_FIELD_REQUIRED)) {
			tap_diag("%s: key %u: CDDL has %s%u => %s ; %s, the library %s%u => %s ; %s",
				 d->name, f->key, c->optional ? "? " : "", c->key, c->type, c->name,
				 (f->flags & CRIB_FIELD_REQUIRED) ? "" : "? ", f->key,
				 type_name(f, buf, sizeof(buf)), f->name);
			ok = false;
		}
	}
	tap_check(&t, ok, "CDDL group %s matches the library (%zu fields)", d->name, d->nfields);
	for (size_t i = 0; i < d->nfields; i++)
		if (d->fields[i].sub)
			check_struct(d->fields[i].sub);
}

int main(int argc, char **argv)
{
	const struct crib_record_info *types;
	size_t n;

	if (argc != 2 || parse(argv[1])) {
		fprintf(stderr, "usage: %s snapshot.cddl\n", argv[0]);
		return 2;
	}
	types = crib_record_types(&n);
	tap_check(&t, n_records > 0 && n_rules > 0, "CDDL parsed: %zu record types, %zu groups",
		  n_records, n_rules);
	for (size_t i = 0; i < n; i++) {
		struct cddl_record *found = NULL;

		for (size_t k = 0; k < n_records; k++)
			if (!strcmp(records[k].name, types[i].name))
				found = &records[k];
		tap_check(&t, found && found->type == types[i].type &&
			  !strcmp(found->body, types[i].body->name),
			  "record type %s (0x%04x) in the CDDL", types[i].name, types[i].type);
		if (found)
			found->used = true;
		check_struct(types[i].body);
	}
	for (size_t k = 0; k < n_records; k++)
		tap_check(&t, records[k].used, "CDDL record %s is known to the library",
			  records[k].name);
	for (size_t k = 0; k < n_rules; k++)
		tap_check(&t, rules[k].used, "CDDL group %s is used by the library", rules[k].name);
	return tap_done(&t);
}
