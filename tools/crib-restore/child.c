// SPDX-License-Identifier: GPL-2.0
/*
 * The new process, while it still runs crib-restore's code: it waits until
 * crib-restore traces it, opens the files the restorer will map, lays out
 * its descriptors as the snapshot had them, takes back the process
 * attributes that libc can set, and jumps into the restorer.  A failure
 * here is written to the area's message and ends the process; crib-restore
 * reports it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "crib-restore.h"
#include "kabi.h"

/* End the child with @err's failure, for crib-restore to report. */
static __attribute__((noreturn))
void child_exit(struct restore_area *area, const struct tool_error *err)
{
	char *msg = area->args->message;
	size_t len;

	/* as much of it as the area holds */
	if (!msg[0]) {
		len = strnlen(err->msg, sizeof(area->args->message) - 1);
		memcpy(msg, err->msg, len);
		msg[len] = '\0';
	}
	_exit(1);
}

static __attribute__((noreturn, format(printf, 3, 4)))
void child_fail(struct restore_area *area, int errnum, const char *fmt, ...)
{
	struct tool_error err = { 0 };
	va_list ap;

	va_start(ap, fmt);
	tool_vfail(&err, errnum, fmt, ap);
	va_end(ap);
	child_exit(area, &err);
}

static int highest_fd(const struct restore_plan *plan)
{
	int max = 2;
	size_t i;

	for (i = 0; i < plan->files.n; i++)
		if ((int)plan->files.items[i].fd > max)
			max = (int)plan->files.items[i].fd;
	return max;
}

/* Descriptor limits high enough for the snapshot's numbers and our own. */
static void raise_nofile(struct restore_area *area, rlim_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		child_fail(area, errno, "getrlimit");
	if (rl.rlim_cur >= need)
		return;
	rl.rlim_cur = need;
	if (rl.rlim_max < need)
		rl.rlim_max = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		child_fail(area, errno, "cannot allow %llu descriptors",
			   (unsigned long long)need);
}

/*
 * The files the restorer maps, each opened once.  Until the descriptors
 * settle, fds->vma[i] is an index into fds->opened, not a descriptor.
 */
static void open_mapped_files(const struct restore_plan *plan, struct restore_fds *fds,
			      struct restore_area *area)
{
	const struct crib_vma *v;
	size_t i, j;
	int flags;

	fds->vma = calloc(plan->vmas.n + 1, sizeof(int));
	fds->opened = calloc(plan->vmas.n + 1, sizeof(int));
	if (!fds->vma || !fds->opened)
		child_fail(area, 0, "out of memory");
	for (i = 0; i < plan->vmas.n; i++) {
		v = &plan->vmas.items[i].v;
		fds->vma[i] = -1;
		if (v->kind != CRIB_VMA_FILE)
			continue;
		/* A shared writable mapping needs the file open for writing. */
		flags = (v->flags & CRIB_MAP_SHARED) && (v->vm_flags & VM_MAYWRITE) ?
			O_RDWR : O_RDONLY;
		for (j = 0; j < i; j++)
			if (fds->vma[j] >= 0 && !strcmp(plan->vmas.items[j].v.path, v->path) &&
			    (fcntl(fds->opened[fds->vma[j]], F_GETFL) & O_ACCMODE) == flags)
				fds->vma[i] = fds->vma[j];
		if (fds->vma[i] >= 0)
			continue;
		fds->opened[fds->n_opened] = open(v->path, flags);
		if (fds->opened[fds->n_opened] < 0)
			child_fail(area, errno, "cannot open %s to map it at %#llx", v->path,
				   (unsigned long long)v->start);
		fds->vma[i] = (int)fds->n_opened++;
	}
}

/*
 * The helpers go right above the snapshot's highest descriptor, where the
 * restorer finds them and closes them; everything crib-restore had open
 * is closed, except the program that refills UDP queues, which goes right
 * after them, where files_restore() closes it with its other temporary
 * descriptors.  They are first parked high, past everything, so moving
 * one never lands on another.
 */
static void settle_helpers(const struct restore_plan *plan, struct restore_fds *fds,
			   struct udp_refill *refill, struct restore_area *area, int base)
{
	size_t n = fds->n_opened + 2 + (refill->prog_fd >= 0), i;
	int *from = calloc(n, sizeof(int)), *high = calloc(n, sizeof(int));
	int park = base + (int)n + 1024;

	if (!from || !high)
		child_fail(area, 0, "out of memory");
	from[0] = fds->pages;
	from[1] = fds->exe;
	memcpy(from + 2, fds->opened, fds->n_opened * sizeof(int));
	if (refill->prog_fd >= 0)
		from[n - 1] = refill->prog_fd;
	raise_nofile(area, (rlim_t)park + n + 64);
	for (i = 0; i < n; i++) {
		high[i] = fcntl(from[i], F_DUPFD, park);
		if (high[i] < 0)
			child_fail(area, errno, "cannot move a descriptor");
	}
	close_range(0, (unsigned int)park - 1, 0);
	for (i = 0; i < n; i++) {
		if (dup2(high[i], base + (int)i) < 0)
			child_fail(area, errno, "cannot move a descriptor");
	}
	close_range((unsigned int)(base + (int)n), ~0U, 0);
	fds->pages = base;
	fds->exe = base + 1;
	for (i = 0; i < fds->n_opened; i++)
		fds->opened[i] = base + 2 + (int)i;
	if (refill->prog_fd >= 0)
		refill->prog_fd = base + (int)n - 1;
	for (i = 0; i < plan->vmas.n; i++)
		if (fds->vma[i] >= 0)
			fds->vma[i] = base + 2 + fds->vma[i];
	free(from);
	free(high);
}

static void set_session(const struct restore_plan *plan)
{
	/* The session and group cannot be joined again; lead a new one when the process led one. */
	if (plan->proc.sid == plan->proc.pid)
		setsid();
	else if (plan->proc.pgid == plan->proc.pid)
		setpgid(0, 0);
}

static void set_attributes(const struct restore_plan *plan, struct restore_area *area)
{
	const struct crib_process *p = &plan->proc;
	struct sched_param sp = { .sched_priority = (int)p->sched_priority };
	struct rst_sigaction dfl = { 0 };	/* the first four words are the kernel's */
	int sig;

	/*
	 * Dispositions not in the snapshot are the kernel's default, all zero:
	 * not libc's SIG_DFL, which comes with its own flags and restorer.
	 */
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof(uint64_t));
	if (chdir(p->cwd))
		child_fail(area, errno, "cannot enter %s", p->cwd);
	if (strcmp(p->root, "/") && chroot(p->root))
		child_fail(area, errno, "cannot change root to %s", p->root);
	umask((mode_t)p->umask);
	set_session(plan);
	if (personality((unsigned long)p->personality) < 0)
		child_fail(area, errno, "cannot set personality %#llx",
			   (unsigned long long)p->personality);
	if (sched_setscheduler(0, (int)p->sched_policy, &sp))
		child_fail(area, errno, "cannot set scheduling policy %llu",
			   (unsigned long long)p->sched_policy);
	if (setpriority(PRIO_PROCESS, 0, (int)p->nice))
		child_fail(area, errno, "cannot set nice %lld", (long long)p->nice);
	if (p->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		child_fail(area, errno, "cannot set no_new_privs");
}

static __attribute__((noreturn)) void jump_to_restorer(struct restore_area *area)
{
	struct rst_thread *leader = (struct rst_thread *)((char *)area->base +
							   area->args->threads_off);
	void *entry = (char *)area->base + RST_ENTRY_OFFSET;

	/* As after a call: the restorer's entry sees rsp + 8 aligned to 16. */
	asm volatile("mov %0, %%rsp\n\t"
		     "jmp *%1"
		     :
		     : "r"(leader->stack_top - 8), "r"(entry), "D"(area->args)
		     : "memory");
	__builtin_unreachable();
}

void child_restore(const struct restore_plan *plan, struct restore_area *area,
		   struct udp_refill *refill, int sync_fd, const struct restore_fault *fault)
{
	struct restore_fds fds = { .pages = plan->page_store, .exe = -1 };
	int base = highest_fd(plan) + 1;
	struct tool_error err = { 0 };
	char go;

	/* Traced from here on, or never started. */
	if (read(sync_fd, &go, 1) != 1)
		_exit(1);
	close(sync_fd);
	fds.exe = open(plan->mm.exe, O_RDONLY);
	if (fds.exe < 0)
		child_fail(area, errno, "cannot open the executable %s", plan->mm.exe);
	open_mapped_files(plan, &fds, area);
	settle_helpers(plan, &fds, refill, area, base);
	if (files_restore(plan, refill, base + (int)fds.n_opened + 2, &err))
		child_exit(area, &err);
	if (fault->site == FAULT_FILES)
		child_fail(area, 0, "injected fault (CRIB_RESTORE_FAULT=files) once the "
			   "descriptors were open");
	set_attributes(plan, area);
	if (fault->site == FAULT_ATTRIBUTES)
		child_fail(area, 0, "injected fault (CRIB_RESTORE_FAULT=attributes) once the "
			   "process attributes were set");
	area_fill(area, plan, &fds);
	/* last: until here a failure closes the TCP connections silently, still locked */
	if (sockets_resume(plan, &err))
		child_exit(area, &err);
	jump_to_restorer(area);
}
