/* SPDX-License-Identifier: GPL-2.0 */
/* Reading a task's basics through the crib_probe program. */
#ifndef CRIB_TOOLS_PROBE_H
#define CRIB_TOOLS_PROBE_H

#include <stddef.h>

#include "crib_probe.h"

/*
 * Load crib_probe, run it on @pid and fill @out.  Returns 0, or -errno
 * with a message in @err.
 */
int crib_probe_task(int pid, struct crib_task_basics *out, char *err, size_t err_size);

#endif /* CRIB_TOOLS_PROBE_H */
