// SPDX-License-Identifier: GPL-2.0
/*
 * Pages straight into the new process.  The pages of a mapped snapshot's
 * stored_pages records, and its zero runs, need no shadow (shadow.c) when
 * they belong to private anonymous memory: they stay where they lie in
 * the mapping until the process's restorer has mapped its VMAs and
 * registered them with a userfaultfd (restorer.h, rst_direct_state).
 * Then crib-restore takes that descriptor and copies them in with
 * UFFDIO_COPY (UFFDIO_ZEROPAGE for zeros): each page comes into being with
 * its contents, owned by the new process alone, so there is one copy and
 * no copy-on-write after, and no fork() of the pages or mremap() of them.
 *
 * The copying is shared by the tracer and threads (the copiers) made
 * before the tree's first process and kept until the restore ends: a
 * thread made later could take a PID the tree is about to claim.
 *
 * A restorer that could not open a userfaultfd has its pages written
 * through /proc/PID/mem instead, as is a process whose copy failed once
 * its VMAs are unregistered again.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "direct.h"
#include "mapping.h"
#include "pidfd_getfd.h"
#include "plan.h"
#include "shadow_fill.h"

#define DIRECT_PIECE	(4ULL << 20)	/* the most one copier takes at a time */
#define COPIERS_MAX	7		/* threads besides the tracer */

/* A part of a run, for one copier. */
struct piece {
	uint64_t to;		/* in the new process */
	const char *data;	/* NULL: zero pages */
	uint64_t len;
};

/* The pieces of one process, taken in turn by the tracer and the copiers. */
struct direct_job {
	int uffd;
	struct piece *pieces;
	size_t n, next, done;
	bool failed;
};

struct direct_copiers {
	pthread_t threads[COPIERS_MAX];
	pid_t tids[COPIERS_MAX];	/* each copier's, as it starts */
	int n, started;
	pthread_mutex_t lock;
	pthread_cond_t work;	/* a job, or stop */
	pthread_cond_t idle;	/* a piece done, or a copier started */
	struct direct_job *job;
	bool stop;
};

/* @a and @b of one plan, adjacent, would be one VMA if mapped afresh. */
static bool would_merge(const struct plan_vma *a, const struct plan_vma *b)
{
	return a->v.end == b->v.start && vma_private_anon(&a->v) && vma_private_anon(&b->v) &&
	       a->v.prot == b->v.prot && vma_map_flags(&a->v) == vma_map_flags(&b->v);
}

bool direct_keeps(const struct restore_plan *plan, const struct plan_vma *pv)
{
	size_t i = (size_t)(pv - plan->vmas.items);

	return !(i > 0 && would_merge(pv - 1, pv)) &&
	       !(i + 1 < plan->vmas.n && would_merge(pv, pv + 1));
}

int direct_take(struct restore_plan *plan, struct plan_vma *pv, uint64_t addr,
		const void *data, uint64_t len, struct tool_error *err)
{
	struct plan_direct *d;

	if (!vma_private_anon(&pv->v))
		return 0;
	d = plan->direct.n ? &plan->direct.items[plan->direct.n - 1] : NULL;
	if (d && d->addr + d->len == addr && (data ? d->data && (const char *)d->data +
					      d->len == data : !d->data)) {
		d->len += len;		/* one run split across records */
	} else {
		d = array_push(&plan->direct);
		if (!d)
			return tool_fail(err, 0, "out of memory");
		*d = (struct plan_direct){ addr, len, data };
	}
	pv->direct = true;
	plan->direct_bytes += len;
	return 1;
}

/* ---- copying through the restorer's userfaultfd ---- */

static int copy_piece(int uffd, const struct piece *p)
{
	return uffd_fill(uffd, p->to, p->data, p->len);
}

/* Take pieces of @job until none is left; with @c->lock held. */
static void work_on(struct direct_copiers *c, struct direct_job *job)
{
	struct piece p;
	int ret;

	while (job->next < job->n) {
		p = job->pieces[job->next++];
		pthread_mutex_unlock(&c->lock);
		ret = copy_piece(job->uffd, &p);
		pthread_mutex_lock(&c->lock);
		if (ret)
			job->failed = true;
		job->done++;
	}
	pthread_cond_broadcast(&c->idle);
}

static void *copier_main(void *arg)
{
	struct direct_copiers *c = arg;

	pthread_mutex_lock(&c->lock);
	c->tids[c->started++] = (pid_t)syscall(SYS_gettid);
	pthread_cond_broadcast(&c->idle);
	for (;;) {
		while (!c->stop && (!c->job || c->job->next == c->job->n))
			pthread_cond_wait(&c->work, &c->lock);
		if (c->stop)
			break;
		work_on(c, c->job);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* @pid is one the restore takes: a process, a thread or a group's helper. */
static bool takes_pid(const struct restore_tree *tree, pid_t pid)
{
	const struct restore_plan *plan;
	size_t i, j;

	for (i = 0; i < tree->procs.n; i++) {
		plan = tree->procs.items[i];
		if ((pid_t)plan->proc.pid == pid)
			return true;
		for (j = 0; j < plan->threads.n; j++)
			if (plan->threads.items[j].tid == pid)
				return true;
	}
	for (i = 0; i < tree->helpers.n; i++)
		if (tree->helpers.items[i].pid == pid)
			return true;
	return false;
}

static int copier_count(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN) - 1;

	return cpus > 0 ? (int)(cpus < COPIERS_MAX ? cpus : COPIERS_MAX) : 0;
}

bool direct_any(const struct restore_tree *tree)
{
	for (size_t i = 0; i < tree->procs.n; i++)
		if (tree->procs.items[i]->direct_bytes)
			return true;
	return false;
}

struct direct_copiers *direct_copiers_start(const struct restore_tree *tree)
{
	int want = copier_count(), i;
	struct direct_copiers *c;
	bool clash = false;

	if (!want || !direct_any(tree))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->work, NULL);
	pthread_cond_init(&c->idle, NULL);
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < want; i++) {
		if (pthread_create(&c->threads[i], NULL, copier_main, c))
			break;
		c->n++;
	}
	while (c->started < c->n)
		pthread_cond_wait(&c->idle, &c->lock);
	for (i = 0; i < c->n; i++)
		clash |= takes_pid(tree, c->tids[i]);
	pthread_mutex_unlock(&c->lock);
	/* A copier has a PID of the tree: let it go, the tracer copies alone. */
	if (clash || !c->n) {
		direct_copiers_stop(c);
		return NULL;
	}
	return c;
}

void direct_copiers_stop(struct direct_copiers *c)
{
	int i;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->lock);
	for (i = 0; i < c->n; i++)
		pthread_join(c->threads[i], NULL);
	pthread_cond_destroy(&c->idle);
	pthread_cond_destroy(&c->work);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* @plan's runs in pieces of DIRECT_PIECE at most; NULL when out of memory. */
static struct piece *cut(const struct restore_plan *plan, size_t *n)
{
	const struct plan_direct *d;
	struct piece *pieces;
	uint64_t off, len;
	size_t i, k = 0;

	for (i = 0; i < plan->direct.n; i++)
		k += (size_t)((plan->direct.items[i].len + DIRECT_PIECE - 1) / DIRECT_PIECE);
	pieces = calloc(k ? k : 1, sizeof(*pieces));
	if (!pieces)
		return NULL;
	k = 0;
	for (i = 0; i < plan->direct.n; i++) {
		d = &plan->direct.items[i];
		for (off = 0; off < d->len; off += len) {
			len = d->len - off < DIRECT_PIECE ? d->len - off : DIRECT_PIECE;
			pieces[k++] = (struct piece){
				d->addr + off, d->data ? (const char *)d->data + off : NULL, len,
			};
		}
	}
	*n = k;
	return pieces;
}

/*
 * Every piece copied through @uffd, by the tracer and the copiers; -1 if
 * one failed.  @copy_fails: only the first piece is copied, then it fails.
 */
static int copy_all(struct direct_copiers *c, int uffd, const struct restore_plan *plan,
		    bool copy_fails)
{
	struct direct_job job = { .uffd = uffd };
	size_t i;
	int ret = 0;

	job.pieces = cut(plan, &job.n);
	if (!job.pieces)
		return -1;
	if (copy_fails) {
		if (job.n)
			copy_piece(uffd, &job.pieces[0]);
		free(job.pieces);
		return -1;
	}
	if (!c) {
		for (i = 0; i < job.n && !ret; i++)
			ret = copy_piece(uffd, &job.pieces[i]);
		free(job.pieces);
		return ret;
	}
	pthread_mutex_lock(&c->lock);
	c->job = &job;
	pthread_cond_broadcast(&c->work);
	work_on(c, &job);
	while (job.done < job.n)
		pthread_cond_wait(&c->idle, &c->lock);
	c->job = NULL;
	pthread_mutex_unlock(&c->lock);
	free(job.pieces);
	return job.failed ? -1 : 0;
}

/* ---- writing through /proc/PID/mem ---- */

/* Give the direct VMAs of @plan back to ordinary faults. */
static void unregister_all(int uffd, const struct restore_plan *plan)
{
	struct uffdio_range range;
	size_t i;

	for (i = 0; i < plan->vmas.n; i++) {
		if (!plan->vmas.items[i].direct)
			continue;
		range = (struct uffdio_range){ plan->vmas.items[i].v.start,
					       plan->vmas.items[i].v.end - plan->vmas.items[i].v.start };
		ioctl(uffd, UFFDIO_UNREGISTER, &range);
	}
}

/*
 * The runs with contents written where they go; zero runs are left as
 * they are, unpopulated memory that reads as zeros just the same.
 */
static int write_all(const struct restore_plan *plan, pid_t pid, struct tool_error *err)
{
	const struct plan_direct *d;
	char path[64];
	uint64_t done;
	ssize_t n;
	size_t i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return tool_fail(err, errno, "cannot open %s", path);
	for (i = 0; i < plan->direct.n; i++) {
		d = &plan->direct.items[i];
		for (done = 0; d->data && done < d->len; done += (uint64_t)n) {
			n = pwrite(fd, (const char *)d->data + done, d->len - done,
				   (off_t)(d->addr + done));
			if (n <= 0) {
				tool_fail(err, n ? errno : EIO, "cannot write the memory of "
					  "process %d at %#llx", (int)pid,
					  (unsigned long long)(d->addr + done));
				close(fd);
				return -1;
			}
		}
	}
	close(fd);
	return 0;
}

int direct_fill(struct direct_copiers *c, const struct restore_plan *plan, pid_t pid,
		const struct rst_args *args, bool copy_fails, struct tool_error *err)
{
	int uffd;

	if (args->uffd < 0)
		return write_all(plan, pid, err);
	uffd = pidfd_take_fd(pid, args->uffd);
	if (uffd < 0)
		return tool_fail(err, errno, "cannot take the userfaultfd of process %d", (int)pid);
	if (copy_all(c, uffd, plan, copy_fails)) {
		unregister_all(uffd, plan);
		close(uffd);
		return write_all(plan, pid, err);
	}
	close(uffd);
	return 0;
}
