/* SPDX-License-Identifier: GPL-2.0 */
/* Workloads announce they are set up by writing READYFILE atomically. */
#ifndef CRIB_READY_H
#define CRIB_READY_H

#include <stdio.h>

/* Write @text to @path through a temporary file and a rename. */
static inline int write_ready(const char *path, const char *text)
{
	char tmp[4096 + sizeof(".tmp")];	/* any path a caller has room for */
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fputs(text, f);
	if (fclose(f))
		return -1;
	return rename(tmp, path);
}

#endif /* CRIB_READY_H */
