/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CRIB_DUMP_PAGE_SCAN_H
#define CRIB_DUMP_PAGE_SCAN_H

#include <stdint.h>

#include "kabi.h"

/*
 * The populated private pages of [start, end) in a process, present or
 * swapped and not file pages, as runs, a vector of them at a time
 * (PAGEMAP_SCAN on its /proc/PID/pagemap).
 */
#define PAGE_SCAN_RUNS	512	/* runs returned by one PAGEMAP_SCAN */
struct page_scan {
	struct pm_scan_arg arg;
	int pagemap_fd;
};
/* @runs holds PAGE_SCAN_RUNS; each run's categories are those of @return_mask. */
void page_scan_init(struct page_scan *scan, int pagemap_fd, uint64_t start, uint64_t end,
		    struct page_region *runs, uint64_t return_mask);
/*
 * The next vector of runs: how many (0: the range is done), or -1 with
 * errno set (EIO: the kernel's walk made no progress).  A full vector
 * ends where the walk stopped, not at a run's end.
 */
long page_scan_next(struct page_scan *scan);

#endif
