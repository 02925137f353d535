// SPDX-License-Identifier: GPL-2.0
/*
 * The tree a dump takes: the process asked for and every descendant.
 *
 * Freezing goes top down.  A process is frozen (freeze.c) before its
 * children are listed by the dump_children CRIB program, so the list is
 * complete: a stopped process cannot fork.  A child that forks before it
 * is frozen itself has its child listed in turn, once it is.  A zombie
 * (exited, not yet waited for) is not frozen, as it cannot run, and its
 * parent, frozen, cannot take it away; it has no children of its own
 * (they went to a subreaper or init when it exited).
 *
 * Every process is released, or killed, with the others: a dump that
 * fails lets them all run on as they were, and one that completes kills
 * them all while they are still stopped.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <bpf/libbpf.h>

#include "crib-dump.h"
#include "dump_task.skel.h"
#include "kabi.h"

/* A child of a process, as dump_children sends it; the next run goes on after it. */
static uint64_t after_child(const void *last)
{
	return (uint64_t)((const struct dump_child_rec *)last)->pid;
}

static int by_pid(const void *a, const void *b)
{
	const struct dump_child_rec *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* A job for @pid, with the settings of @model and nothing read yet. */
static struct dump_job *new_job(struct dump_tree *tree, const struct dump_job *model, pid_t pid)
{
	struct dump_job **slot, *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	slot = array_push(&tree->procs);
	if (!slot) {
		free(job);
		return NULL;
	}
	job->pid = pid;
	job->verbose = model->verbose;
	job->lock_network = model->lock_network;
	job->tree = tree;
	job->progs = model->progs;
	job->progress = model->progress;
	*slot = job;
	return job;
}

/* Freeze @job's process, or find it has become a zombie (it exited meanwhile). */
static int freeze_one(struct dump_tree *tree, struct dump_job *job, bool zombie)
{
	job->zombie = zombie;
	if (zombie || !freeze_process(&job->freezer, job->pid, &job->err))
		return 0;
	/* A child that exited while it was being frozen stays, a zombie: its parent is stopped. */
	if (job != tree->procs.items[0] && freeze_process_gone(&job->freezer) &&
	    !task_read(job) && (job->task.exit_state & EXIT_ZOMBIE)) {
		tool_error_clear(&job->err);
		job->zombie = true;
		return 0;
	}
	return tree_fail_in(tree, job);
}

/* The children of @parent, frozen (or zombies) and added to the tree. */
static int freeze_children(struct dump_tree *tree, struct dump_job *parent)
{
	struct record_list kids = { .kind = DUMP_REC_CHILD, .size = sizeof(struct dump_child_rec) };
	const struct dump_child_rec *k;
	struct dump_job *job;
	int ret = -1;
	size_t i;

	if (programs_walk(parent, &parent->progs.children, parent->progs.task_records, after_child, &kids)) {
		tree_fail_in(tree, parent);
		goto out;
	}
	qsort(kids.items, kids.n, kids.size, by_pid);
	for (i = 0; i < kids.n; i++) {
		k = (const struct dump_child_rec *)kids.items + i;
		dump_verbose(parent, "process %d: child %d%s\n", (int)parent->pid, (int)k->pid,
			     k->exit_state & EXIT_ZOMBIE ? " (a zombie)" : "");
		job = new_job(tree, tree_root(tree), k->pid);
		if (!job) {
			tool_fail(&tree->err, 0, "out of memory");
			goto out;
		}
		if (freeze_one(tree, job, k->exit_state & EXIT_ZOMBIE))
			goto out;
	}
	ret = 0;
out:
	record_list_free(&kids);
	return ret;
}

/*
 * The jobs, found breadth first (each one's children after it, by pid),
 * in pre-order into @order.
 */
static void preorder(struct dump_tree *tree, size_t at, struct dump_job **order, size_t *n)
{
	size_t i;

	order[(*n)++] = tree->procs.items[at];
	for (i = at + 1; i < tree->procs.n; i++)
		if (tree->procs.items[i]->task.ppid == tree->procs.items[at]->pid)
			preorder(tree, i, order, n);
}

static int order_tree(struct dump_tree *tree)
{
	struct dump_job **order = calloc(tree->procs.n, sizeof(*order));
	size_t n = 0, i;

	if (!order)
		return tool_fail(&tree->err, 0, "out of memory");
	preorder(tree, 0, order, &n);
	for (i = 0; i < n; i++) {
		tree->procs.items[i] = order[i];
		order[i]->index = (unsigned int)i + 1;
	}
	free(order);
	return 0;
}

int tree_freeze(struct dump_tree *tree, const struct dump_job *model, pid_t root)
{
	struct dump_job *job;
	size_t i;

	job = new_job(tree, model, root);
	if (!job)
		return tool_fail(&tree->err, 0, "out of memory");
	if (freeze_one(tree, job, false))
		return -1;
	for (i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		if (!job->zombie && freeze_children(tree, job))
			return -1;
	}
	/* The parent pids task_read() gives order the tree. */
	for (i = 0; i < tree->procs.n; i++)
		if (task_read(tree->procs.items[i]))
			return tree_fail_in(tree, tree->procs.items[i]);
	return order_tree(tree);
}

int tree_fail_in(struct dump_tree *tree, const struct dump_job *job)
{
	char named[32];

	/* A message that names the process already needs no prefix. */
	snprintf(named, sizeof(named), "process %d,", (int)job->pid);
	if (tree->procs.n <= 1 || tool_failed(&tree->err) ||
	    !strncmp(job->err.msg, named, strlen(named)))
		return tool_fail_with(&tree->err, &job->err);
	tree->err.errnum = job->err.errnum;
	snprintf(tree->err.msg, sizeof(tree->err.msg), "process %d: %.*s", (int)job->pid,
		 (int)sizeof(tree->err.msg) - 32, job->err.msg);
	return -1;
}

struct dump_job *tree_root(const struct dump_tree *tree)
{
	return tree->procs.items[0];
}

int tree_each(struct dump_tree *tree, int (*step)(struct dump_job *job))
{
	struct dump_job *job;
	size_t i;

	for (i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		if (!job->zombie && step(job))
			return tree_fail_in(tree, job);
	}
	return 0;
}

bool tree_gone(const struct dump_tree *tree)
{
	size_t i;

	for (i = 0; i < tree->procs.n; i++)
		if (!tree->procs.items[i]->zombie &&
		    freeze_process_gone(&tree->procs.items[i]->freezer))
			return true;
	return false;
}

void tree_release(struct dump_tree *tree)
{
	size_t i;

	for (i = 0; i < tree->procs.n; i++)
		freeze_release(&tree->procs.items[i]->freezer);
}

/*
 * SIGKILL to all first, so no process sees another die (a parent-death
 * signal, a pipe's reader gone) and runs on; then every exit collected.
 */
void tree_kill(struct dump_tree *tree)
{
	size_t i;

	for (i = 0; i < tree->procs.n; i++)
		if (!tree->procs.items[i]->zombie)
			kill(tree->procs.items[i]->pid, SIGKILL);
	for (i = 0; i < tree->procs.n; i++)
		if (!tree->procs.items[i]->zombie)
			freeze_kill(&tree->procs.items[i]->freezer);
}

void tree_free(struct dump_tree *tree)
{
	struct dump_job *job;
	size_t i;

	for (i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		network_free(job);
		sockets_free(job);
		timers_free(job);
		seccomp_free(job);
		signals_free(job);
		events_free(job);
		inotify_free(job);
		locks_free(job);
		pidfd_free(job);
		tty_free(job);
		files_free(job);
		mm_free(job);
		page_store_free(job->kept);
		array_free(&job->rseq_areas);
		array_free(&job->threads);
		free(job);
	}
	array_free(&tree->procs);
	sockets_free_shared(tree);
	files_free_shared(tree);
	mm_free_shared(tree);
	ghosts_free(tree);
}
