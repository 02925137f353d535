// SPDX-License-Identifier: GPL-2.0
/* procfs helpers shared by the parts of crib-dump. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
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

uint64_t kernel_dev_to_st_dev(uint32_t kdev)
{
	/* include/linux/kdev_t.h: MINORBITS 20 */
	return makedev(kdev >> 20, kdev & ((1u << 20) - 1));
}
