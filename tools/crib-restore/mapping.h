/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where crib-restore maps what the new process inherits, and what the
 * snapshot's VMAs are (mapping.c).
 */
#ifndef CRIB_RESTORE_MAPPING_H
#define CRIB_RESTORE_MAPPING_H

#include "plan.h"

/*
 * Map @len bytes where the snapshot has no mapping and this process has
 * none either, clear of the snapshot's mappings by a margin; NULL if no
 * hole has room (mapping.c).
 */
void *map_in_hole(const struct restore_plan *plan, size_t len, int prot, int flags);
/* The MAP_* flags a VMA of the snapshot is mapped with. */
uint32_t vma_map_flags(const struct crib_vma *v);
/*
 * Private anonymous memory, not locked (which would be populated as it is
 * mapped): what may wait in a shadow (shadow.c) or be copied in straight
 * (direct.c).
 */
bool vma_private_anon(const struct crib_vma *v);
/* A VMA the restorer maps: the kernel provides the vDSO pair itself. */
bool vma_is_mapped(const struct crib_vma *v);
/* A VMA that maps a shared memory object of the tree, through a descriptor. */
bool vma_maps_object(const struct crib_vma *v);

#endif /* CRIB_RESTORE_MAPPING_H */
