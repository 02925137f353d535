// SPDX-License-Identifier: GPL-2.0
/*
 * Shadows: private anonymous memory waits for the restorer in this
 * process, in one mapping per VMA laid out like the VMA (its shadow),
 * rather than in the page store.  The new process inherits the shadows
 * (copy-on-write, so no copy) and the restorer moves each into place with
 * mremap(), pages and all: the contents are copied once, from the
 * snapshot into the shadow, where the page store costs a second copy, from
 * the store into place.
 *
 * All shadows lie in one reservation, placed like the restore area where
 * the snapshot has no mapping, so neither the restorer's unmapping nor
 * its mapping of the VMAs touches them before they are moved.  When
 * there is no room for them, or a VMA's shadow cannot be made, its pages
 * go to the page store as before.
 *
 * While the snapshot is read, shadows are filled through a userfaultfd
 * (UFFDIO_COPY, UFFDIO_ZEROPAGE): a run of pages comes into being with
 * its contents in one call, where writing them would fault each page in
 * and clear it first.  Where the kernel refuses, they are written in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "crib-restore.h"

#define SHADOWS_MAX	(1ULL << 47)	/* a 4-level user address space */

/* Memory that can wait in a shadow: private, anonymous, not locked. */
static bool shadowable(const struct crib_vma *v)
{
	return (v->kind == CRIB_VMA_ANON || v->kind == CRIB_VMA_HEAP ||
		v->kind == CRIB_VMA_STACK) && !(v->flags & CRIB_MAP_SHARED) &&
	       !(v->flags & CRIB_MAP_LOCKED);
}

/*
 * Reserve room for every shadow, once the VMAs are known: each VMA that
 * can have one gets its place, a page apart from the next.
 */
static void reserve(struct restore_plan *plan)
{
	uint64_t len = 0, page = plan->header.page_size;
	struct plan_vma *pv;
	size_t i;
	void *p;

	for (i = 0; i < plan->vmas.n; i++) {
		pv = &plan->vmas.items[i];
		if (!shadowable(&pv->v))
			continue;
		/* More than a user address space holds: no room, surely. */
		if (len > SHADOWS_MAX - page ||
		    pv->v.end - pv->v.start > SHADOWS_MAX - page - len) {
			plan->no_shadows = true;
			return;
		}
		pv->shadow_off = len;
		len += pv->v.end - pv->v.start + page;
	}
	p = len ? map_in_hole(plan, len, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE) : NULL;
	if (!p) {
		plan->no_shadows = true;
		return;
	}
	plan->shadows = p;
	plan->shadows_len = len;
	for (i = 0; i < plan->vmas.n; i++)
		plan->vmas.items[i].shadow_room = shadowable(&plan->vmas.items[i].v);
}

/* The VMA holding all of [addr, addr + len), or NULL. */
static struct plan_vma *vma_holding(struct restore_plan *plan, uint64_t addr, uint64_t len)
{
	size_t lo = 0, hi = plan->vmas.n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (plan->vmas.items[mid].v.end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == plan->vmas.n || plan->vmas.items[lo].v.start > addr ||
	    len > plan->vmas.items[lo].v.end - addr)
		return NULL;
	return &plan->vmas.items[lo];
}

int shadow_fill_open(void)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		/*
		 * A page of a shadow touched before it is filled raises
		 * SIGBUS, where it would wait for a handler there is none of.
		 */
		.features = UFFD_FEATURE_SIGBUS,
	};
	int fd = (int)syscall(__NR_userfaultfd, O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ioctl(fd, UFFDIO_API, &api)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Back to pages faulted in on access, for what is left of the shadow. */
static void fill_unregister(struct plan_vma *pv, int fill)
{
	struct uffdio_range range = { (uintptr_t)pv->shadow, pv->v.end - pv->v.start };

	ioctl(fill, UFFDIO_UNREGISTER, &range);
	pv->shadow_filled = false;
}

#define FILL_STALLS_MAX	100	/* EAGAINs with nothing done: then write in place */
#define FILL_IOCTLS	(1ULL << _UFFDIO_COPY | 1ULL << _UFFDIO_ZEROPAGE)

static void fill_register(struct plan_vma *pv, int fill)
{
	struct uffdio_register reg = {
		.range = { (uintptr_t)pv->shadow, pv->v.end - pv->v.start },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	if (fill < 0 || ioctl(fill, UFFDIO_REGISTER, &reg))
		return;
	pv->shadow_filled = true;
	if ((reg.ioctls & FILL_IOCTLS) != FILL_IOCTLS)
		fill_unregister(pv, fill);
}

/*
 * Fill [to, to + len) of a registered shadow with @data, or (@data NULL)
 * with the zero page.  -1 when the kernel would not: a page there already
 * (runs that overlap), no memory.
 */
static int fill_pages(int fill, char *to, const char *data, uint64_t len)
{
	struct uffdio_zeropage zero;
	struct uffdio_copy copy;
	int64_t done;
	int ret, stalls = 0;

	while (len) {
		if (data) {
			copy = (struct uffdio_copy){ (uintptr_t)to, (uintptr_t)data, len, 0, 0 };
			ret = ioctl(fill, UFFDIO_COPY, &copy);
			done = copy.copy;
		} else {
			zero = (struct uffdio_zeropage){ { (uintptr_t)to, len }, 0, 0 };
			ret = ioctl(fill, UFFDIO_ZEROPAGE, &zero);
			done = zero.zeropage;
		}
		/* EAGAIN: the mapping changed under it; go on after what was done. */
		if (ret && errno != EAGAIN)
			return -1;
		if (done <= 0 && ++stalls == FILL_STALLS_MAX)
			return -1;
		if (done > 0) {
			to += done;
			data = data ? data + done : NULL;
			len -= (uint64_t)done;
		}
	}
	return 0;
}

static void write_in_place(char *to, const void *data, uint64_t len, uint64_t page)
{
	uint64_t off;

	if (data) {
		memcpy(to, data, len);
		return;
	}
	/*
	 * Zero pages were there: make them present, as they were.  A read
	 * maps the kernel's shared zero page, which costs no memory and
	 * moves with the shadow like any other page.  But fork() copies no
	 * page table entries of a mapping never written to, so the first
	 * page is written, which is enough.
	 */
	*(volatile char *)to = 0;
	for (off = page; off < len; off += page)
		(void)*(volatile const char *)(to + off);
}

static int make_shadow(struct restore_plan *plan, struct plan_vma *pv, int fill)
{
	char *at = (char *)plan->shadows + pv->shadow_off;
	size_t len = pv->v.end - pv->v.start;
	void *p;

	p = mmap(at, len, PROT_READ | PROT_WRITE,
		 (int)(vma_map_flags(&pv->v) | MAP_FIXED), -1, 0);
	if (p != at) {
		/* Give its room back to the reservation; the page store takes its pages. */
		if (p != MAP_FAILED)
			munmap(p, len);
		mmap(at, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
		     -1, 0);
		pv->shadow_room = false;
		return -1;
	}
	pv->shadow = p;
	fill_register(pv, fill);
	return 0;
}

bool shadow_take(struct restore_plan *plan, int fill, uint64_t addr, const void *data,
		 uint64_t len)
{
	struct plan_vma *pv;
	char *to;

	if (!plan->shadows && !plan->no_shadows)
		reserve(plan);
	if (plan->no_shadows)
		return false;
	pv = vma_holding(plan, addr, len);
	if (!pv || !pv->shadow_room)
		return false;
	if (!pv->shadow && make_shadow(plan, pv, fill))
		return false;
	to = (char *)pv->shadow + (addr - pv->v.start);
	if (!pv->shadow_filled || fill_pages(fill, to, data, len)) {
		/*
		 * UFFDIO_ZEROPAGE maps the zero page as a read does, and gives
		 * the mapping what fork() looks for; what UFFDIO_COPY did
		 * before it stopped is written again.
		 */
		if (pv->shadow_filled)
			fill_unregister(pv, fill);
		write_in_place(to, data, len, plan->header.page_size);
	}
	plan->shadow_bytes += len;
	return true;
}

void shadow_let_go(const struct restore_plan *plan)
{
	if (plan->shadows)
		madvise(plan->shadows, plan->shadows_len, MADV_DONTNEED);
}

void shadow_free(struct restore_plan *plan)
{
	if (plan->shadows)
		munmap(plan->shadows, plan->shadows_len);
	plan->shadows = NULL;
	plan->shadows_len = 0;
}
