// SPDX-License-Identifier: GPL-2.0
/*
 * The dump_* CRIB programs: taken from the pins an earlier dump left
 * (pins.c), or loaded, and walks over a process with them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "crib-dump.h"
#include "crib_libbpf.h"
#include "dump_files.skel.h"
#include "dump_mm.skel.h"
#include "dump_sockets.skel.h"
#include "dump_signals.skel.h"
#include "dump_task.skel.h"

/* The skeletons' embedded objects, in the order of progs->objects. */
static const void *(*const object_bytes[DUMP_OBJECTS])(size_t *size) = {
	dump_task__elf_bytes, dump_mm__elf_bytes, dump_files__elf_bytes,
	dump_sockets__elf_bytes, dump_signals__elf_bytes,
};

void programs_key(char *key, size_t size)
{
	uint64_t hash = 0;
	const void *bytes;
	size_t i, len;

	for (i = 0; i < DUMP_OBJECTS; i++) {
		bytes = object_bytes[i](&len);
		hash = crib_xxh64(bytes, len, hash);
	}
	snprintf(key, size, "%016llx", (unsigned long long)hash);
}

/* One program object, loaded by a thread of its own. */
struct object_load {
	/* Open and load the skeleton; its struct bpf_object into *obj. */
	void *(*open_and_load)(struct bpf_object **obj);
	void **skel;
	struct bpf_object **obj;
	int err;		/* errno of a failed load */
	pthread_t thread;
	bool started;
};

static void *load_object(void *arg)
{
	struct object_load *l = arg;

	*l->obj = NULL;
	*l->skel = l->open_and_load(l->obj);
	l->err = *l->skel ? 0 : errno;
	return NULL;
}

/* The skeletons' loaders, typed for load_object(). */
#define SKELETON_LOADER(name)						\
static void *load_##name(struct bpf_object **obj)			\
{									\
	struct name *skel = name##__open_and_load();			\
									\
	if (skel)							\
		*obj = skel->obj;					\
	return skel;							\
}

SKELETON_LOADER(dump_task)
SKELETON_LOADER(dump_mm)
SKELETON_LOADER(dump_files)
SKELETON_LOADER(dump_sockets)
SKELETON_LOADER(dump_signals)

/*
 * Most of a small dump's time is the kernel verifying the programs: each
 * object is loaded by a thread of its own, so that the verifier runs on
 * every CPU at once.  libbpf takes objects loaded in parallel; what they
 * share, the CRIB section handlers, is registered before.
 */
static int load_objects(struct dump_programs *progs, struct tool_error *err)
{
	struct object_load loads[DUMP_OBJECTS] = {
		{ .open_and_load = load_dump_task, .skel = &progs->skeletons[0],
		  .obj = &progs->objects[0] },
		{ .open_and_load = load_dump_mm, .skel = &progs->skeletons[1],
		  .obj = &progs->objects[1] },
		{ .open_and_load = load_dump_files, .skel = &progs->skeletons[2],
		  .obj = &progs->objects[2] },
		{ .open_and_load = load_dump_sockets, .skel = &progs->skeletons[3],
		  .obj = &progs->objects[3] },
		{ .open_and_load = load_dump_signals, .skel = &progs->skeletons[4],
		  .obj = &progs->objects[4] },
	};
	char msg[256];
	int failed = 0;
	size_t i;

	if (crib_libbpf_init(msg, sizeof(msg)))
		return tool_fail(err, 0, "%s", msg);
	for (i = 0; i < DUMP_OBJECTS; i++)
		loads[i].started = !pthread_create(&loads[i].thread, NULL, load_object, &loads[i]);
	for (i = 0; i < DUMP_OBJECTS; i++) {
		if (loads[i].started)
			pthread_join(loads[i].thread, NULL);
		else
			load_object(&loads[i]);
		if (!failed && loads[i].err)
			failed = loads[i].err;
	}
	if (failed)
		return tool_fail(err, failed, "cannot load the dump programs");
	return 0;
}

/* The slots, from the loaded objects: descriptors of their own, as pins give. */
static int bind_objects(struct dump_programs *progs, struct tool_error *err)
{
	struct crib_prog *slot;
	struct bpf_program *prog;
	struct bpf_map *map;
	int *map_slot;
	size_t i;

	for (i = 0; i < DUMP_OBJECTS; i++) {
		bpf_object__for_each_program(prog, progs->objects[i]) {
			slot = slots_prog(progs, bpf_program__name(prog));
			if (slot && slot->fd < 0)
				slot->fd = dup(bpf_program__fd(prog));
		}
		bpf_object__for_each_map(map, progs->objects[i]) {
			map_slot = slots_map(progs, bpf_map__name(map));
			if (map_slot && *map_slot < 0)
				*map_slot = dup(bpf_map__fd(map));
		}
	}
	if (!slots_complete(progs))
		return tool_fail(err, errno, "the dump programs lack a program or a map");
	return 0;
}

int programs_load(struct dump_programs *progs, struct tool_error *err)
{
	char key[32];

	slots_init(progs);
	programs_key(key, sizeof(key));
	if (!pins_take(progs, key)) {
		progs->source = "pinned";
		return 0;
	}
	if (load_objects(progs, err) || bind_objects(progs, err)) {
		programs_unload(progs);
		return -1;
	}
	progs->source = pins_publish(progs, key) ? "loaded" : "loaded and pinned";
	return 0;
}

const char *programs_origin(const struct dump_programs *progs, char *buf, size_t size)
{
	if (progs->why[0])
		snprintf(buf, size, "%s (%s)", progs->source, progs->why);
	else
		snprintf(buf, size, "%s", progs->source);
	return buf;
}

int programs_walk(struct dump_job *job, const struct crib_prog *prog, int map_fd,
		  uint64_t (*resume_after)(const void *last), struct record_list *out)
{
	struct dump_ctx ctx = { .target = dump_target(job), .pid = job->pid,
				.tgid = job->pid };
	struct collect_walk walk = {
		.prog = prog, .map_fd = map_fd,
		.ctx = &ctx, .ctx_size = sizeof(ctx), .start = &ctx.start,
		.resume_after = resume_after, .pid = job->pid,
	};

	return program_collect_all(&walk, out, &job->err);
}

int programs_scope(struct dump_programs *progs, pid_t root, struct tool_error *err)
{
	progs->target = (int)syscall(SYS_pidfd_open, root, 0);
	if (progs->target < 0)
		return errno == ESRCH ? tool_fail(err, 0, "no process with pid %d", (int)root) :
		       tool_fail(err, errno, "cannot open a pidfd of process %d", (int)root);
	return 0;
}

void programs_unload(struct dump_programs *progs)
{
	if (progs->target >= 0)
		close(progs->target);
	slots_close(progs);
	pins_release(progs);
	dump_sockets__destroy(progs->skeletons[3]);
	dump_signals__destroy(progs->skeletons[4]);
	dump_files__destroy(progs->skeletons[2]);
	dump_mm__destroy(progs->skeletons[1]);
	dump_task__destroy(progs->skeletons[0]);
	slots_init(progs);
}
