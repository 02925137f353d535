// SPDX-License-Identifier: GPL-2.0-only
/*
 * --files: one line per descriptor, as the file records give them: pid,
 * fd, kind, open flags, offset and path, and the open file description
 * (file.desc).  Writers number descriptions from 1 in the order of their
 * first descriptor (spec §5.3), so a descriptor whose description was
 * seen before is marked as sharing it, naming the first that holds it:
 * printed as the records stream by, only the first holder of each
 * description is kept.  With --pid, that process's.
 *
 * A pidfd's line says what it refers to, which its pidfd record, after
 * the file records of its process, tells: so a process's lines wait
 * until its records of other kinds than files begin, or another
 * process's files do.  A pseudo-terminal end has a second line, from its
 * tty record, which follows the process's file and pidfd records: its
 * end, pair, window size, packet mode and the session it controls.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

/* A descriptor's line, waiting for its process's pidfd records. */
struct file_row {
	struct crib_file f;		/* its path our own copy */
	struct desc_holder first;	/* the description's first holder, when shared */
	bool shared;
	struct crib_pidfd pidfd;	/* a pidfd's, once its record came */
	bool have_pidfd;
};

struct files {
	struct view v;
	struct desc_map descs;
	ARRAY(struct file_row) pending;	/* one process's */
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

/* What a pidfd refers to, as the summary says it. */
static void print_pidfd(const struct crib_pidfd *p)
{
	if (p->dead)
		printf("  [pidfd of a reaped %s]", p->thread ? "thread" : "process");
	else
		printf("  [pidfd of %s %" PRIu64 "]", p->thread ? "thread" : "process", p->target);
}

static void print_line(const struct crib_file *f, const struct desc_holder *first,
		       const struct crib_pidfd *pidfd)
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
	if (pidfd)
		print_pidfd(pidfd);
	printf("%s\n", f->cloexec ? "  [cloexec]" : "");
}

static void print_json(struct view_out *out, const struct crib_file *f,
		       const struct desc_holder *first, const struct crib_pidfd *pidfd)
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
	if (pidfd)
		printf(",\"pidfd\":{\"target\":%" PRIu64 ",\"dead\":%s,\"thread\":%s}",
		       pidfd->target, pidfd->dead ? "true" : "false",
		       pidfd->thread ? "true" : "false");
	putchar('}');
}

/* The lines of the process whose records came last. */
static void flush(struct files *s)
{
	const struct file_row *row;
	size_t i;

	for (i = 0; i < s->pending.n; i++) {
		row = &s->pending.items[i];
		if (s->v.out->json)
			print_json(s->v.out, &row->f, row->shared ? &row->first : NULL,
				   row->have_pidfd ? &row->pidfd : NULL);
		else
			print_line(&row->f, row->shared ? &row->first : NULL,
				   row->have_pidfd ? &row->pidfd : NULL);
		view_row(s->v.out);
		free((char *)row->f.path);
	}
	s->pending.n = 0;
}

static void add_row(struct files *s, const struct crib_file *f, const struct desc_holder *first)
{
	struct file_row *row;

	if (s->pending.n && s->pending.items[0].f.pid != f->pid)
		flush(s);
	row = array_push(&s->pending);
	if (!row)
		return;
	*row = (struct file_row){ .f = *f, .shared = first != NULL };
	row->f.path = f->path ? strdup(f->path) : NULL;
	if (first)
		row->first = *first;
}

static void note_pidfd(struct files *s, const struct crib_pidfd *p)
{
	size_t i;

	for (i = 0; i < s->pending.n; i++)
		if (s->pending.items[i].f.pid == p->pid && s->pending.items[i].f.fd == p->fd) {
			s->pending.items[i].pidfd = *p;
			s->pending.items[i].have_pidfd = true;
		}
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
	if (record_filtered_out(s->v.o, rec))
		return;
	if (s->v.out->json)
		print_tty_json(s->v.out, &rec->u.tty);
	else
		print_tty_line(&rec->u.tty);
	view_row(s->v.out);
}

static void files_record(void *state, const struct crib_record *rec)
{
	struct files *s = state;
	const struct crib_file *f = &rec->u.file;
	const struct desc_holder *first;

	if (rec->type == CRIB_REC_PIDFD) {
		note_pidfd(s, &rec->u.pidfd);
		return;
	}
	if (rec->type == CRIB_REC_TTY) {
		flush(s);	/* its process's lines first: pidfd records came before */
		tty_record(s, rec);
		return;
	}
	if (rec->type != CRIB_REC_FILE) {
		if (!rec->info || strcmp(rec->info->section, "files"))
			flush(s);
		return;
	}
	/* Every process's count, so that the numbering is followed with --pid too. */
	first = desc_map_note(&s->descs, f->desc, f->pid, f->fd);
	if (record_filtered_out(s->v.o, rec))
		return;
	add_row(s, f, first);
}

static int files_finish(void *state)
{
	flush(state);
	return EXIT_OK;
}

static void files_release(void *state)
{
	struct files *s = state;

	for (size_t i = 0; i < s->pending.n; i++)
		free((char *)s->pending.items[i].f.path);
	array_free(&s->pending);
	array_free(&s->descs.holders);
}

const struct view_ops files_view = {
	.name = "files", .items = "files", .none = "descriptors",
	.header = "PID      FD    KIND       FLAGS                      OFFSET  DESC  PATH",
	.size = sizeof(struct files),
	.record = files_record, .finish = files_finish, .release = files_release,
};
