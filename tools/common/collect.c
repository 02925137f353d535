// SPDX-License-Identifier: GPL-2.0
/* Collecting what CRIB programs send: see collect.h. */
#include <errno.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "array.h"
#include "collect.h"
#include "crib_libbpf.h"
#include "dump.h"

/* Runs that may find the process's lock taken: nobody holds it long. */
#define BUSY_TRIES	100

struct collect_state {
	struct record_list **lists;
	size_t n_lists;
	int bad;
};

static int record_list_push(struct record_list *list, const void *rec)
{
	void *items;

	if (list->n == list->cap) {
		items = array_grow(list->items, &list->cap, list->n + 1, list->size);
		if (!items)
			return -ENOMEM;
		list->items = items;
	}
	memcpy((char *)list->items + list->n * list->size, rec, list->size);
	list->n++;
	return 0;
}

static int on_record(void *data, void *rec, size_t size)
{
	struct collect_state *st = data;
	struct record_list *list;
	size_t i;

	for (i = 0; i < st->n_lists; i++) {
		list = st->lists[i];
		if (size >= sizeof(uint32_t) && *(uint32_t *)rec == list->kind)
			break;
	}
	if (i == st->n_lists || size != list->size) {
		st->bad++;
		return 0;
	}
	return record_list_push(list, rec);
}

int program_collect_kinds(const struct crib_prog *prog, int map_fd, const void *ctx,
			  size_t ctx_size, struct record_list **lists, size_t n_lists,
			  struct tool_error *err)
{
	struct collect_state st = { .lists = lists, .n_lists = n_lists };
	const char *name = prog->name;
	struct ring_buffer *rb;
	int ret, retval;

	rb = ring_buffer__new(map_fd, on_record, &st, NULL);
	if (!rb)
		return tool_fail(err, errno, "cannot open the ring buffer of %s", name);
	ret = crib_prog_fd_run_target(prog->fd, ctx, ctx_size, &retval);
	if (ret) {
		tool_fail(err, -ret, "running %s failed", name);
		goto out;
	}
	ret = ring_buffer__consume(rb);
	if (ret < 0) {
		tool_fail(err, -ret, "reading the records of %s", name);
		goto out;
	}
	if (st.bad) {
		ret = tool_fail(err, 0, "%s sent %d malformed records", name, st.bad);
		goto out;
	}
	ret = retval;
out:
	ring_buffer__free(rb);
	return ret;
}

int program_collect(const struct crib_prog *prog, int map_fd, const void *ctx,
		    size_t ctx_size, struct record_list *out, struct tool_error *err)
{
	return program_collect_kinds(prog, map_fd, ctx, ctx_size, &out, 1, err);
}

int program_collect_all(const struct collect_walk *walk, struct record_list *out,
			struct tool_error *err)
{
	const char *name = walk->prog->name;
	int ret, busy = 0;
	size_t before;

	for (;;) {
		before = out->n;
		ret = program_collect(walk->prog, walk->map_fd, walk->ctx, walk->ctx_size, out,
				      err);
		if (ret < 0)
			return -1;
		if (ret == DUMP_OK)
			return 0;
		if (ret == DUMP_NO_ROOM && out->n > before) {
			*walk->start = walk->resume_after((const char *)out->items +
							  (out->n - 1) * out->size);
			continue;
		}
		if (ret == DUMP_BUSY && ++busy < BUSY_TRIES) {
			/* the run is tried again from where it started */
			out->n = before;
			continue;
		}
		if (ret == DUMP_NO_TASK)
			return tool_fail(err, 0, "no process with pid %d", (int)walk->pid);
		return tool_fail(err, 0, "%s failed (result %d)", name, ret);
	}
}

void record_list_free(struct record_list *list)
{
	free(list->items);
	list->items = NULL;
	list->n = list->cap = 0;
}
