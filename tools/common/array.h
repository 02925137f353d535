/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growable arrays.  ARRAY(type) is items[0] to items[n - 1] with room for
 * cap, zero when empty; it is a member of a named struct, or an anonymous
 * one whose fields the struct takes as its own:
 *
 *	struct plan { ARRAY(struct plan_vma) vmas; };	plan->vmas.items[i]
 *	struct queue { ARRAY(struct chunk); size_t bytes; };	queue->items[i]
 *
 *	struct plan_vma *v = array_push(&plan->vmas);
 *	if (!v)
 *		return tool_fail(err, 0, "out of memory");
 *
 * Room grows by doubling.  A failure leaves the array as it was.
 */
#ifndef CRIB_TOOL_ARRAY_H
#define CRIB_TOOL_ARRAY_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY(type)	struct { type *items; size_t n, cap; }

/*
 * @items grown to room for at least @need elements of @size bytes, @cap
 * updated; NULL when memory is short (or the size overflows), @items
 * untouched then.  The untyped core of the macros below.
 */
void *array_grow(void *items, size_t *cap, size_t need, size_t size);

/* Room for @more more elements: 0, or -ENOMEM. */
#define array_reserve(a, more) ({					\
	__typeof__(a) ar_ = (a);					\
	size_t need_ = ar_->n + (more);					\
	void *grown_;							\
	int ret_ = 0;							\
									\
	if (need_ > ar_->cap) {						\
		grown_ = array_grow(ar_->items, &ar_->cap, need_,	\
				    sizeof(*ar_->items));		\
		if (grown_)						\
			ar_->items = grown_;				\
		else							\
			ret_ = -ENOMEM;					\
	}								\
	ret_;								\
})

/* A new element at the end, zeroed; NULL when memory is short. */
#define array_push(a) ({						\
	__typeof__(a) ap_ = (a);					\
	__typeof__(ap_->items) new_ = NULL;				\
									\
	if (!array_reserve(ap_, 1)) {					\
		new_ = &ap_->items[ap_->n++];				\
		memset(new_, 0, sizeof(*new_));				\
	}								\
	new_;								\
})

/* The last element; the array must not be empty. */
#define array_last(a)	(&(a)->items[(a)->n - 1])

/* Free the elements' room (not what they point to); the array is empty again. */
#define array_free(a) do {						\
	__typeof__(a) af_ = (a);					\
									\
	free(af_->items);						\
	af_->items = NULL;						\
	af_->n = af_->cap = 0;						\
} while (0)

#endif /* CRIB_TOOL_ARRAY_H */
