// SPDX-License-Identifier: GPL-2.0
/*
 * The version the build gives (meson's project version), in one place.
 * The snapshot format a tool speaks is the format library's: a reader
 * takes every minor version up to it, a writer writes it.
 */
#include <stdio.h>

#include <crib/types.h>

#include "version.h"

#ifndef CRIB_VERSION
#error "the build defines CRIB_VERSION"
#endif

const char *tool_version(void)
{
	return CRIB_VERSION;
}

void tool_print_version(const char *tool)
{
	printf("%s %s (snapshot format %d.%d)\n", tool, CRIB_VERSION, CRIB_VERSION_MAJOR,
	       CRIB_VERSION_MINOR);
}
