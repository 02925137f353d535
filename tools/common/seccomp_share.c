// SPDX-License-Identifier: GPL-2.0
/*
 * Which seccomp filters the threads of one process share: the prefix all
 * run under, and a filter shared past it (seccomp_share.h).
 */
#include "seccomp_share.h"

size_t seccomp_shared_prefix(const struct seccomp_threads *st)
{
	size_t n, i, k;

	if (!st->n)
		return 0;
	n = st->count(st->ctx, 0);
	for (k = 1; k < st->n; k++) {
		size_t len = st->count(st->ctx, k);

		for (i = 0; i < n && i < len; i++)
			if (st->filter(st->ctx, k, i) != st->filter(st->ctx, 0, i))
				break;
		n = i;
	}
	return n;
}

/* Whether thread @k runs under @filter past @prefix. */
static bool runs_own(const struct seccomp_threads *st, size_t k, size_t prefix, uint64_t filter)
{
	size_t len = st->count(st->ctx, k), j;

	for (j = prefix; j < len; j++)
		if (st->filter(st->ctx, k, j) == filter)
			return true;
	return false;
}

bool seccomp_shared_past(const struct seccomp_threads *st, size_t prefix, size_t *a, size_t *b,
			 size_t *i)
{
	size_t ka, kb, fi;

	for (ka = 0; ka < st->n; ka++)
		for (fi = prefix; fi < st->count(st->ctx, ka); fi++)
			for (kb = ka + 1; kb < st->n; kb++)
				if (runs_own(st, kb, prefix, st->filter(st->ctx, ka, fi))) {
					*a = ka;
					*b = kb;
					*i = fi;
					return true;
				}
	return false;
}
