// SPDX-License-Identifier: GPL-2.0
/*
 * A new process of the tree, while it still runs crib-restore's code: it
 * forks its children, makes its session and group (tree.c), opens the
 * files and shared objects the restorer will map, takes its descriptors
 * from the descriptions it inherited (files.c), takes back the process
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

#include "area.h"
#include "child.h"
#include "fault.h"
#include "files.h"
#include "ghost.h"
#include "kabi.h"
#include "locks.h"
#include "tty.h"
#include "mm.h"
#include "plan.h"
#include "shmem.h"
#include "tree.h"

void child_exit(const struct restore_ctx *ctx, size_t i, const struct tool_error *err)
{
	struct restore_area *area = &ctx->areas[i];
	size_t size, len;
	char *msg;

	if (area->args) {
		msg = area->args->message;
		size = sizeof(area->args->message);
	} else {
		msg = tree_ctl_message_slot(ctx->ctl, i, &size);
	}
	/* as much of it as there is room for */
	if (!msg[0]) {
		len = strnlen(err->msg, size - 1);
		memcpy(msg, err->msg, len);
		msg[len] = '\0';
	}
	_exit(1);
}

/* This process's failure, as words of the process and the error. */
struct child {
	const struct restore_ctx *ctx;
	size_t index;
	const struct restore_plan *plan;
	struct restore_area *area;
};

static __attribute__((noreturn, format(printf, 3, 4)))
void child_fail(const struct child *c, int errnum, const char *fmt, ...)
{
	struct tool_error err = { 0 };
	char prefix[64];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "process %llu: ", (unsigned long long)c->plan->proc.pid);
	va_start(ap, fmt);
	tool_vfail(&err, errnum, fmt, ap);
	va_end(ap);
	if (c->ctx->tree->procs.n > 1 && strlen(err.msg) + strlen(prefix) < sizeof(err.msg)) {
		memmove(err.msg + strlen(prefix), err.msg, strlen(err.msg) + 1);
		memcpy(err.msg, prefix, strlen(prefix));
	}
	child_exit(c->ctx, c->index, &err);
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
static void raise_nofile(const struct child *c, rlim_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		child_fail(c, errno, "getrlimit");
	if (rl.rlim_cur >= need)
		return;
	rl.rlim_cur = need;
	if (rl.rlim_max < need)
		rl.rlim_max = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		child_fail(c, errno, "cannot allow %llu descriptors", (unsigned long long)need);
}

/* The tree's shared memory objects this process maps, each opened once. */
static void open_mapped_objects(const struct child *c, struct restore_fds *fds)
{
	const struct restore_plan *plan = c->plan;
	const struct plan_shmem *sh;
	const struct crib_vma *v;
	size_t i, j;

	for (i = 0; i < plan->vmas.n; i++) {
		v = &plan->vmas.items[i].v;
		if (v->kind != CRIB_VMA_SHARED_ANON || !v->shmem_id)
			continue;
		for (j = 0; j < i; j++)
			if (fds->vma[j] >= 0 && plan->vmas.items[j].v.shmem_id == v->shmem_id)
				fds->vma[i] = fds->vma[j];
		if (fds->vma[i] >= 0)
			continue;
		sh = shmem_find(c->ctx->tree, v->shmem_id);
		fds->opened[fds->n_opened] = sh ? shmem_open(sh) : -1;
		if (fds->opened[fds->n_opened] < 0)
			child_fail(c, errno, "cannot open shared memory object %llu to map it at "
				   "%#llx", (unsigned long long)v->shmem_id,
				   (unsigned long long)v->start);
		fds->vma[i] = (int)fds->n_opened++;
	}
}

/*
 * The files the restorer maps, each opened once.  Until the descriptors
 * settle, fds->vma[i] is an index into fds->opened, not a descriptor.
 */
static void open_mapped_files(const struct child *c, struct restore_fds *fds)
{
	const struct restore_plan *plan = c->plan;
	const struct crib_vma *v;
	size_t i, j;
	int flags;

	fds->vma = calloc(plan->vmas.n + 1, sizeof(int));
	fds->opened = calloc(plan->vmas.n + 1, sizeof(int));
	if (!fds->vma || !fds->opened)
		child_fail(c, 0, "out of memory");
	for (i = 0; i < plan->vmas.n; i++)
		fds->vma[i] = -1;
	for (i = 0; i < plan->vmas.n; i++) {
		v = &plan->vmas.items[i].v;
		if (v->kind != CRIB_VMA_FILE)
			continue;
		/* A shared writable mapping needs the file open for writing. */
		flags = (v->flags & CRIB_MAP_SHARED) && (v->vm_flags & VM_MAYWRITE) ?
			O_RDWR : O_RDONLY;
		for (j = 0; j < i; j++)
			if (fds->vma[j] >= 0 && plan->vmas.items[j].v.ghost_id == v->ghost_id &&
			    !strcmp(plan->vmas.items[j].v.path, v->path) &&
			    (fcntl(fds->opened[fds->vma[j]], F_GETFL) & O_ACCMODE) == flags)
				fds->vma[i] = fds->vma[j];
		if (fds->vma[i] >= 0)
			continue;
		fds->opened[fds->n_opened] = v->ghost_id ?
			ghost_open(c->ctx->tree, v->ghost_id, flags) : open(v->path, flags);
		if (fds->opened[fds->n_opened] < 0)
			child_fail(c, errno, "cannot open %s to map it at %#llx", v->path,
				   (unsigned long long)v->start);
		fds->vma[i] = (int)fds->n_opened++;
	}
	open_mapped_objects(c, fds);
}

/*
 * The descriptors: this process's own from the descriptions it inherited,
 * parked from @park (files_install()), and the restorer's helpers right
 * above its highest own descriptor, where the restorer finds them and
 * closes them.  Everything else crib-restore had open is closed.  The
 * helpers wait above the parked descriptions while the own ones are put
 * in place, so moving one never lands on another.
 */
static void settle_descriptors(const struct child *c, struct restore_fds *fds)
{
	const struct restore_tree *tree = c->ctx->tree;
	int park = c->ctx->park_base, base = highest_fd(c->plan) + 1;
	int high_base = park + (int)tree->descs.n + 64;
	size_t n = fds->n_opened + 2, i;
	int *from = calloc(n, sizeof(int)), *high = calloc(n, sizeof(int));
	struct tool_error err = { 0 };

	if (!from || !high)
		child_fail(c, 0, "out of memory");
	from[0] = fds->pages;
	from[1] = fds->exe;
	memcpy(from + 2, fds->opened, fds->n_opened * sizeof(int));
	raise_nofile(c, (rlim_t)high_base + n + 64);
	for (i = 0; i < n; i++) {
		high[i] = fcntl(from[i], F_DUPFD, high_base);
		if (high[i] < 0)
			child_fail(c, errno, "cannot move a descriptor");
	}
	if (files_open_proc(c->ctx, c->plan, &err) || tty_open_late(c->ctx, c->plan, &err))
		child_exit(c->ctx, c->index, &err);
	close_range(0, (unsigned int)park - 1, 0);
	if (files_install(tree, c->plan, park, &err))
		child_exit(c->ctx, c->index, &err);
	for (i = 0; i < n; i++) {
		if (dup2(high[i], base + (int)i) < 0)
			child_fail(c, errno, "cannot move a descriptor");
	}
	close_range((unsigned int)(base + (int)n), ~0U, 0);
	fds->pages = base;
	fds->exe = base + 1;
	for (i = 0; i < fds->n_opened; i++)
		fds->opened[i] = base + 2 + (int)i;
	for (i = 0; i < c->plan->vmas.n; i++)
		if (fds->vma[i] >= 0)
			fds->vma[i] = base + 2 + fds->vma[i];
	free(from);
	free(high);
}

/*
 * A working directory that was removed while the process was in it: made
 * again (at its path, or a new name beside it when that is taken),
 * entered, and removed.
 */
static void enter_removed_cwd(const struct child *c)
{
	const char *cwd = c->plan->proc.cwd;
	char path[PATH_MAX];
	int i;

	snprintf(path, sizeof(path), "%s", cwd);
	for (i = 1; mkdir(path, 0700); i++) {
		if (errno != EEXIST || i == 1000)
			child_fail(c, errno, "cannot make the removed working directory %s again",
				   cwd);
		snprintf(path, sizeof(path), "%s.crib-ghost-%d", cwd, i);
	}
	if (chdir(path)) {
		rmdir(path);
		child_fail(c, errno, "cannot enter %s", path);
	}
	if (rmdir(path))
		child_fail(c, errno, "cannot remove the working directory %s again", path);
}

/*
 * What the mm flags say that a process sets: the coredump filter and
 * PR_SET_THP_DISABLE.  The restorer keeps this process's mm, so what is
 * set here stays.
 */
static void set_mm_flags(const struct child *c)
{
	uint64_t flags = c->plan->mm.flags;
	char text[32];
	int fd, len;

	if (!c->plan->have_mm)
		return;
	len = snprintf(text, sizeof(text), "%#llx",
		       (unsigned long long)((flags & MMF_DUMP_FILTER_MASK) >> MMF_DUMP_FILTER_SHIFT));
	/* a kernel without core dumps (CONFIG_ELF_CORE) has no filter to set */
	fd = open("/proc/self/coredump_filter", O_WRONLY | O_CLOEXEC);
	if ((fd < 0 && errno != ENOENT) || (fd >= 0 && write(fd, text, (size_t)len) != len))
		child_fail(c, errno, "cannot set the coredump filter %s", text);
	if (fd >= 0)
		close(fd);
	if (prctl(PR_SET_THP_DISABLE, !!(flags & MMF_DISABLE_THP_MASK), 0, 0, 0))
		child_fail(c, errno, "cannot %s transparent huge pages",
			   flags & MMF_DISABLE_THP_MASK ? "disable" : "enable");
}

/* Through procfs, the only way in: before chroot() can hide it. */
static void set_oom_score_adj(const struct child *c, int64_t adj)
{
	char value[24];
	int fd, len;

	if (!adj)
		return;
	len = snprintf(value, sizeof(value), "%lld\n", (long long)adj);
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, value, (size_t)len) != len)
		child_fail(c, errno, "cannot set oom_score_adj %lld", (long long)adj);
	close(fd);
}

/*
 * What the threads the restorer makes inherit from the leader: CPU
 * affinity, timer slack (before the policy: a real-time thread has none),
 * scheduling policy and nice value.
 */
static void set_scheduling(const struct child *c)
{
	const struct crib_process *p = &c->plan->proc;
	struct sched_param sp = { .sched_priority = (int)p->sched_priority };
	cpu_set_t cpus;
	unsigned int cpu;

	if (p->cpus) {
		CPU_ZERO(&cpus);
		for (cpu = 0; cpu < 64; cpu++)
			if (p->cpus & (1ull << cpu))
				CPU_SET(cpu, &cpus);
		if (sched_setaffinity(0, sizeof(cpus), &cpus))
			child_fail(c, errno, "cannot set CPU affinity %#llx",
				   (unsigned long long)p->cpus);
	}
	if (p->timer_slack_ns && prctl(PR_SET_TIMERSLACK, p->timer_slack_ns, 0, 0, 0))
		child_fail(c, errno, "cannot set timer slack %llu ns",
			   (unsigned long long)p->timer_slack_ns);
	if (sched_setscheduler(0, (int)p->sched_policy, &sp))
		child_fail(c, errno, "cannot set scheduling policy %llu",
			   (unsigned long long)p->sched_policy);
	if (setpriority(PRIO_PROCESS, 0, (int)p->nice))
		child_fail(c, errno, "cannot set nice %lld", (long long)p->nice);
}

static void set_attributes(const struct child *c)
{
	const struct crib_process *p = &c->plan->proc;
	struct rst_sigaction dfl = { 0 };	/* the first four words are the kernel's */
	int sig;

	/*
	 * Dispositions not in the snapshot are the kernel's default, all zero:
	 * not libc's SIG_DFL, which comes with its own flags and restorer.
	 */
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof(uint64_t));
	set_oom_score_adj(c, p->oom_score_adj);
	if (p->cwd_unlinked)
		enter_removed_cwd(c);
	else if (chdir(p->cwd))
		child_fail(c, errno, "cannot enter %s", p->cwd);
	if (strcmp(p->root, "/") && chroot(p->root))
		child_fail(c, errno, "cannot change root to %s", p->root);
	umask((mode_t)p->umask);
	if (personality((unsigned long)p->personality) < 0)
		child_fail(c, errno, "cannot set personality %#llx",
			   (unsigned long long)p->personality);
	set_scheduling(c);
	if (p->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		child_fail(c, errno, "cannot set no_new_privs");
	if (p->child_subreaper && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		child_fail(c, errno, "cannot become a child subreaper");
	set_mm_flags(c);
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

static int fork_child(const struct restore_ctx *ctx, const struct restore_plan *child,
		      struct tool_error *err)
{
	pid_t pid = fork_with_pid((pid_t)child->proc.pid);

	if (pid == 0)
		child_restore(ctx, child->index);
	if (pid < 0)
		return tool_fail(err, errno, "cannot fork process %llu",
				 (unsigned long long)child->proc.pid);
	return 0;
}

/* The session a child was born in: its own, unless it made one later. */
static int64_t birth_session(const struct restore_plan *child)
{
	return child->born_sid != -1 ? child->born_sid : (int64_t)child->proc.sid;
}

/*
 * Fork @plan's children, each into child_restore(): those born in the
 * session this process was born in before it makes its own (setsid()),
 * the others after, in the order tree_link() settled.
 */
static int fork_children(const struct restore_ctx *ctx, const struct restore_plan *plan,
			 struct tool_error *err)
{
	const struct restore_plan *c;
	size_t i;

	/* Those born in the session this process was born in, while it is still there. */
	for (i = 0; i < plan->children.n; i++) {
		c = plan->children.items[i];
		if (plan->born_sid != -1 && birth_session(c) == plan->born_sid &&
		    fork_child(ctx, c, err))
			return -1;
	}
	if (plan->proc.sid == plan->proc.pid && getsid(0) != (pid_t)plan->proc.pid &&
	    setsid() < 0)
		return tool_fail(err, errno, "cannot make session %llu",
				 (unsigned long long)plan->proc.sid);
	/* what it forks into its session from here on inherits its terminal */
	if (tty_take_ctty(ctx, plan, err))
		return -1;
	for (i = 0; i < plan->children.n; i++) {
		c = plan->children.items[i];
		if (!(plan->born_sid != -1 && birth_session(c) == plan->born_sid) &&
		    fork_child(ctx, c, err))
			return -1;
	}
	return 0;
}

/* An injected fault (CRIB_RESTORE_FAULT, a testing aid) at @site, in the process it names. */
static void fault_at(const struct child *c, enum fault_site site, const char *once)
{
	const struct restore_fault *f = c->ctx->fault;

	if (f->site == site && (pid_t)c->plan->proc.pid == c->ctx->fault_pid)
		child_fail(c, 0, "injected fault (CRIB_RESTORE_FAULT=%s) once %s", f->name, once);
}

void child_restore(const struct restore_ctx *ctx, size_t i)
{
	const struct restore_plan *plan = ctx->tree->procs.items[i];
	struct child c = { .ctx = ctx, .index = i, .plan = plan, .area = &ctx->areas[i] };
	struct restore_fds fds = { .pages = plan->page_store, .exe = -1 };
	struct tool_error err = { 0 };
	char go;

	/* The root: traced from here on, or never started; the others are traced from birth. */
	if (i == 0) {
		if (read(ctx->go_fd, &go, 1) != 1)
			_exit(1);
		close(ctx->go_fd);
	}
	if (!plan->proc.zombie && (files_open_own_proc(ctx, plan, &err) ||
				   tty_open_born(ctx, plan, &err)))
		child_exit(ctx, i, &err);
	tree_mark_born(ctx, plan);
	if (plan->proc.zombie)
		tree_end_zombie(ctx, plan);
	if (fork_children(ctx, plan, &err))
		child_exit(ctx, i, &err);
	fault_at(&c, FAULT_FORK, "its children were forked");
	if (tree_join_group(ctx, plan, &err))
		child_exit(ctx, i, &err);
	fault_at(&c, FAULT_SESSION, "its session and group were made");
	if (tty_set_foreground(ctx, plan, &err))
		child_exit(ctx, i, &err);
	fault_at(&c, FAULT_TERMINAL, "its controlling terminal was taken");
	fds.exe = open(plan->mm.exe, O_RDONLY);
	if (fds.exe < 0)
		child_fail(&c, errno, "cannot open the executable %s", plan->mm.exe);
	open_mapped_files(&c, &fds);
	settle_descriptors(&c, &fds);
	fault_at(&c, FAULT_FILES, "the descriptors were open");
	if (locks_take(ctx->tree, plan, &err))
		child_exit(ctx, i, &err);
	fault_at(&c, FAULT_LOCKS, "its file locks were taken");
	set_attributes(&c);
	fault_at(&c, FAULT_ATTRIBUTES, "the process attributes were set");
	area_fill(c.area, plan, &fds);
	jump_to_restorer(c.area);
}
