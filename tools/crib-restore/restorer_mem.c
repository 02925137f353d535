// SPDX-License-Identifier: GPL-2.0
/*
 * memset() and memcpy() for the restorer, which runs without libc: the
 * compiler may emit calls to them for struct copies and clears.  Linked
 * into the restorer's blob only (meson.build), never into crib-restore,
 * which has libc's; hidden, so that calls to them need no relocation.
 */
#include "restorer_mem.h"

void *memset(void *s, int c, unsigned long n)
{
	unsigned char *p = s;

	while (n--)
		*p++ = (unsigned char)c;
	return s;
}

void *memcpy(void *d, const void *s, unsigned long n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	while (n--)
		*dp++ = *sp++;
	return d;
}
