/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which boot this is: the kernel's random boot id, which a snapshot keeps
 * so that a restore can tell the boot of the dump from another (spec §5.6).
 */
#ifndef CRIB_TOOLS_BOOT_H
#define CRIB_TOOLS_BOOT_H

#include <stddef.h>

#include "error.h"

/* Longer than any boot id: 36 characters and the terminating NUL. */
#define BOOT_ID_SIZE	64

/* /proc/sys/kernel/random/boot_id into @id, without its newline; 0 or -1. */
int boot_id_read(char *id, size_t size, struct tool_error *err);

#endif
