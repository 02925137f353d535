// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sized options (CRIB_OPTS(), crib/types.h): the check that lets the
 * open calls grow fields without breaking callers built against an older
 * or a newer header, as libbpf's libbpf_validate_opts().
 */
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

static bool zeroed(const uint8_t *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

bool crib_opts_valid(const void *opts, size_t user_sz, size_t known, const char *type_name,
		     struct crib_error *err)
{
	if (!opts)
		return true;
	if (user_sz < sizeof(size_t)) {
		crib_set_error(err, CRIB_E_INVAL, CRIB_OFFSET_NONE, "%s size (%zu) is too small",
			       type_name, user_sz);
		return false;
	}
	/* Fields of a newer header are refused only when set. */
	if (user_sz > known && !zeroed((const uint8_t *)opts + known, user_sz - known)) {
		crib_set_error(err, CRIB_E_INVAL, CRIB_OFFSET_NONE,
			       "%s has options this library does not know (%zu bytes, %zu known)",
			       type_name, user_sz, known);
		return false;
	}
	return true;
}
