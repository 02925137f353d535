/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A file's modification time as the snapshot holds it: nanoseconds since
 * the epoch, 0 for "not recorded".
 */
#ifndef CRIB_FILETIME_H
#define CRIB_FILETIME_H

#include <stdint.h>
#include <sys/stat.h>

static inline uint64_t stat_mtime_ns(const struct stat *st)
{
	return (uint64_t)st->st_mtim.tv_sec * 1000000000 + (uint64_t)st->st_mtim.tv_nsec;
}

/* Give @fd's file the modification time @mtime_ns again; 0 leaves it. -1 with errno. */
static inline int file_set_mtime(int fd, uint64_t mtime_ns)
{
	struct timespec times[2] = {
		{ .tv_nsec = UTIME_OMIT },
		{ .tv_sec = (time_t)(mtime_ns / 1000000000), .tv_nsec = (long)(mtime_ns % 1000000000) },
	};

	return mtime_ns ? futimens(fd, times) : 0;
}

#endif /* CRIB_FILETIME_H */
