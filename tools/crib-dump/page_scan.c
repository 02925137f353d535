// SPDX-License-Identifier: GPL-2.0
/* A process's populated private pages, found with PAGEMAP_SCAN. */
#include <errno.h>
#include <sys/ioctl.h>

#include "page_scan.h"

void page_scan_init(struct page_scan *scan, int pagemap_fd, uint64_t start, uint64_t end,
		    struct page_region *runs, uint64_t return_mask)
{
	scan->pagemap_fd = pagemap_fd;
	scan->arg = (struct pm_scan_arg){
		.size = sizeof(scan->arg),
		.start = start,
		.end = end,
		.vec = (uint64_t)(uintptr_t)runs,
		.vec_len = PAGE_SCAN_RUNS,
		.category_inverted = PAGE_IS_FILE,
		.category_mask = PAGE_IS_FILE,
		.category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
		.return_mask = return_mask,
	};
}

long page_scan_next(struct page_scan *scan)
{
	uint64_t from = scan->arg.start;
	long n;

	if (from >= scan->arg.end)
		return 0;
	n = ioctl(scan->pagemap_fd, PAGEMAP_SCAN, &scan->arg);
	if (n < 0)
		return -1;
	if (scan->arg.walk_end <= from) {
		errno = EIO;
		return -1;
	}
	scan->arg.start = scan->arg.walk_end;
	return n;
}
