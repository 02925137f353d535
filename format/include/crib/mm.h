/* SPDX-License-Identifier: GPL-2.0-only */
/* Address space records: mm, vma, pages. */
#ifndef CRIB_MM_H
#define CRIB_MM_H

#include <stddef.h>
#include <stdint.h>

#include <crib/types.h>

struct crib_writer;

struct crib_mm {
	uint64_t pid;
	uint64_t start_code, end_code;
	uint64_t start_data, end_data;
	uint64_t start_brk, brk;
	uint64_t start_stack;
	uint64_t arg_start, arg_end;
	uint64_t env_start, env_end;
	struct crib_blob auxv;		/* native-endian auxv pairs */
	const char *exe;
	uint64_t flags;			/* mm->flags (MMF_*) */
	uint64_t nr_vmas;		/* vma records that follow */
};

enum crib_vma_kind {
	CRIB_VMA_ANON = 0,
	CRIB_VMA_FILE = 1,
	CRIB_VMA_HEAP = 2,
	CRIB_VMA_STACK = 3,
	CRIB_VMA_VDSO = 4,
	CRIB_VMA_VVAR = 5,
	CRIB_VMA_VSYSCALL = 6,
	CRIB_VMA_SHARED_ANON = 7,
	CRIB_VMA_SYSV_SHM = 8,
};

/* vma flags: the mmap(2) MAP_* values. */
#define CRIB_MAP_SHARED		0x01
#define CRIB_MAP_PRIVATE	0x02
#define CRIB_MAP_GROWSDOWN	0x0100
#define CRIB_MAP_LOCKED		0x2000
#define CRIB_MAP_NORESERVE	0x4000

/* What madvise(2) set on a mapping and keeps in it (vma advice, 1.6). */
#define CRIB_ADV_SEQUENTIAL	0x01	/* MADV_SEQUENTIAL */
#define CRIB_ADV_RANDOM		0x02	/* MADV_RANDOM */
#define CRIB_ADV_DONTFORK	0x04	/* MADV_DONTFORK */
#define CRIB_ADV_WIPEONFORK	0x08	/* MADV_WIPEONFORK */
#define CRIB_ADV_DONTDUMP	0x10	/* MADV_DONTDUMP */
#define CRIB_ADV_HUGEPAGE	0x20	/* MADV_HUGEPAGE */
#define CRIB_ADV_NOHUGEPAGE	0x40	/* MADV_NOHUGEPAGE */
#define CRIB_ADV_MERGEABLE	0x80	/* MADV_MERGEABLE */
#define CRIB_ADV_ALL		0xff

struct crib_vma {
	uint64_t pid;
	uint64_t start, end;
	uint64_t prot;			/* PROT_* */
	uint64_t flags;			/* CRIB_MAP_* */
	uint64_t pgoff;			/* file offset in pages */
	const char *path;
	uint64_t dev;			/* st_dev encoding */
	uint64_t inode;
	uint64_t kind;			/* enum crib_vma_kind */
	uint64_t vm_flags;		/* kernel VM_* bits, informational */
	uint64_t shmid;			/* sysv-shm only */
	uint64_t shmem_id;		/* 1.1, shared-anon only: a shmem record; 0 its own */
	uint64_t ghost_id;		/* 1.2, file only: the ghost it maps, 0 none */
	uint64_t advice;		/* 1.6: CRIB_ADV_*, what madvise(2) set */
};

/* A shared anonymous memory object mapped by several vmas (1.1). */
struct crib_shmem {
	uint64_t shmem_id;		/* from 1 */
	uint64_t size;			/* bytes, page-aligned */
};

/* A run of pages: with data (npages * page_size bytes) or, without, zero pages. */
struct crib_pages {
	uint64_t pid;
	uint64_t addr;
	uint64_t npages;
	struct crib_blob data;
};

extern const struct crib_struct_desc crib_mm_desc;
extern const struct crib_struct_desc crib_vma_desc;
extern const struct crib_struct_desc crib_pages_desc;
extern const struct crib_struct_desc crib_stored_pages_desc;
extern const struct crib_struct_desc crib_shmem_desc;

const char *crib_vma_kind_name(uint64_t kind);

int crib_write_mm(struct crib_writer *w, const struct crib_mm *mm);
int crib_write_vma(struct crib_writer *w, const struct crib_vma *vma);
int crib_write_shmem(struct crib_writer *w, const struct crib_shmem *s);
/*
 * Pages starting at addr; data is npages * page_size bytes, or NULL for a run
 * of zero pages.  Split into records of at most CRIB_CHUNK_MAX bytes.
 */
int crib_write_pages(struct crib_writer *w, uint64_t pid, uint64_t addr,
		     uint64_t npages, const void *data);

#endif /* CRIB_MM_H */
