/* SPDX-License-Identifier: GPL-2.0 */
/*
 * crib-restore: what every kind of file does with a descriptor it has
 * just made: park it at its slot, and give its description the status
 * flags it had.  Below files.c and the kinds it hands descriptions to.
 */
#ifndef CRIB_RESTORE_DESCRIPTORS_H
#define CRIB_RESTORE_DESCRIPTORS_H

#include <crib/files.h>

/* @fd moved to @at, parked, and closed; -1 with errno when it cannot be. */
int desc_park(int fd, int at);
/* The status flags of a description made by pipe(), socket() or open() with others. */
int desc_set_status_flags(int fd, const struct crib_file *f);

#endif
