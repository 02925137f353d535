/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Another process's descriptors, taken with pidfd_getfd(2): the caller
 * must be allowed to ptrace it.
 */
#ifndef CRIB_TOOL_PIDFD_GETFD_H
#define CRIB_TOOL_PIDFD_GETFD_H

#include <sys/types.h>

/* A copy of process @pid's descriptor @fd in this process; -1 with errno. */
int pidfd_take_fd(pid_t pid, int fd);

#endif /* CRIB_TOOL_PIDFD_GETFD_H */
