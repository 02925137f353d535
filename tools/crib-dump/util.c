// SPDX-License-Identifier: GPL-2.0
/* procfs helpers shared by the parts of crib-dump. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "crib-dump.h"

int proc_readlink(pid_t pid, const char *what, char *buf, size_t size)
{
	char path[64];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	len = readlink(path, buf, size - 1);
	if (len < 0)
		return -errno;
	if ((size_t)len == size - 1)
		return -ENAMETOOLONG;
	buf[len] = '\0';
	return 0;
}

/* Field @n (3 or more) of a stat line from @after, its command's ')'. */
static const char *stat_field(const char *after, int n)
{
	const char *p = after;
	int field;

	for (field = 2; p && field < n; field++)
		p = strchr(p + 1, ' ');
	return p ? p + 1 : NULL;
}

int proc_stat_read(pid_t pid, struct proc_stat *st)
{
	const char *state, *tty, *flags, *start;
	char path[64], buf[1024], *end;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* The command (field 2) may hold spaces and parentheses: the last ')' ends it. */
	end = strrchr(buf, ')');
	state = end ? stat_field(end, 3) : NULL;
	tty = end ? stat_field(end, 7) : NULL;
	flags = end ? stat_field(end, 9) : NULL;
	start = end ? stat_field(end, 22) : NULL;
	if (!state || !tty || !flags || !start)
		return -1;
	st->state = *state;
	st->tty_nr = strtoul(tty, NULL, 10);
	st->flags = strtoul(flags, NULL, 10);
	st->start_time = strtoull(start, NULL, 10);
	return 0;
}

uint64_t kernel_dev_to_st_dev(uint32_t kdev)
{
	/* include/linux/kdev_t.h: MINORBITS 20 */
	return makedev(kdev >> 20, kdev & ((1u << 20) - 1));
}
