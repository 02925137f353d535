// SPDX-License-Identifier: GPL-2.0
/* Loading the dump_* CRIB programs and collecting what they send back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "crib-dump.h"
#include "crib_libbpf.h"
#include "dump_files.skel.h"
#include "dump_mm.skel.h"
#include "dump_sockets.skel.h"
#include "dump_signals.skel.h"
#include "dump_task.skel.h"

int programs_load(struct dump_programs *progs, struct tool_error *err)
{
	char msg[256];

	if (crib_libbpf_init(msg, sizeof(msg)))
		return tool_fail(err, 0, "%s", msg);
	progs->task = dump_task__open_and_load();
	if (!progs->task)
		goto fail;
	progs->mm = dump_mm__open_and_load();
	if (!progs->mm)
		goto fail;
	progs->files = dump_files__open_and_load();
	if (!progs->files)
		goto fail;
	progs->sockets = dump_sockets__open_and_load();
	if (!progs->sockets)
		goto fail;
	progs->signals = dump_signals__open_and_load();
	if (!progs->signals)
		goto fail;
	return 0;
fail:
	tool_fail(err, errno, "cannot load the dump programs");
	programs_unload(progs);
	return -1;
}

void programs_unload(struct dump_programs *progs)
{
	dump_sockets__destroy(progs->sockets);
	dump_signals__destroy(progs->signals);
	dump_files__destroy(progs->files);
	dump_mm__destroy(progs->mm);
	dump_task__destroy(progs->task);
	memset(progs, 0, sizeof(*progs));
}

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

int program_collect(const struct bpf_program *prog, int map_fd, const struct dump_ctx *ctx,
		    struct record_list *out, struct tool_error *err)
{
	return program_collect_kinds(prog, map_fd, ctx, sizeof(*ctx), &out, 1, err);
}

int program_collect_kinds(const struct bpf_program *prog, int map_fd, const void *ctx,
			  size_t ctx_size, struct record_list **lists, size_t n_lists,
			  struct tool_error *err)
{
	struct collect_state st = { .lists = lists, .n_lists = n_lists };
	struct ring_buffer *rb;
	int ret, retval;

	rb = ring_buffer__new(map_fd, on_record, &st, NULL);
	if (!rb)
		return tool_fail(err, errno, "cannot open the ring buffer of %s",
				 bpf_program__name(prog));
	ret = crib_prog_run(prog, ctx, ctx_size, &retval);
	if (ret) {
		tool_fail(err, -ret, "running %s failed", bpf_program__name(prog));
		goto out;
	}
	ret = ring_buffer__consume(rb);
	if (ret < 0) {
		tool_fail(err, -ret, "reading the records of %s", bpf_program__name(prog));
		goto out;
	}
	if (st.bad) {
		ret = tool_fail(err, 0, "%s sent %d malformed records", bpf_program__name(prog),
				st.bad);
		goto out;
	}
	ret = retval;
out:
	ring_buffer__free(rb);
	return ret;
}

void record_list_free(struct record_list *list)
{
	free(list->items);
	list->items = NULL;
	list->n = list->cap = 0;
}
