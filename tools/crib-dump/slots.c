// SPDX-License-Identifier: GPL-2.0
/*
 * The slots of struct dump_programs: every program and ring buffer
 * crib-dump uses, by its name in the objects, each an fd or -1.  Filled by
 * programs.c from loaded objects and by pins.c from pinned ones.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "crib-dump.h"

#define SLOT(field)	offsetof(struct dump_programs, field)

/* Every program crib-dump runs, by its name in the objects. */
static const struct {
	const char *name;
	size_t offset;
} prog_slots[] = {
	{ "dump_task", SLOT(task) },		{ "dump_thread", SLOT(thread) },
	{ "dump_children", SLOT(children) },	{ "dump_vmas", SLOT(vmas) },
	{ "dump_files", SLOT(files) },		{ "dump_epoll", SLOT(epoll) },
	{ "dump_inotify", SLOT(inotify) },	{ "dump_sockets", SLOT(sockets) },
	{ "dump_socket_queue", SLOT(socket_queue) },
	{ "dump_sighand", SLOT(sighand) },	{ "dump_sigqueue", SLOT(sigqueue) },
	{ "dump_timers", SLOT(timers) },
};

/* Every ring buffer crib-dump reads. */
static const struct {
	const char *name;
	size_t offset;
} map_slots[] = {
	{ "task_records", SLOT(task_records) },
	{ "vma_records", SLOT(vma_records) },
	{ "file_records", SLOT(file_records) },
	{ "epoll_records", SLOT(epoll_records) },
	{ "inotify_records", SLOT(inotify_records) },
	{ "socket_records", SLOT(socket_records) },
	{ "queue_records", SLOT(queue_records) },
	{ "signal_records", SLOT(signal_records) },
};

#define N_SLOTS(a)	(sizeof(a) / sizeof((a)[0]))

static struct crib_prog *prog_at(struct dump_programs *progs, size_t i)
{
	return (struct crib_prog *)((char *)progs + prog_slots[i].offset);
}

static int *map_at(struct dump_programs *progs, size_t i)
{
	return (int *)((char *)progs + map_slots[i].offset);
}

struct crib_prog *slots_prog(struct dump_programs *progs, const char *name)
{
	size_t i;

	for (i = 0; i < N_SLOTS(prog_slots); i++)
		if (!strcmp(prog_slots[i].name, name))
			return prog_at(progs, i);
	return NULL;
}

int *slots_map(struct dump_programs *progs, const char *name)
{
	size_t i;

	for (i = 0; i < N_SLOTS(map_slots); i++)
		if (!strcmp(map_slots[i].name, name))
			return map_at(progs, i);
	return NULL;
}

bool slots_complete(const struct dump_programs *progs)
{
	struct dump_programs *p = (struct dump_programs *)progs;
	size_t i;

	for (i = 0; i < N_SLOTS(prog_slots); i++)
		if (prog_at(p, i)->fd < 0)
			return false;
	for (i = 0; i < N_SLOTS(map_slots); i++)
		if (*map_at(p, i) < 0)
			return false;
	return true;
}

/* Every slot named and empty. */
void slots_init(struct dump_programs *progs)
{
	size_t i;

	memset(progs, 0, sizeof(*progs));
	for (i = 0; i < N_SLOTS(prog_slots); i++)
		*prog_at(progs, i) = (struct crib_prog){ prog_slots[i].name, -1 };
	for (i = 0; i < N_SLOTS(map_slots); i++)
		*map_at(progs, i) = -1;
	progs->pins_fd = -1;
	progs->target = -1;
}

void slots_close(struct dump_programs *progs)
{
	size_t i;

	for (i = 0; i < N_SLOTS(prog_slots); i++) {
		if (prog_at(progs, i)->fd >= 0)
			close(prog_at(progs, i)->fd);
		prog_at(progs, i)->fd = -1;
	}
	for (i = 0; i < N_SLOTS(map_slots); i++) {
		if (*map_at(progs, i) >= 0)
			close(*map_at(progs, i));
		*map_at(progs, i) = -1;
	}
}
