// SPDX-License-Identifier: GPL-2.0
/*
 * crib-restore: parking a new descriptor at its slot and setting its
 * description's status flags, for every kind of file (descriptors.h).
 */
#include <fcntl.h>
#include <unistd.h>

#include "descriptors.h"

/* The status flags F_SETFL changes; the others are set at open() or not at all. */
#define SETFL_FLAGS	(O_NONBLOCK | O_APPEND | O_NOATIME)

int desc_park(int fd, int at)
{
	int ret;

	if (fd < 0)
		return -1;
	ret = dup3(fd, at, O_CLOEXEC);
	close(fd);
	return ret;
}

int desc_set_status_flags(int fd, const struct crib_file *f)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	return fcntl(fd, F_SETFL, (fl & ~SETFL_FLAGS) | ((int)f->flags & SETFL_FLAGS));
}
