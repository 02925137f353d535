// SPDX-License-Identifier: GPL-2.0-only
/*
 * The summary's process tree: a row per process, found by pid through a
 * hash index (threads are counted as they stream by), and the tree
 * printed at the end from a list of children sorted by parent.  Every
 * process is printed once, however deep the tree: the walk keeps its own
 * stack, and a process met again (a crafted snapshot can make parents a
 * cycle) is marked, not followed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

struct proc_row {
	uint64_t pid, ppid, pgid, sid;
	char comm[17];
	unsigned threads;
	char state[48];		/* zombie, stopped: as the tree shows it */
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
	size_t h = pid_hash(rows[i].pid, n_slots);

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
		if (t->rows.items[t->slots[h] - 1].pid == pid)
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
	row->pid = p->pid;
	row->ppid = p->ppid;
	row->pgid = p->pgid;
	row->sid = p->sid;
	snprintf(row->comm, sizeof(row->comm), "%s", p->comm ? p->comm : "");
	if (p->zombie)
		snprintf(row->state, sizeof(row->state), ", zombie (%s %" PRIu64 ")",
			 p->exit_status & 0x7f ? "signal" : "exit status",
			 p->exit_status & 0x7f ? p->exit_status & 0x7f : p->exit_status >> 8);
	else if (p->stop_signal)
		snprintf(row->state, sizeof(row->state), ", stopped (signal %" PRIu64 ")",
			 p->stop_signal);
	slot_put(t->slots, t->n_slots, t->rows.items, t->rows.n - 1);
}

void proctree_count_thread(struct proctree *t, uint64_t pid)
{
	struct proc_row *row = find_row(t, pid);

	if (row)
		row->threads++;
}

/* One line of the tree: pid, comm, threads, group and session, state. */
static void print_row(const struct proc_row *p, size_t depth, const char *mark)
{
	/* Past 32 levels the indent stays, and the depth is written out. */
	if (depth > 32)
		printf("  %64s[depth %zu] %" PRIu64 " ", "", depth, p->pid);
	else
		printf("  %*s%" PRIu64 " ", (int)depth * 2, "", p->pid);
	print_text(p->comm);
	printf(" (%u thread%s, pgid %" PRIu64 ", sid %" PRIu64 "%s)%s\n", p->threads,
	       p->threads == 1 ? "" : "s", p->pgid, p->sid, p->state, mark);
}

static int by_parent(const void *a, const void *b, void *rows)
{
	uint64_t x = ((const struct proc_row *)rows)[*(const size_t *)a].ppid;
	uint64_t y = ((const struct proc_row *)rows)[*(const size_t *)b].ppid;

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

		if (t->rows.items[kids[mid]].ppid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct walk_frame {
	uint64_t pid;
	size_t next;		/* in kids: the next child to print */
};

/*
 * @root and everything below it, depth first in stream order, without
 * recursion: @stack has room for every row.
 */
static void walk(struct proctree *t, const size_t *kids, struct walk_frame *stack,
		 struct proc_row *root)
{
	size_t depth = 0;

	print_row(root, 0, "");
	root->printed = true;
	stack[0] = (struct walk_frame){ root->pid, first_child(t, kids, root->pid) };
	while (true) {
		struct walk_frame *f = &stack[depth];
		struct proc_row *c;

		if (f->next == t->rows.n || t->rows.items[kids[f->next]].ppid != f->pid) {
			if (!depth--)
				return;
			continue;
		}
		c = &t->rows.items[kids[f->next++]];
		if (c->pid == f->pid)
			continue;	/* its own parent: printed as a root */
		if (c->printed) {
			print_row(c, depth + 1, "  (already shown: the parents form a cycle)");
			continue;
		}
		print_row(c, depth + 1, "");
		c->printed = true;
		stack[++depth] = (struct walk_frame){ c->pid, first_child(t, kids, c->pid) };
	}
}

void proctree_print(struct proctree *t)
{
	size_t *kids = calloc(t->rows.n + 1, sizeof(*kids));
	struct walk_frame *stack = calloc(t->rows.n + 1, sizeof(*stack));
	size_t i;

	if (!t->rows.n)
		goto out;
	printf("\nprocess tree:\n");
	if (!kids || !stack) {
		printf("  (out of memory: the tree not shown)\n");
		goto out;
	}
	for (i = 0; i < t->rows.n; i++)
		kids[i] = i;
	qsort_r(kids, t->rows.n, sizeof(*kids), by_parent, t->rows.items);
	/* Roots: processes whose parent is not in the snapshot, or themselves. */
	for (i = 0; i < t->rows.n; i++) {
		struct proc_row *p = &t->rows.items[i];

		if (!p->printed && (p->ppid == p->pid || !find_row(t, p->ppid)))
			walk(t, kids, stack, p);
	}
	/* What is left hangs off a cycle of parents: shown from its first process. */
	for (i = 0; i < t->rows.n; i++) {
		if (t->rows.items[i].printed)
			continue;
		printf("  (a cycle of parents:)\n");
		walk(t, kids, stack, &t->rows.items[i]);
	}
	if (t->dropped)
		printf("  (out of memory: some processes not shown)\n");
out:
	free(kids);
	free(stack);
}
