// SPDX-License-Identifier: GPL-2.0-only
/*
 * --files: one line per descriptor, as the file records give them: pid,
 * fd, kind, open flags, offset and path, and the open file description
 * (file.desc).  Writers number descriptions from 1 in the order of their
 * first descriptor (spec §5.3), so a descriptor whose description was
 * seen before is marked as sharing it, naming the first that holds it:
 * printed as the records stream by, only the first holder of each
 * description is kept.  A pseudo-terminal end has a second line, from its
 * tty record, which follows the process's file records: its end, pair,
 * window size, packet mode and the session it controls.  With --pid,
 * that process's.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "inspect.h"

struct files {
	const struct options *o;
	struct view_out *out;
	struct desc_map descs;
};

const struct desc_holder *desc_map_note(struct desc_map *m, uint64_t desc, uint64_t pid,
					uint64_t fd)
{
	struct desc_holder *h;

	if (!desc || desc > m->holders.n + 1)
		return NULL;	/* its own, or out of the writers' order: not tracked */
	if (desc <= m->holders.n)
		return &m->holders.items[desc - 1];
	h = array_push(&m->holders);
	if (h)
		*h = (struct desc_holder){ pid, fd };
	return NULL;
}

/* O_* status flags as open(2) names them, the access mode first. */
void open_flags_str(uint64_t flags, char *buf, size_t len)
{
	static const struct { uint64_t bit; const char *name; } names[] = {
		{ 02000, "append" }, { 04000, "nonblock" }, { 010000, "dsync" },
		{ 020000, "async" }, { 040000, "direct" }, { 0100000, "largefile" },
		{ 0200000, "directory" }, { 0400000, "nofollow" }, { 01000000, "noatime" },
		{ 04010000, "sync" }, { 010000000, "path" }, { 020200000, "tmpfile" },
	};
	static const char *const modes[] = { "rdonly", "wronly", "rdwr", "acc3" };
	size_t n = (size_t)snprintf(buf, len, "%s", modes[flags & 3]);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && n < len; i++)
		if ((flags & names[i].bit) == names[i].bit) {
			n += (size_t)snprintf(buf + n, len - n, ",%s", names[i].name);
			flags &= ~names[i].bit;
		}
}

static void *files_start(const struct options *o, const struct crib_header *h,
			 struct view_out *out)
{
	struct files *s = calloc(1, sizeof(*s));

	(void)h;
	if (!s)
		return NULL;
	s->o = o;
	s->out = out;
	if (!out->json)
		printf("%-8s %-5s %-10s %-22s %10s %5s  %s\n", "PID", "FD", "KIND", "FLAGS",
		       "OFFSET", "DESC", "PATH");
	return s;
}

static void print_line(const struct crib_file *f, const struct desc_holder *first)
{
	char flags[128], desc[24] = "-";

	open_flags_str(f->flags, flags, sizeof(flags));
	if (f->desc)
		snprintf(desc, sizeof(desc), "%" PRIu64, f->desc);
	printf("%-8" PRIu64 " %-5" PRIu64 " %-10s %-22s %10" PRId64 " %5s  ", f->pid, f->fd,
	       crib_file_type_name(f->type), flags, f->pos, desc);
	print_path(f->path);
	if (first)
		printf("  [shared with pid %" PRIu64 " fd %" PRIu64 "]", first->pid, first->fd);
	if (f->ghost_id)
		printf("  [ghost %" PRIu64 "]", f->ghost_id);
	printf("%s\n", f->cloexec ? "  [cloexec]" : "");
}

static void print_json(struct view_out *out, const struct crib_file *f,
		       const struct desc_holder *first)
{
	char flags[128];

	open_flags_str(f->flags, flags, sizeof(flags));
	view_json_item(out);
	printf("{\"pid\":%" PRIu64 ",\"fd\":%" PRIu64 ",\"kind\":\"%s\",\"flags\":%" PRIu64
	       ",\"flag_names\":\"%s\",\"pos\":%" PRId64 ",", f->pid, f->fd,
	       crib_file_type_name(f->type), f->flags, flags, f->pos);
	json_key_string("path", f->path);
	printf(",\"desc\":%" PRIu64 ",\"cloexec\":%s,\"ghost_id\":%" PRIu64, f->desc,
	       f->cloexec ? "true" : "false", f->ghost_id);
	if (first)
		printf(",\"shared_with\":{\"pid\":%" PRIu64 ",\"fd\":%" PRIu64 "}", first->pid,
		       first->fd);
	putchar('}');
}

static const char *tty_end_name(const struct crib_tty *t)
{
	return t->end == CRIB_TTY_MASTER ? "master" : t->end == CRIB_TTY_SLAVE ? "slave" : "tty";
}

static void print_tty_line(const struct crib_tty *t)
{
	printf("%-8" PRIu64 " %-5" PRIu64 " %-10s %s of pair %" PRIu64 " (pts %" PRIu64 "), %"
	       PRIu64 "x%" PRIu64 "%s", t->pid, t->fd, "pty", tty_end_name(t), t->tty_id,
	       t->index, t->rows, t->cols, t->packet ? ", packet mode" : "");
	if (t->sid)
		printf(", controls session %" PRIu64 ", group %" PRIu64 " in front", t->sid,
		       t->fg_pgrp);
	putchar('\n');
}

static void print_tty_json(struct view_out *out, const struct crib_tty *t)
{
	view_json_item(out);
	printf("{\"pid\":%" PRIu64 ",\"fd\":%" PRIu64 ",\"kind\":\"pty\",\"end\":\"%s\","
	       "\"pair\":%" PRIu64 ",\"pts\":%" PRIu64 ",\"rows\":%" PRIu64 ",\"cols\":%" PRIu64
	       ",\"packet\":%s,\"session\":%" PRIu64 ",\"foreground_group\":%" PRIu64 "}",
	       t->pid, t->fd, tty_end_name(t), t->tty_id, t->index, t->rows, t->cols,
	       t->packet ? "true" : "false", t->sid, t->fg_pgrp);
}

/* The second line of a pseudo-terminal end. */
static void tty_record(struct files *s, const struct crib_record *rec)
{
	if (record_filtered_out(s->o, rec))
		return;
	if (s->out->json)
		print_tty_json(s->out, &rec->u.tty);
	else
		print_tty_line(&rec->u.tty);
	view_row(s->out);
}

static void files_record(void *state, const struct crib_record *rec)
{
	struct files *s = state;
	const struct crib_file *f = &rec->u.file;
	const struct desc_holder *first;

	if (rec->type == CRIB_REC_TTY)
		tty_record(s, rec);
	if (rec->type != CRIB_REC_FILE)
		return;
	/* Every process's count, so that the numbering is followed with --pid too. */
	first = desc_map_note(&s->descs, f->desc, f->pid, f->fd);
	if (record_filtered_out(s->o, rec))
		return;
	if (s->out->json)
		print_json(s->out, f, first);
	else
		print_line(f, first);
	view_row(s->out);
}

static void files_free(void *state)
{
	struct files *s = state;

	array_free(&s->descs.holders);
	free(s);
}

const struct view_ops files_view = {
	.name = "files", .items = "files", .none = "descriptors",
	.start = files_start, .record = files_record, .free = files_free,
};
