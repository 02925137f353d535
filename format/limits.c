// SPDX-License-Identifier: GPL-2.0-only
/*
 * The limits of spec/format.md ("Limits") that take more than a
 * comparison, for the writer, the reader and the tools alike.
 */
#include "internal.h"

bool crib_page_size_valid(uint64_t ps)
{
	return ps >= CRIB_PAGE_SIZE_MIN && ps <= CRIB_PAGE_SIZE_MAX && !(ps & (ps - 1));
}
