/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which crib a tool is: its version, as a snapshot's header records it,
 * and the one line every tool's --version prints.
 */
#ifndef CRIB_TOOL_VERSION_H
#define CRIB_TOOL_VERSION_H

/* crib's version, e.g. "0.1.0" */
const char *tool_version(void);

/* "TOOL VERSION (snapshot format MAJOR.MINOR)" on standard output. */
void tool_print_version(const char *tool);

#endif
