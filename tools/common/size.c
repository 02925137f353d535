// SPDX-License-Identifier: GPL-2.0
/* Byte counts as options give them (size.h). */
#include <errno.h>
#include <stdlib.h>

#include "size.h"

int parse_size(const char *s, uint64_t *out)
{
	unsigned long long n;
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	case 'T': shift = 40; end++; break;
	default: break;
	}
	if (*end || n > UINT64_MAX >> shift)
		return -1;
	*out = (uint64_t)n << shift;
	return 0;
}
