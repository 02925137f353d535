// SPDX-License-Identifier: GPL-2.0-only
/*
 * --ps-tree: the processes as a tree, as ps(1) --forest shows them: pid,
 * parent, group and session, state (running, stopped or zombie), threads
 * and the command; with --pid, that process and its descendants.  The
 * tree itself is proctree.c's.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

struct ps_tree {
	struct view v;
	struct proctree *tree;
};

static int ps_tree_start(void *state, const struct crib_header *h)
{
	struct ps_tree *s = state;

	(void)h;
	s->tree = proctree_new();
	return s->tree ? 0 : -1;
}

static void ps_tree_record(void *state, const struct crib_record *rec)
{
	struct ps_tree *s = state;

	if (rec->type == CRIB_REC_PROCESS)
		proctree_add(s->tree, &rec->u.process);
	else if (rec->type == CRIB_REC_THREAD)
		proctree_count_thread(s->tree, rec->u.thread.pid);
}

/* The state column: a stopped process's signal, a zombie's exit. */
static void print_state(const struct proc_entry *e)
{
	char buf[32];

	bool stopped = !strcmp(e->state, "stopped"), zombie = !strcmp(e->state, "zombie");

	if (stopped)
		snprintf(buf, sizeof(buf), "stopped(%" PRIu64 ")", e->code);
	else if (zombie && e->code & 0x7f)	/* killed: the signal, as wait(2) gives it */
		snprintf(buf, sizeof(buf), "zombie(sig %" PRIu64 ")", e->code & 0x7f);
	else if (zombie)
		snprintf(buf, sizeof(buf), "zombie(%" PRIu64 ")", e->code >> 8);
	else
		snprintf(buf, sizeof(buf), "%s", e->state);
	printf("%-16s", buf);
}

static void print_line(const struct proc_entry *e, size_t depth, bool cycle)
{
	printf("%-8" PRIu64 " %-8" PRIu64 " %-8" PRIu64 " %-8" PRIu64 " ", e->pid, e->ppid,
	       e->pgid, e->sid);
	print_state(e);
	printf(" %7u  %*s", e->threads, depth > 32 ? 64 : (int)depth * 2, "");
	if (depth > 32)
		printf("[depth %zu] ", depth);
	print_text(e->comm);
	if (e->exe && *e->exe) {
		printf(" (");
		print_text(e->exe);
		putchar(')');
	}
	printf("%s\n", cycle ? "  (already shown: the parents form a cycle)" : "");
}

static void print_json(struct view_out *out, const struct proc_entry *e, size_t depth,
		       bool cycle)
{
	view_json_item(out);
	printf("{\"pid\":%" PRIu64 ",\"ppid\":%" PRIu64 ",\"pgid\":%" PRIu64 ",\"sid\":%" PRIu64
	       ",\"depth\":%zu,\"state\":\"%s\"", e->pid, e->ppid, e->pgid, e->sid, depth, e->state);
	if (!strcmp(e->state, "stopped"))
		printf(",\"stop_signal\":%" PRIu64, e->code);
	else if (!strcmp(e->state, "zombie"))
		printf(",\"exit_status\":%" PRIu64, e->code);
	printf(",\"threads\":%u,", e->threads);
	json_key_string("comm", e->comm);
	putchar(',');
	json_key_string("exe", e->exe);
	printf("%s}", cycle ? ",\"cycle\":true" : "");
}

static void visit(const struct proc_entry *e, size_t depth, bool cycle, void *ctx)
{
	struct ps_tree *s = ctx;

	if (!e) {
		if (!s->v.out->json)
			printf("(a cycle of parents:)\n");
		return;
	}
	if (s->v.out->json)
		print_json(s->v.out, e, depth, cycle);
	else
		print_line(e, depth, cycle);
}

static int ps_tree_finish(void *state)
{
	struct ps_tree *s = state;
	int ret;

	if (!s->v.out->json)
		printf("%-8s %-8s %-8s %-8s %-16s %7s  %s\n", "PID", "PPID", "PGID", "SID", "STATE",
		       "THREADS", "COMMAND");
	ret = proctree_walk(s->tree, s->v.o->have_pid ? &s->v.o->pid : NULL, visit, s);
	if (ret < 0) {
		fprintf(stderr, "crib-inspect: out of memory: the tree not shown\n");
		return EXIT_IO;
	}
	if (proctree_dropped(s->tree))
		fprintf(stderr, "crib-inspect: out of memory: some processes not shown\n");
	if (ret > 0) {
		fprintf(stderr, "crib-inspect: no process %" PRIu64 " in the snapshot\n",
			s->v.o->pid);
		return EXIT_NEGATIVE;
	}
	return EXIT_OK;
}

static void ps_tree_release(void *state)
{
	struct ps_tree *s = state;

	proctree_free(s->tree);
}

const struct view_ops ps_tree_view = {
	.name = "ps-tree", .items = "processes",
	.size = sizeof(struct ps_tree),
	.start = ps_tree_start, .record = ps_tree_record, .finish = ps_tree_finish,
	.release = ps_tree_release,
};
