// SPDX-License-Identifier: GPL-2.0-only
/*
 * The process tree of the summary and of --ps-tree: a row per process,
 * found by pid through a hash index (threads are counted as they stream
 * by), and the tree walked at the end from a list of children sorted by
 * parent.  Every
 * process is printed once, however deep the tree: the walk keeps its own
 * stack, and a process met again (a crafted snapshot can make parents a
 * cycle) is marked, not followed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

struct proc_row {
	struct proc_entry e;	/* its strings set to the row's as it is visited */
	char comm[17];
	char exe[128];		/* cut: a line shows no more */
	char state[48];		/* zombie, stopped: as the summary shows it */
	bool printed;
};

struct proctree {
	ARRAY(struct proc_row) rows;
	size_t *slots;		/* index + 1 of a row by pid hash; 0 is empty */
	size_t n_slots;
	bool dropped;		/* memory ran out: some processes not kept */
};

struct proctree *proctree_new(void)
{
	return calloc(1, sizeof(struct proctree));
}

void proctree_free(struct proctree *t)
{
	if (!t)
		return;
	array_free(&t->rows);
	free(t->slots);
	free(t);
}

static size_t pid_hash(uint64_t pid, size_t n_slots)
{
	return (size_t)((pid * 0x9e3779b97f4a7c15ull) >> 32) & (n_slots - 1);
}

static void slot_put(size_t *slots, size_t n_slots, const struct proc_row *rows, size_t i)
{
	size_t h = pid_hash(rows[i].e.pid, n_slots);

	while (slots[h])
		h = (h + 1) & (n_slots - 1);
	slots[h] = i + 1;
}

/* The index at most half full: doubled and refilled when it would not be. */
static int index_reserve(struct proctree *t)
{
	size_t n = t->n_slots ? t->n_slots * 2 : 1024, *slots;

	if (t->rows.n + 1 <= t->n_slots / 2)
		return 0;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t i = 0; i < t->rows.n; i++)
		slot_put(slots, n, t->rows.items, i);
	free(t->slots);
	t->slots = slots;
	t->n_slots = n;
	return 0;
}

/* The first row of @pid, or NULL. */
static struct proc_row *find_row(const struct proctree *t, uint64_t pid)
{
	size_t h;

	if (!t->n_slots)
		return NULL;
	for (h = pid_hash(pid, t->n_slots); t->slots[h]; h = (h + 1) & (t->n_slots - 1))
		if (t->rows.items[t->slots[h] - 1].e.pid == pid)
			return &t->rows.items[t->slots[h] - 1];
	return NULL;
}

void proctree_add(struct proctree *t, const struct crib_process *p)
{
	struct proc_row *row;

	if (index_reserve(t) || !(row = array_push(&t->rows))) {
		t->dropped = true;
		return;
	}
	snprintf(row->comm, sizeof(row->comm), "%s", p->comm ? p->comm : "");
	snprintf(row->exe, sizeof(row->exe), "%s", p->exe ? p->exe : "");
	row->e = (struct proc_entry){
		.pid = p->pid, .ppid = p->ppid, .pgid = p->pgid, .sid = p->sid, .state = "running",
	};
	if (p->zombie) {
		row->e.state = "zombie";
		row->e.code = p->exit_status;
		snprintf(row->state, sizeof(row->state), ", zombie (%s %" PRIu64 ")",
			 p->exit_status & 0x7f ? "signal" : "exit status",
			 p->exit_status & 0x7f ? p->exit_status & 0x7f : p->exit_status >> 8);
	} else if (p->stop_signal) {
		row->e.state = "stopped";
		row->e.code = p->stop_signal;
		snprintf(row->state, sizeof(row->state), ", stopped (signal %" PRIu64 ")",
			 p->stop_signal);
	}
	slot_put(t->slots, t->n_slots, t->rows.items, t->rows.n - 1);
}

void proctree_count_thread(struct proctree *t, uint64_t pid)
{
	struct proc_row *row = find_row(t, pid);

	if (row)
		row->e.threads++;
}

/* The summary's line of a process: pid, comm, threads, group and session, state. */
static void print_row(const struct proc_entry *e, size_t depth, bool cycle, void *ctx)
{
	const struct proc_row *p = (const struct proc_row *)e;

	(void)ctx;
	/* Past 32 levels the indent stays, and the depth is written out. */
	if (depth > 32)
		printf("  %64s[depth %zu] %" PRIu64 " ", "", depth, e->pid);
	else
		printf("  %*s%" PRIu64 " ", (int)depth * 2, "", e->pid);
	print_text(e->comm);
	printf(" (%u thread%s, pgid %" PRIu64 ", sid %" PRIu64 "%s)%s\n", e->threads,
	       e->threads == 1 ? "" : "s", e->pgid, e->sid, p->state,
	       cycle ? "  (already shown: the parents form a cycle)" : "");
}

static int by_parent(const void *a, const void *b, void *rows)
{
	uint64_t x = ((const struct proc_row *)rows)[*(const size_t *)a].e.ppid;
	uint64_t y = ((const struct proc_row *)rows)[*(const size_t *)b].e.ppid;

	if (x != y)
		return x < y ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;	/* stream order */
}

/* The first of the children of @pid in @kids (rows sorted by parent). */
static size_t first_child(const struct proctree *t, const size_t *kids, uint64_t pid)
{
	size_t lo = 0, hi = t->rows.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows.items[kids[mid]].e.ppid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct walk_frame {
	uint64_t pid;
	size_t next;		/* in kids: the next child to visit */
};

struct walk {
	struct proctree *t;
	size_t *kids;		/* rows by parent */
	struct walk_frame *stack;
	proctree_visit visit;
	void *ctx;
};

/* The row's strings pointed at where the row is now: the array moves as it grows. */
static void visit_row(struct walk *w, struct proc_row *row, size_t depth, bool cycle)
{
	row->e.comm = row->comm;
	row->e.exe = row->exe;
	w->visit(&row->e, depth, cycle, w->ctx);
}

/*
 * @root and everything below it, depth first in stream order, without
 * recursion: the stack has room for every row.
 */
static void walk_from(struct walk *w, struct proc_row *root)
{
	struct proctree *t = w->t;
	size_t depth = 0;

	visit_row(w, root, 0, false);
	root->printed = true;
	w->stack[0] = (struct walk_frame){ root->e.pid, first_child(t, w->kids, root->e.pid) };
	while (true) {
		struct walk_frame *f = &w->stack[depth];
		struct proc_row *c;

		if (f->next == t->rows.n || t->rows.items[w->kids[f->next]].e.ppid != f->pid) {
			if (!depth--)
				return;
			continue;
		}
		c = &t->rows.items[w->kids[f->next++]];
		if (c->e.pid == f->pid)
			continue;	/* its own parent: visited as a root */
		visit_row(w, c, depth + 1, c->printed);
		if (c->printed)
			continue;
		c->printed = true;
		w->stack[++depth] = (struct walk_frame){ c->e.pid, first_child(t, w->kids, c->e.pid) };
	}
}

int proctree_walk(struct proctree *t, const uint64_t *only, proctree_visit visit, void *ctx)
{
	struct walk w = { .t = t, .visit = visit, .ctx = ctx };
	struct proc_row *p;
	int ret = -1;
	size_t i;

	w.kids = calloc(t->rows.n + 1, sizeof(*w.kids));
	w.stack = calloc(t->rows.n + 1, sizeof(*w.stack));
	if (!w.kids || !w.stack)
		goto out;
	for (i = 0; i < t->rows.n; i++) {
		w.kids[i] = i;
		t->rows.items[i].printed = false;
	}
	qsort_r(w.kids, t->rows.n, sizeof(*w.kids), by_parent, t->rows.items);
	ret = 0;
	if (only) {
		p = find_row(t, *only);
		if (p)
			walk_from(&w, p);
		else
			ret = 1;
		goto out;
	}
	/* Roots: processes whose parent is not in the snapshot, or themselves. */
	for (i = 0; i < t->rows.n; i++) {
		p = &t->rows.items[i];
		if (!p->printed && (p->e.ppid == p->e.pid || !find_row(t, p->e.ppid)))
			walk_from(&w, p);
	}
	/* What is left hangs off a cycle of parents: shown from its first process. */
	for (i = 0; i < t->rows.n; i++) {
		if (t->rows.items[i].printed)
			continue;
		visit(NULL, 0, true, ctx);
		walk_from(&w, &t->rows.items[i]);
	}
out:
	free(w.kids);
	free(w.stack);
	return ret;
}

bool proctree_dropped(const struct proctree *t)
{
	return t->dropped;
}

size_t proctree_size(const struct proctree *t)
{
	return t->rows.n;
}

/* The summary's visitor, and its line before a cycle. */
static void summary_visit(const struct proc_entry *e, size_t depth, bool cycle, void *ctx)
{
	if (!e)
		printf("  (a cycle of parents:)\n");
	else
		print_row(e, depth, cycle, ctx);
}

void proctree_print(struct proctree *t, const uint64_t *only)
{
	int ret;

	if (!t->rows.n)
		return;
	printf("\nprocess tree:\n");
	ret = proctree_walk(t, only, summary_visit, NULL);
	if (ret < 0)
		printf("  (out of memory: the tree not shown)\n");
	else if (ret > 0)
		printf("  (no process %" PRIu64 " in the snapshot)\n", *only);
	if (t->dropped)
		printf("  (out of memory: some processes not shown)\n");
}
