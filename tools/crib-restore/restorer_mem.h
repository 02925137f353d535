/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The restorer's own memset() and memcpy() (restorer_mem.c): it has no
 * libc, and the compiler may emit calls to these for struct copies and
 * clears.  For the restorer alone.
 */
#ifndef CRIB_RESTORER_MEM_H
#define CRIB_RESTORER_MEM_H

__attribute__((visibility("hidden"))) void *memset(void *s, int c, unsigned long n);
__attribute__((visibility("hidden"))) void *memcpy(void *d, const void *s, unsigned long n);

#endif /* CRIB_RESTORER_MEM_H */
