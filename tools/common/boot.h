/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which boot this is: the kernel's random boot id, which a snapshot keeps
 * so that a restore can tell the boot of the dump from another (spec §5.6);
 * and how a time namespace shifts that boot's clocks.
 */
#ifndef CRIB_TOOLS_BOOT_H
#define CRIB_TOOLS_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Longer than any boot id: 36 characters and the terminating NUL. */
#define BOOT_ID_SIZE	64

/* /proc/sys/kernel/random/boot_id into @id, without its newline; 0 or -1. */
int boot_id_read(char *id, size_t size, struct tool_error *err);

/* The offsets of a time namespace to the boot's clocks, in ns. */
struct timens_offsets {
	int64_t monotonic_ns;
	int64_t boottime_ns;
};

/*
 * /proc/@pid/timens_offsets ("self" for ours): the namespace the
 * process's next children are born in.  All zero on a kernel without time
 * namespaces.  0 or -1.
 */
int timens_offsets_read(const char *pid, struct timens_offsets *off, struct tool_error *err);

#endif
