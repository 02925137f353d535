// SPDX-License-Identifier: GPL-2.0
/*
 * Event files: eventfd, signalfd, timerfd and epoll.  dump_files tells
 * which a descriptor is and reads its state through the event-file
 * kfuncs; this file turns that into the file record's keys and the
 * timerfd record, and has dump_epoll list the files each epoll watches.
 *
 * An epoll item names its file by the number dump_files gives every file
 * it meets in the tree (struct dump_file_rec.desc).  Once every process
 * is read, events_share() finds the first descriptor of the tree, in
 * snapshot order, that holds that file: the item is written with it, so
 * a restore finds the file whether the epoll's process still has it at
 * the number it was added under, at another one, or not at all.  A file
 * no process of the tree holds cannot be restored: the dump is refused.
 */
#include <stdlib.h>

#include <bpf/libbpf.h>

#include "crib-dump.h"
#include "dump_files.skel.h"

#define EFD_SEMAPHORE_FLAG	1	/* EFD_SEMAPHORE, as struct eventfd_ctx keeps it */

struct epoll_item {
	int epoll_fd;
	struct dump_epoll_item_rec k;
	pid_t target_pid;		/* events_share(): where the file is in the tree */
	int target_fd;
};

struct epoll_items {
	ARRAY(struct epoll_item) items;
};

uint64_t events_file_type(const struct dump_file_rec *k)
{
	switch (k->event) {
	case DUMP_EVENT_EVENTFD: return CRIB_FILE_EVENTFD;
	case DUMP_EVENT_TIMERFD: return CRIB_FILE_TIMERFD;
	case DUMP_EVENT_SIGNALFD: return CRIB_FILE_SIGNALFD;
	case DUMP_EVENT_EPOLL: return CRIB_FILE_EVENTPOLL;
	case DUMP_EVENT_INOTIFY: return CRIB_FILE_INOTIFY;
	default: return CRIB_FILE_ANON_INODE;
	}
}

void events_fill_file(const struct dump_file_rec *k, struct crib_file *f)
{
	if (k->event == DUMP_EVENT_EVENTFD) {
		f->eventfd_count = k->count;
		f->eventfd_semaphore = k->event_flags & EFD_SEMAPHORE_FLAG;
	} else if (k->event == DUMP_EVENT_SIGNALFD) {
		f->sigmask = k->sigmask;
	}
}

int events_write_timerfd(struct dump_job *job, const struct dump_file_rec *k)
{
	struct crib_timerfd t = {
		.pid = job->pid, .fd = (uint64_t)k->fd, .clockid = (uint64_t)k->clockid,
		.settime_flags = k->event_flags, .ticks = k->count,
		.value_ns = k->value_ns > 0 ? (uint64_t)k->value_ns : 0,
		.interval_ns = k->interval_ns > 0 ? (uint64_t)k->interval_ns : 0,
	};

	if (k->event != DUMP_EVENT_TIMERFD)
		return 0;
	if (crib_write_timerfd(job->writer, &t))
		return tool_fail(&job->err, 0, "writing the timerfd of fd %d: %s", k->fd,
				 crib_writer_error(job->writer)->msg);
	return 0;
}

/* The walk goes on from the item after the last one that arrived. */
static uint64_t after_item(const void *last)
{
	return ((const struct dump_epoll_item_rec *)last)->index + 1;
}

int events_collect(struct dump_job *job, const struct crib_prog *prog, int map_fd,
		   const struct dump_file_rec *k, const char *kind,
		   uint64_t (*resume_after)(const void *last), struct record_list *recs)
{
	struct dump_epoll_ctx ctx = { .target = dump_target(job), .pid = job->pid,
				       .fd = k->fd };
	struct collect_walk walk = {
		.prog = prog, .map_fd = map_fd,
		.ctx = &ctx, .ctx_size = sizeof(ctx), .start = &ctx.start,
		.resume_after = resume_after, .pid = job->pid,
	};
	struct tool_error err = { 0 };

	if (program_collect_all(&walk, recs, &err))
		return tool_fail(&job->err, 0, "process %d, fd %d (%s): cannot list what it "
				 "watches: %s", (int)job->pid, k->fd, kind, err.msg);
	if (recs->n != k->count)
		return tool_fail(&job->err, 0, "process %d, fd %d (%s): %zu watched files listed, "
				 "%llu counted: it changed during the dump", (int)job->pid, k->fd,
				 kind, recs->n, (unsigned long long)k->count);
	return 0;
}

int events_read_epoll(struct dump_job *job, const struct dump_file_rec *k)
{
	struct record_list recs = { .kind = DUMP_REC_EPOLL_ITEM,
				    .size = sizeof(struct dump_epoll_item_rec) };
	struct epoll_item *item;
	size_t i;
	int ret = -1;

	if (k->event != DUMP_EVENT_EPOLL)
		return 0;
	if (!job->epolls) {
		job->epolls = calloc(1, sizeof(*job->epolls));
		if (!job->epolls)
			return tool_fail(&job->err, 0, "out of memory");
	}
	if (events_collect(job, &job->progs.epoll, job->progs.epoll_records, k, "eventpoll", after_item, &recs))
		goto out;
	for (i = 0; i < recs.n; i++) {
		item = array_push(&job->epolls->items);
		if (!item) {
			tool_fail(&job->err, 0, "out of memory");
			goto out;
		}
		*item = (struct epoll_item){
			.epoll_fd = k->fd,
			.k = ((const struct dump_epoll_item_rec *)recs.items)[i],
		};
	}
	ret = 0;
out:
	record_list_free(&recs);
	return ret;
}

int events_share(struct dump_tree *tree, desc_finder find)
{
	struct epoll_item *item;
	struct dump_job *job;
	size_t i, j;

	for (i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		for (j = 0; job->epolls && j < job->epolls->items.n; j++) {
			item = &job->epolls->items.items[j];
			if (!find(tree, item->k.desc, &item->target_pid, &item->target_fd))
				return tool_fail(&tree->err, 0, "process %d, fd %d (eventpoll) "
						 "watches a file, added as fd %d, that no process "
						 "of the tree holds", (int)job->pid, item->epoll_fd,
						 item->k.tfd);
		}
	}
	return 0;
}

int events_write_epolls(struct dump_job *job)
{
	const struct epoll_item *item;
	struct crib_epoll_item e;
	size_t i;

	for (i = 0; job->epolls && i < job->epolls->items.n; i++) {
		item = &job->epolls->items.items[i];
		e = (struct crib_epoll_item){
			.pid = job->pid, .fd = (uint64_t)item->epoll_fd,
			.tfd = (uint64_t)item->k.tfd, .target_pid = (uint64_t)item->target_pid,
			.target_fd = (uint64_t)item->target_fd, .events = item->k.events,
			.data = item->k.data,
		};
		if (crib_write_epoll_item(job->writer, &e))
			return tool_fail(&job->err, 0, "writing an item of epoll fd %d: %s",
					 item->epoll_fd, crib_writer_error(job->writer)->msg);
	}
	return 0;
}

void events_free(struct dump_job *job)
{
	if (!job->epolls)
		return;
	array_free(&job->epolls->items);
	free(job->epolls);
	job->epolls = NULL;
}
