/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Filling shadows while the snapshot is read (shadow_fill.c): a
 * userfaultfd, and a thread that fills from a mapped snapshot.
 */
#ifndef CRIB_RESTORE_SHADOW_FILL_H
#define CRIB_RESTORE_SHADOW_FILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A run of pages for a shadow (shadow_fill.c). */
struct fill_run {
	char *to;		/* where in the shadow */
	const void *data;	/* NULL: zero pages */
	uint64_t len;
	void *shadow;		/* the whole shadow, to unregister */
	uint64_t shadow_len;
	uint64_t page;
	bool registered;	/* the shadow is registered with the filler */
};

/*
 * What fills shadows while the snapshot is read (shadow_fill.c): a
 * userfaultfd, and with @threaded (the snapshot is mapped, so the data of
 * stored records stays where it is until it is read to the end) a thread
 * that fills those runs while the reader goes on.  Never NULL but when
 * out of memory; without a userfaultfd every run is written in place.
 * Closing it waits for the queued runs and leaves the shadows as filled.
 */
struct shadow_filler *shadow_filler_open(bool threaded);
void shadow_filler_close(struct shadow_filler *f);
/*
 * Fill [@to, +@len) of memory registered with @uffd with @data, or (@data
 * NULL) with the zero page.  -1 when the kernel would not: a page there
 * already (runs that overlap), no memory, the memory no longer registered.
 */
int uffd_fill(int uffd, uint64_t to, const void *data, uint64_t len);
/* Register a new shadow, so that runs fill it: false when they cannot. */
bool shadow_fill_register(struct shadow_filler *f, void *shadow, uint64_t len);
/*
 * Fill @run, now or (its data in the input, or none) by the thread.
 * Returns whether the shadow is still registered.
 */
bool shadow_fill(struct shadow_filler *f, const struct fill_run *run, bool data_in_input);

#endif /* CRIB_RESTORE_SHADOW_FILL_H */
