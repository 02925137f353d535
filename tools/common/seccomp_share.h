/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which seccomp filters the threads of one process share, as crib-dump
 * checks them before it writes them and crib-restore again before it
 * installs them: the filters every thread runs under, from the first
 * installed (the leader installs them before it starts the others), and
 * past those each thread's own.  A filter two threads run under past the
 * shared prefix cannot be made again (each would get its own copy).
 */
#ifndef CRIB_TOOL_SECCOMP_SHARE_H
#define CRIB_TOOL_SECCOMP_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The threads of a process as each tool holds them, read through two calls. */
struct seccomp_threads {
	size_t n;		/* threads, the leader first */
	const void *ctx;
	/* How many filters thread @k runs under. */
	size_t (*count)(const void *ctx, size_t k);
	/* What tells thread @k's filter @i (0: the first installed) from the others. */
	uint64_t (*filter)(const void *ctx, size_t k, size_t i);
};

/* How many filters, from the first installed, every thread runs under. */
size_t seccomp_shared_prefix(const struct seccomp_threads *st);

/*
 * Whether two threads run one filter past @prefix: true, with the first
 * such pair in *@a and *@b (*@a < *@b) and the filter's place among
 * thread *@a's in *@i.
 */
bool seccomp_shared_past(const struct seccomp_threads *st, size_t prefix, size_t *a, size_t *b,
			 size_t *i);

#endif
