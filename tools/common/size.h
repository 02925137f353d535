/* SPDX-License-Identifier: GPL-2.0 */
/* Byte counts as options give them: a number, then K, M, G or T (powers of 1024). */
#ifndef CRIB_TOOL_SIZE_H
#define CRIB_TOOL_SIZE_H

#include <stdint.h>

/* @s as a byte count in *@out: 0, or -1 when it is not one or overflows. */
int parse_size(const char *s, uint64_t *out);

#endif
