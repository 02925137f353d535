// SPDX-License-Identifier: GPL-2.0
/*
 * Event files: eventfd, signalfd, timerfd, epoll and inotify (inotify.c),
 * each made once per open file description by files_make(), parked with
 * the others.
 *
 * An eventfd gets its flags and its count back (written, as the count may
 * exceed what eventfd(2) takes), a signalfd its mask.  A timerfd is armed
 * on its clock for the time it had left (for TFD_TIMER_ABSTIME, at that
 * clock's time now plus what was left), with its interval, and given the
 * expirations not yet read with TFD_IOC_SET_TICKS.
 *
 * The items of the epolls are added last, once every description of the
 * tree exists, by crib-restore itself: an item is known by its file and
 * the descriptor number it was added under (tfd), which need not hold
 * that file any more.  So the watched description is put at tfd in
 * crib-restore for the epoll_ctl() (whatever crib-restore had there is
 * moved aside and back), which adds the item with the same key.  Parked
 * descriptions start above every tfd (files_park_base()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "inotify.h"
#include "plan.h"

#ifndef TFD_IOC_SET_TICKS
#define TFD_IOC_SET_TICKS	_IOW('T', 0, uint64_t)
#endif

#define NSEC_PER_SEC	1000000000ull

int events_take_timerfd(struct restore_tree *tree, const struct crib_timerfd *t,
			struct tool_error *err)
{
	struct crib_timerfd *slot = array_push(&tree->timerfds);

	if (!slot)
		return tool_fail(err, 0, "out of memory");
	*slot = *t;
	return 0;
}

int events_take_epoll_item(struct restore_tree *tree, const struct crib_epoll_item *e,
			   struct tool_error *err)
{
	struct crib_epoll_item *slot = array_push(&tree->epoll_items);

	if (!slot)
		return tool_fail(err, 0, "out of memory");
	*slot = *e;
	return 0;
}

static const struct crib_timerfd *find_timerfd(const struct restore_tree *tree, uint64_t pid,
					       uint64_t fd)
{
	for (size_t i = 0; i < tree->timerfds.n; i++)
		if (tree->timerfds.items[i].pid == pid && tree->timerfds.items[i].fd == fd)
			return &tree->timerfds.items[i];
	return NULL;
}

static const char *describe_item(const struct crib_epoll_item *e, char *buf, size_t len)
{
	snprintf(buf, len, "process %llu, fd %llu (eventpoll), the item added as fd %llu",
		 (unsigned long long)e->pid, (unsigned long long)e->fd,
		 (unsigned long long)e->tfd);
	return buf;
}

int events_check_items(const struct restore_tree *tree, struct tool_error *err)
{
	const struct crib_epoll_item *e;
	const struct plan_fd *ep, *target;
	char what[128];

	for (size_t i = 0; i < tree->epoll_items.n; i++) {
		e = &tree->epoll_items.items[i];
		ep = plan_find_fd(tree, e->pid, e->fd);
		target = plan_find_fd(tree, e->target_pid, e->target_fd);
		if (!ep || tree->descs.items[ep->desc].file->type != CRIB_FILE_EVENTPOLL)
			return tool_fail(err, 0, "%s: no such epoll in the snapshot",
					 describe_item(e, what, sizeof(what)));
		if (!target)
			return tool_fail(err, 0, "%s: its file, fd %llu of process %llu, is not in "
					 "the snapshot", describe_item(e, what, sizeof(what)),
					 (unsigned long long)e->target_fd,
					 (unsigned long long)e->target_pid);
		if (e->tfd > INT32_MAX)
			return tool_fail(err, 0, "%s: not a descriptor number",
					 describe_item(e, what, sizeof(what)));
	}
	return 0;
}

int events_check(const struct restore_tree *tree, const struct restore_plan *plan,
		 const struct crib_file *f, struct tool_error *err)
{
	if (f->type == CRIB_FILE_TIMERFD && !find_timerfd(tree, plan->proc.pid, f->fd))
		return tool_fail(err, 0, "fd %llu is a timerfd the snapshot does not describe",
				 (unsigned long long)f->fd);
	return 0;
}

int events_highest_tfd(const struct restore_tree *tree)
{
	int max = -1;

	for (size_t i = 0; i < tree->epoll_items.n; i++)
		if ((int)tree->epoll_items.items[i].tfd > max)
			max = (int)tree->epoll_items.items[i].tfd;
	return max;
}

static int make_eventfd(const struct crib_file *f)
{
	int fd = eventfd(0, EFD_CLOEXEC | (f->eventfd_semaphore ? EFD_SEMAPHORE : 0));
	uint64_t count = f->eventfd_count;

	if (fd >= 0 && count && write(fd, &count, sizeof(count)) != sizeof(count)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int make_signalfd(const struct crib_file *f)
{
	uint64_t mask = f->sigmask;

	/* the kernel's sigset, 64 bits: libc's sigaddset() refuses the signals it keeps */
	return (int)syscall(SYS_signalfd4, -1, &mask, sizeof(mask), O_CLOEXEC);
}

/* @t armed as it was, relative to now on its clock. */
static int arm_timerfd(int fd, const struct crib_timerfd *t)
{
	uint64_t value = t->value_ns, ticks = t->ticks;
	struct itimerspec its = { 0 };
	struct timespec now;

	/* a periodic timer due when it was read fires at once */
	if (!value && t->interval_ns)
		value = 1;
	if (value && (t->settime_flags & TFD_TIMER_ABSTIME)) {
		if (clock_gettime((clockid_t)t->clockid, &now))
			return -1;
		value += (uint64_t)now.tv_sec * NSEC_PER_SEC + (uint64_t)now.tv_nsec;
	}
	its.it_value.tv_sec = (time_t)(value / NSEC_PER_SEC);
	its.it_value.tv_nsec = (long)(value % NSEC_PER_SEC);
	its.it_interval.tv_sec = (time_t)(t->interval_ns / NSEC_PER_SEC);
	its.it_interval.tv_nsec = (long)(t->interval_ns % NSEC_PER_SEC);
	if (timerfd_settime(fd, (int)t->settime_flags, &its, NULL))
		return -1;
	return ticks ? ioctl(fd, TFD_IOC_SET_TICKS, &ticks) : 0;
}

static int make_timerfd(const struct restore_tree *tree, const struct plan_desc *d)
{
	const struct crib_timerfd *t = find_timerfd(tree, d->owner->proc.pid, d->file->fd);
	int fd = timerfd_create((int)t->clockid, TFD_CLOEXEC);

	if (fd >= 0 && arm_timerfd(fd, t)) {
		close(fd);
		return -1;
	}
	return fd;
}

int events_make(const struct restore_tree *tree, const struct plan_desc *d, int at,
		struct tool_error *err)
{
	const struct crib_file *f = d->file;
	int fd, fl;

	switch (f->type) {
	case CRIB_FILE_EVENTFD:
		fd = make_eventfd(f);
		break;
	case CRIB_FILE_SIGNALFD:
		fd = make_signalfd(f);
		break;
	case CRIB_FILE_TIMERFD:
		fd = make_timerfd(tree, d);
		break;
	case CRIB_FILE_INOTIFY:
		fd = inotify_make(tree, d, err);
		if (fd < 0)
			return -1;
		break;
	default:
		fd = epoll_create1(EPOLL_CLOEXEC);
		break;
	}
	if (fd >= 0 && dup3(fd, at, O_CLOEXEC) < 0) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0) {
		close(fd);
		fl = fcntl(at, F_GETFL);
		if (fl < 0 || fcntl(at, F_SETFL, (fl & ~O_NONBLOCK) | ((int)f->flags & O_NONBLOCK)))
			fd = -1;
	}
	if (fd < 0)
		return tool_fail(err, errno, "process %llu, fd %llu: cannot make the %s again",
				 (unsigned long long)d->owner->proc.pid, (unsigned long long)f->fd,
				 crib_file_type_name(f->type));
	return 0;
}

/*
 * epoll_ctl(@epoll, EPOLL_CTL_ADD, @tfd) with the file parked at @file
 * put at @tfd for the call; what crib-restore had at @tfd goes to @spare
 * or above meanwhile.
 */
static int add_item(int epoll, int file, int tfd, const struct crib_epoll_item *e, int spare)
{
	struct epoll_event ev = { .events = (uint32_t)e->events, .data.u64 = e->data };
	int aside = -1, fd_flags = fcntl(tfd, F_GETFD), ret = -1, saved;

	if (fd_flags >= 0) {
		aside = fcntl(tfd, F_DUPFD_CLOEXEC, spare);
		if (aside < 0)
			return -1;
	}
	if (dup2(file, tfd) < 0)
		goto out;
	ret = epoll_ctl(epoll, EPOLL_CTL_ADD, tfd, &ev);
out:
	saved = errno;
	if (aside >= 0) {
		dup3(aside, tfd, (fd_flags & FD_CLOEXEC) ? O_CLOEXEC : 0);
		close(aside);
	} else {
		close(tfd);
	}
	errno = saved;
	return ret;
}

int events_fill_epolls(const struct restore_tree *tree, int base, struct tool_error *err)
{
	int spare = base + (int)tree->descs.n + 64;
	const struct crib_epoll_item *e;
	const struct plan_fd *ep, *target;
	const struct plan_desc *d;
	char what[128];

	for (size_t i = 0; i < tree->epoll_items.n; i++) {
		e = &tree->epoll_items.items[i];
		ep = plan_find_fd(tree, e->pid, e->fd);
		target = plan_find_fd(tree, e->target_pid, e->target_fd);
		d = &tree->descs.items[ep->desc];
		/* every descriptor of an epoll lists its items: add them with the first */
		if (d->owner->proc.pid != e->pid || d->file->fd != e->fd)
			continue;
		if (add_item(base + (int)ep->desc, base + (int)target->desc, (int)e->tfd, e, spare))
			return tool_fail(err, errno, "%s: cannot add it again",
					 describe_item(e, what, sizeof(what)));
	}
	return 0;
}
