// SPDX-License-Identifier: GPL-2.0
/* Loading the dump_* CRIB programs, and walks over a process with them. */
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

int programs_walk(struct dump_job *job, const struct bpf_program *prog,
		  const struct bpf_map *map, uint64_t (*resume_after)(const void *last),
		  struct record_list *out)
{
	struct dump_ctx ctx = { .pid = job->pid, .tgid = job->pid };
	struct collect_walk walk = {
		.prog = prog, .map_fd = bpf_map__fd(map),
		.ctx = &ctx, .ctx_size = sizeof(ctx), .start = &ctx.start,
		.resume_after = resume_after, .pid = job->pid,
	};

	return program_collect_all(&walk, out, &job->err);
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
