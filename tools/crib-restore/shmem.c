// SPDX-License-Identifier: GPL-2.0
/*
 * Shared anonymous memory mapped by several VMAs of the tree (a shmem
 * record): one object again, made by crib-restore as the snapshot is read,
 * with mmap(MAP_SHARED | MAP_ANONYMOUS), and filled there from the pages
 * of whichever VMA carries them.  Every process inherits that mapping;
 * while it still runs crib-restore's code it opens the object through
 * /proc/self/map_files, and its restorer maps the object at each of its
 * VMAs, with their offsets.  The object is the same shmem file a fork()
 * would have shared ("/dev/zero (deleted)"), not a copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "plan.h"
#include "shmem.h"

int shmem_take(struct restore_tree *tree, const struct crib_shmem *s, struct tool_error *err)
{
	struct plan_shmem *sh;
	void *map;

	if (shmem_find(tree, s->shmem_id))
		return tool_fail(err, 0, "shared memory object %llu is in the snapshot twice",
				 (unsigned long long)s->shmem_id);
	map = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return tool_fail(err, errno, "cannot make shared memory object %llu (%llu bytes)",
				 (unsigned long long)s->shmem_id, (unsigned long long)s->size);
	sh = array_push(&tree->shmems);
	if (!sh) {
		munmap(map, s->size);
		return tool_fail(err, 0, "out of memory");
	}
	*sh = (struct plan_shmem){ .id = s->shmem_id, .size = s->size, .map = map };
	return 0;
}

struct plan_shmem *shmem_find(const struct restore_tree *tree, uint64_t id)
{
	for (size_t i = 0; i < tree->shmems.n; i++)
		if (tree->shmems.items[i].id == id)
			return &tree->shmems.items[i];
	return NULL;
}

bool shmem_take_pages(struct restore_tree *tree, const struct plan_vma *pv, uint64_t addr,
		      const void *data, uint64_t len, uint64_t page_size)
{
	struct plan_shmem *sh;
	uint64_t off;

	if (pv->v.kind != CRIB_VMA_SHARED_ANON || !pv->v.shmem_id)
		return false;
	sh = shmem_find(tree, pv->v.shmem_id);
	if (!sh)
		return false;	/* check.c refuses the VMA */
	off = pv->v.pgoff * page_size + (addr - pv->v.start);
	if (off > sh->size || len > sh->size - off)
		return false;
	/* Zero pages were present: written, so that they are again. */
	if (data)
		memcpy((char *)sh->map + off, data, len);
	else
		memset((char *)sh->map + off, 0, len);
	return true;
}

int shmem_open(const struct plan_shmem *sh)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", (unsigned long)sh->map,
		 (unsigned long)sh->map + (unsigned long)sh->size);
	return open(path, O_RDWR);
}

void shmem_free(struct restore_tree *tree)
{
	for (size_t i = 0; i < tree->shmems.n; i++)
		munmap(tree->shmems.items[i].map, tree->shmems.items[i].size);
	array_free(&tree->shmems);
}
