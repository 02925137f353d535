// SPDX-License-Identifier: GPL-2.0
/* Growable arrays: see array.h. */
#include <stdint.h>

#include "array.h"

#define ARRAY_MIN_CAP	16

void *array_grow(void *items, size_t *cap, size_t need, size_t size)
{
	size_t new_cap = *cap ? *cap : ARRAY_MIN_CAP;
	void *grown;

	while (new_cap < need) {
		if (new_cap > SIZE_MAX / 2)
			return NULL;
		new_cap *= 2;
	}
	grown = reallocarray(items, new_cap, size);
	if (grown)
		*cap = new_cap;
	return grown;
}
