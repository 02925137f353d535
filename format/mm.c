// SPDX-License-Identifier: GPL-2.0-only
/* Address space records: mm, vma, pages, shmem. */
#include "internal.h"

#define R CRIB_FIELD_REQUIRED
#define ID (CRIB_FIELD_REQUIRED | CRIB_FIELD_ID)
#define V CRIB_FIELD_VOLATILE
#define X CRIB_FIELD_HEX

static const struct crib_field mm_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_mm, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, X, struct crib_mm, start_code, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, X, struct crib_mm, end_code, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, X, struct crib_mm, start_data, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, X, struct crib_mm, end_data, 0, NULL),
	CRIB_F(6, CRIB_FT_UINT, X, struct crib_mm, start_brk, 0, NULL),
	CRIB_F(7, CRIB_FT_UINT, X, struct crib_mm, brk, 0, NULL),
	CRIB_F(8, CRIB_FT_UINT, X, struct crib_mm, start_stack, 0, NULL),
	CRIB_F(9, CRIB_FT_UINT, X, struct crib_mm, arg_start, 0, NULL),
	CRIB_F(10, CRIB_FT_UINT, X, struct crib_mm, arg_end, 0, NULL),
	CRIB_F(11, CRIB_FT_UINT, X, struct crib_mm, env_start, 0, NULL),
	CRIB_F(12, CRIB_FT_UINT, X, struct crib_mm, env_end, 0, NULL),
	CRIB_F(13, CRIB_FT_BLOB, 0, struct crib_mm, auxv, 4096, NULL),
	CRIB_F(14, CRIB_FT_PATH, 0, struct crib_mm, exe, 0, NULL),
	CRIB_F(15, CRIB_FT_UINT, X, struct crib_mm, flags, 0, NULL),
	CRIB_F(16, CRIB_FT_UINT, 0, struct crib_mm, nr_vmas, 0, NULL),
};
const struct crib_struct_desc crib_mm_desc = CRIB_DESC("mm", struct crib_mm, mm_fields);

static const struct crib_field vma_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_vma, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID | X, struct crib_vma, start, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, R | X, struct crib_vma, end, 0, NULL),
	CRIB_F(4, CRIB_FT_UINT, 0, struct crib_vma, prot, 0, NULL),
	CRIB_F(5, CRIB_FT_UINT, X, struct crib_vma, flags, 0, NULL),
	CRIB_F(6, CRIB_FT_UINT, 0, struct crib_vma, pgoff, 0, NULL),
	CRIB_F(7, CRIB_FT_PATH, 0, struct crib_vma, path, 0, NULL),
	CRIB_F(8, CRIB_FT_UINT, X, struct crib_vma, dev, 0, NULL),
	CRIB_F(9, CRIB_FT_UINT, V, struct crib_vma, inode, 0, NULL),
	CRIB_F(10, CRIB_FT_UINT, 0, struct crib_vma, kind, 0, NULL),
	CRIB_F(11, CRIB_FT_UINT, X | V, struct crib_vma, vm_flags, 0, NULL),
	CRIB_F(12, CRIB_FT_UINT, 0, struct crib_vma, shmid, 0, NULL),
	CRIB_F(13, CRIB_FT_UINT, 0, struct crib_vma, shmem_id, 0, NULL),
	CRIB_F(14, CRIB_FT_UINT, 0, struct crib_vma, ghost_id, 0, NULL),
	CRIB_F(15, CRIB_FT_UINT, X, struct crib_vma, advice, 0, NULL),
};
const struct crib_struct_desc crib_vma_desc = CRIB_DESC("vma", struct crib_vma, vma_fields);

static const struct crib_field pages_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_pages, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID | X, struct crib_pages, addr, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, R, struct crib_pages, npages, 0, NULL),
	CRIB_F(4, CRIB_FT_BLOB, CRIB_FIELD_BULK, struct crib_pages, data, CRIB_CHUNK_MAX, NULL),
};
const struct crib_struct_desc crib_pages_desc =
	CRIB_DESC("pages", struct crib_pages, pages_fields);

/* 1.4: the same run, its data in the data frame after the record's frame. */
static const struct crib_field stored_pages_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_pages, pid, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, ID | X, struct crib_pages, addr, 0, NULL),
	CRIB_F(3, CRIB_FT_UINT, R, struct crib_pages, npages, 0, NULL),
};

const struct crib_struct_desc crib_stored_pages_desc =
	CRIB_DESC("stored_pages", struct crib_pages, stored_pages_fields);

static const struct crib_field shmem_fields[] = {
	CRIB_F(1, CRIB_FT_UINT, ID, struct crib_shmem, shmem_id, 0, NULL),
	CRIB_F(2, CRIB_FT_UINT, R, struct crib_shmem, size, 0, NULL),
};
const struct crib_struct_desc crib_shmem_desc =
	CRIB_DESC("shmem", struct crib_shmem, shmem_fields);

const char *crib_vma_kind_name(uint64_t kind)
{
	static const char *const names[] = {
		[CRIB_VMA_ANON] = "anon",
		[CRIB_VMA_FILE] = "file",
		[CRIB_VMA_HEAP] = "heap",
		[CRIB_VMA_STACK] = "stack",
		[CRIB_VMA_VDSO] = "vdso",
		[CRIB_VMA_VVAR] = "vvar",
		[CRIB_VMA_VSYSCALL] = "vsyscall",
		[CRIB_VMA_SHARED_ANON] = "shared-anon",
		[CRIB_VMA_SYSV_SHM] = "sysv-shm",
	};

	return kind < ARRAY_SIZE(names) ? names[kind] : "unknown";
}

int crib_write_mm(struct crib_writer *w, const struct crib_mm *mm)
{
	return crib_writer_record(w, CRIB_REC_MM, mm);
}

int crib_write_vma(struct crib_writer *w, const struct crib_vma *vma)
{
	return crib_writer_record(w, CRIB_REC_VMA, vma);
}

int crib_write_shmem(struct crib_writer *w, const struct crib_shmem *s)
{
	return crib_writer_record(w, CRIB_REC_SHMEM, s);
}

int crib_write_pages(struct crib_writer *w, uint64_t pid, uint64_t addr, uint64_t npages,
		     const void *data)
{
	uint64_t page_size = crib_writer_page_size(w);
	uint64_t per_record = CRIB_CHUNK_MAX / page_size;
	struct crib_pages p = { .pid = pid, .addr = addr, .npages = npages };

	if (!data)	/* a zero run needs no data, so one record covers it */
		return crib_writer_record(w, CRIB_REC_PAGES, &p);
	while (npages) {
		uint64_t n = npages < per_record ? npages : per_record;

		p.addr = addr;
		p.npages = n;
		p.data.data = data;
		p.data.len = n * page_size;
		if (crib_writer_record(w, CRIB_REC_PAGES, &p))
			return -1;
		addr += n * page_size;
		data = (const uint8_t *)data + n * page_size;
		npages -= n;
	}
	return 0;
}
