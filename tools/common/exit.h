/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exit statuses every CRIB tool shares, one table (README.md, "Exit
 * status", and each manual page): a tool uses the rows that apply to it,
 * so that a script reads a status the same way whichever tool gave it.
 */
#ifndef CRIB_TOOL_EXIT_H
#define CRIB_TOOL_EXIT_H

#include <crib/types.h>

enum tool_exit {
	TOOL_EXIT_OK = 0,
	TOOL_EXIT_FAILED = 1,		/* the operation failed or was refused; a negative answer */
	TOOL_EXIT_USAGE = 2,		/* bad usage */
	TOOL_EXIT_IO = 3,		/* the snapshot cannot be opened, read or written */
	TOOL_EXIT_UNSUPPORTED = 4,	/* not a snapshot, a newer major, an unknown critical record */
	TOOL_EXIT_CORRUPT = 5,		/* a truncated, corrupt or invalid snapshot */
};

/* The status for a snapshot the format library could not read. */
int tool_exit_for(enum crib_err code);

#endif
