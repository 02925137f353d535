// SPDX-License-Identifier: GPL-2.0
/* Errors and procfs helpers shared by the parts of crib-dump. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "crib-dump.h"

int dump_fail(struct dump_error *err, const char *fmt, ...)
{
	va_list ap;

	/* The first error is the cause; later ones are its consequences. */
	if (err->msg[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

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
