// SPDX-License-Identifier: GPL-2.0
/*
 * Another process's descriptors, by pidfd (pidfd_getfd.h).
 */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pidfd_getfd.h"

int pidfd_take_fd(pid_t pid, int fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), copy, saved;

	if (pidfd < 0)
		return -1;
	copy = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	saved = errno;
	close(pidfd);
	errno = saved;
	return copy;
}
