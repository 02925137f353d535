// SPDX-License-Identifier: GPL-2.0
/*
 * The tree's clocks (spec §5.6).  A tree dumped in another boot comes back
 * in a time namespace of its own, whose CLOCK_MONOTONIC and CLOCK_BOOTTIME
 * go on from their values at the dump: the deadlines its processes keep in
 * those clocks (an event loop's timers, a timeout) stay as near as they
 * were, instead of lying hours ahead or behind in a boot whose clocks
 * started again from zero.
 *
 * crib-restore makes the namespace for its children (unshare(2) with
 * CLONE_NEWTIME) and sets its offsets before the root is created; every
 * process of the tree is born in it.  In the boot of the dump the clocks
 * are the ones the tree ran on: a tree that ran in a time namespace of its
 * own gets one with the same offsets (1.5), and otherwise nothing is done.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "clocks.h"
#include "crib-restore.h"
#include "plan.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

#define NSEC_PER_SEC	1000000000LL

/* @then less the clock's value now, in ns. */
static int64_t offset_to(clockid_t clock, uint64_t then)
{
	struct timespec now;

	clock_gettime(clock, &now);
	return (int64_t)then - ((int64_t)now.tv_sec * NSEC_PER_SEC + now.tv_nsec);
}

/* One line of timens_offsets: seconds, and nanoseconds in [0, 1 s). */
static int format_offset(char *buf, size_t size, const char *clock, int64_t ns)
{
	int64_t sec = ns / NSEC_PER_SEC, nsec = ns % NSEC_PER_SEC;

	if (nsec < 0) {
		sec--;
		nsec += NSEC_PER_SEC;
	}
	return snprintf(buf, size, "%s %lld %lld\n", clock, (long long)sec, (long long)nsec);
}

/* The namespace crib-restore's children are born in gets these offsets. */
static int set_offsets(int64_t mono, int64_t boot, const struct restore_options *opt,
		       struct tool_error *err)
{
	char text[128];
	size_t len;
	int fd;

	len = (size_t)format_offset(text, sizeof(text), "monotonic", mono);
	len += (size_t)format_offset(text + len, sizeof(text) - len, "boottime", boot);
	fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return tool_fail(err, errno, "cannot open /proc/self/timens_offsets");
	if (write(fd, text, len) != (ssize_t)len) {
		tool_fail(err, errno, "cannot set the clocks of the new time namespace to "
			  "those of the dump (monotonic %+lld ns, boottime %+lld ns)",
			  (long long)mono, (long long)boot);
		close(fd);
		return -1;
	}
	close(fd);
	restore_verbose(opt, "clocks: a time namespace with offsets monotonic %+lld ns, "
			"boottime %+lld ns\n", (long long)mono, (long long)boot);
	return 0;
}

static int new_namespace(int64_t mono, int64_t boot, const char *why,
			 const struct restore_options *opt, struct tool_error *err)
{
	if (unshare(CLONE_NEWTIME))
		return tool_fail(err, errno, "%s, and its clocks need a time namespace "
				 "(CONFIG_TIME_NS)", why);
	return set_offsets(mono, boot, opt, err);
}

/*
 * Offsets are to the boot's own clocks, and ours include @own's: the
 * clocks of another boot go on from the header's values.
 */
int clocks_prepare(const struct restore_tree *tree, const struct restore_options *opt,
		   struct tool_error *err)
{
	const struct crib_header *h = &tree->header;
	struct timens_offsets own;
	char now[BOOT_ID_SIZE];

	if (!h->boot_id || !h->monotonic_ns)
		return 0;	/* a snapshot older than 1.2: the clocks of this boot */
	if (boot_id_read(now, sizeof(now), err) || timens_offsets_read("self", &own, err))
		return -1;
	if (strcmp(now, h->boot_id))
		return new_namespace(own.monotonic_ns + offset_to(CLOCK_MONOTONIC, h->monotonic_ns),
				     own.boottime_ns + offset_to(CLOCK_BOOTTIME, h->boottime_ns),
				     "the snapshot comes from another boot", opt, err);
	if (own.monotonic_ns == h->timens_monotonic_ns && own.boottime_ns == h->timens_boottime_ns)
		return 0;
	return new_namespace(h->timens_monotonic_ns, h->timens_boottime_ns,
			     "the tree ran in a time namespace of its own", opt, err);
}
