// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection, a testing aid: CRIB_RESTORE_FAULT=SITE makes the
 * restore fail at SITE, one of the points it passes once it starts making
 * things, so tests can check that a failure anywhere leaves nothing behind
 * (no process, no file, the PID and TIDs free) and loses nothing (the
 * snapshot still restores).  The sites, in the order a restore passes
 * them, are crib-restore's (the unlinked files made again; every open file
 * description made, event files and the items of epolls included), the
 * child's steps, the restorer's steps (enum rst_step) and the tracer's.
 * A child or restorer step fails in the root, or in the process
 * STEP@PID names.
 *
 * One site, the last, fails no restore: at "copy" the copy of a process's
 * pages through its restorer's userfaultfd (direct.c) fails after its
 * first piece, so that the pages are written the other way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "restorer.h"

static const struct fault_site_name {
	const char *name;
	enum fault_site site;
	uint32_t step;		/* FAULT_RESTORER: the enum rst_step */
} sites[] = {
	{ "ghosts",		FAULT_GHOSTS,		0 },
	{ "sockets",		FAULT_SOCKETS,		0 },
	{ "descriptions",	FAULT_DESCRIPTIONS,	0 },
	{ "fork",		FAULT_FORK,		0 },
	{ "session",		FAULT_SESSION,		0 },
	{ "terminal",		FAULT_TERMINAL,		0 },
	{ "files",		FAULT_FILES,		0 },
	{ "locks",		FAULT_LOCKS,		0 },
	{ "attributes",		FAULT_ATTRIBUTES,	0 },
	{ "start",		FAULT_RESTORER,	RST_STEP_START },
	{ "rseq",		FAULT_RESTORER,	RST_STEP_RSEQ },
	{ "unmap",		FAULT_RESTORER,	RST_STEP_UNMAP },
	{ "vdso",		FAULT_RESTORER,	RST_STEP_VDSO },
	{ "map",		FAULT_RESTORER,	RST_STEP_MAP },
	{ "fill",		FAULT_RESTORER,	RST_STEP_FILL },
	{ "protect",		FAULT_RESTORER,	RST_STEP_PROTECT },
	{ "mm",			FAULT_RESTORER,	RST_STEP_MM },
	{ "sigaction",		FAULT_RESTORER,	RST_STEP_SIGACTION },
	{ "itimer",		FAULT_RESTORER,	RST_STEP_ITIMER },
	{ "seccomp",		FAULT_RESTORER,	RST_STEP_SECCOMP },
	{ "thread",		FAULT_RESTORER,	RST_STEP_THREAD },
	{ "posix-timer",	FAULT_RESTORER,	RST_STEP_POSIX_TIMER },
	{ "sigqueue",		FAULT_RESTORER,	RST_STEP_SIGQUEUE },
	{ "rlimit",		FAULT_RESTORER,	RST_STEP_RLIMIT },
	{ "membarrier",		FAULT_RESTORER,	RST_STEP_MEMBARRIER },
	{ "thread-state",	FAULT_RESTORER,	RST_STEP_THREAD_STATE },
	{ "sched",		FAULT_RESTORER,	RST_STEP_SCHED },
	{ "ioprio",		FAULT_RESTORER,	RST_STEP_IOPRIO },
	{ "spec-ctrl",		FAULT_RESTORER,	RST_STEP_SPEC_CTRL },
	{ "creds",		FAULT_RESTORER,	RST_STEP_CREDS },
	{ "securebits",		FAULT_RESTORER,	RST_STEP_SECUREBITS },
	{ "done",		FAULT_RESTORER,	RST_STEP_DONE },
	{ "pidfds",		FAULT_PIDFDS,		0 },
	{ "registers",		FAULT_REGISTERS,	0 },
	{ "seals",		FAULT_SEALS,		0 },
	{ "resume",		FAULT_RESUME,		0 },
	{ "unlock",		FAULT_UNLOCK,		0 },
	{ "detach",		FAULT_DETACH,		0 },
	{ "copy",		FAULT_COPY,		0 },
};

#define N_SITES (sizeof(sites) / sizeof(sites[0]))

static void list_sites(char *buf, size_t len)
{
	size_t i, used = 0;
	int n;

	buf[0] = '\0';
	for (i = 0; i < N_SITES && used < len; i++) {
		n = snprintf(buf + used, len - used, "%s%s", i ? " " : "", sites[i].name);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

int fault_from_env(struct restore_fault *f, struct tool_error *err)
{
	const char *env = getenv("CRIB_RESTORE_FAULT"), *at;
	char names[512], spec[64], *end;
	unsigned long nr;
	long pid;
	size_t i;

	memset(f, 0, sizeof(*f));
	if (!env || !*env)
		return 0;
	snprintf(spec, sizeof(spec), "%s", env);
	at = strchr(env, '@');
	if (at) {
		spec[at - env < (long)sizeof(spec) ? at - env : 0] = '\0';
		pid = strtol(at + 1, &end, 10);
		if (*end || pid <= 0)
			return tool_fail(err, 0, "CRIB_RESTORE_FAULT=%s: not STEP@PID", env);
		f->pid = (pid_t)pid;
	}
	nr = strtoul(spec, &end, 10);
	for (i = 0; i < N_SITES; i++) {
		if ((!*end && nr == i + 1) || !strcmp(spec, sites[i].name)) {
			f->site = sites[i].site;
			f->step = sites[i].step;
			f->name = sites[i].name;
			return 0;
		}
	}
	list_sites(names, sizeof(names));
	return tool_fail(err, 0, "CRIB_RESTORE_FAULT=%s: no such step; the steps are, "
			 "in order (a name or its number from 1, then @PID for a process "
			 "other than the root): %s", env, names);
}

const char *fault_step_name(uint32_t step)
{
	size_t i;

	for (i = 0; i < N_SITES; i++)
		if (sites[i].site == FAULT_RESTORER && sites[i].step == step)
			return sites[i].name;
	return "?";
}
