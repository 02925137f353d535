// SPDX-License-Identifier: GPL-2.0
/* Loading the dump_* CRIB programs, and walks over a process with them. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
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

/* One program object, loaded by a thread of its own. */
struct object_load {
	void *(*open_and_load)(void);
	void **skel;
	int err;		/* errno of a failed load */
	pthread_t thread;
	bool started;
};

static void *load_object(void *arg)
{
	struct object_load *l = arg;

	*l->skel = l->open_and_load();
	l->err = *l->skel ? 0 : errno;
	return NULL;
}

/* The skeletons' loaders, typed for load_object(). */
static void *load_task(void)
{
	return dump_task__open_and_load();
}

static void *load_mm(void)
{
	return dump_mm__open_and_load();
}

static void *load_files(void)
{
	return dump_files__open_and_load();
}

static void *load_sockets(void)
{
	return dump_sockets__open_and_load();
}

static void *load_signals(void)
{
	return dump_signals__open_and_load();
}

/*
 * Most of a small dump's time is the kernel verifying the programs: each
 * object is loaded by a thread of its own, so that the verifier runs on
 * every CPU at once.  libbpf takes objects loaded in parallel; what they
 * share, the CRIB section handlers, is registered before.
 */
int programs_load(struct dump_programs *progs, struct tool_error *err)
{
	struct object_load loads[] = {
		{ .open_and_load = load_task, .skel = (void **)&progs->task },
		{ .open_and_load = load_mm, .skel = (void **)&progs->mm },
		{ .open_and_load = load_files, .skel = (void **)&progs->files },
		{ .open_and_load = load_sockets, .skel = (void **)&progs->sockets },
		{ .open_and_load = load_signals, .skel = (void **)&progs->signals },
	};
	size_t i, n = sizeof(loads) / sizeof(loads[0]);
	char msg[256];
	int failed = 0;

	if (crib_libbpf_init(msg, sizeof(msg)))
		return tool_fail(err, 0, "%s", msg);
	for (i = 0; i < n; i++)
		loads[i].started = !pthread_create(&loads[i].thread, NULL, load_object, &loads[i]);
	for (i = 0; i < n; i++) {
		if (loads[i].started)
			pthread_join(loads[i].thread, NULL);
		else
			load_object(&loads[i]);
		if (!failed && loads[i].err)
			failed = loads[i].err;
	}
	if (!failed)
		return 0;
	tool_fail(err, failed, "cannot load the dump programs");
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
