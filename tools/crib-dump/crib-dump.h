/* SPDX-License-Identifier: GPL-2.0 */
/*
 * crib-dump: checkpoint a live process and its descendants into a CRIB
 * snapshot.
 *
 * The processes are frozen with ptrace for the whole dump, top down
 * (tree.c).  Their kernel state is read by the dump_* CRIB programs
 * (bpf/dump_*.bpf.c), their registers by ptrace, their memory through
 * /proc/PID/mem guided by /proc/PID/pagemap, and everything is streamed
 * through the format library's writer.  A struct dump_job is the dump of
 * one process; the struct dump_tree holds them, and what they share.
 */
#ifndef CRIB_DUMP_TOOL_H
#define CRIB_DUMP_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <crib/format.h>

#include "array.h"
#include "collect.h"
#include "dump.h"
#include "boot.h"
#include "error.h"
#include "progress.h"

struct bpf_object;
struct dump_job;
struct dump_task;
struct dump_mm;
struct dump_files;
struct dump_signals;
struct dump_sockets;
struct vma_list;
struct file_list;
struct epoll_items;
struct signal_state;
struct timer_state;
struct seccomp_state;
struct socket_list;
struct network_lock;
struct dump_tree;
struct shared_files;
struct shared_memory;
struct shared_sockets;
struct ghost_table;

/* One stopped thread of the frozen process. */
struct frozen_thread {
	pid_t tid;
	int pending_signal;	/* a signal-delivery-stop to give back on release */
};

/* The threads held in a ptrace stop, the leader first. */
struct freezer {
	pid_t pid;
	ARRAY(struct frozen_thread) threads;
};

int freeze_process(struct freezer *fz, pid_t pid, struct tool_error *err);
/*
 * The process is gone or on its way out (killed during the dump), which
 * explains any failure.
 */
bool freeze_process_gone(const struct freezer *fz);
/* Let the process run on, as it was. */
void freeze_release(struct freezer *fz);
/* Kill the process while it is still stopped, so it never runs again. */
void freeze_kill(struct freezer *fz);

/* The program objects crib-dump loads (bpf/dump_*.bpf.c). */
#define DUMP_OBJECTS	5

/*
 * The CRIB programs a dump runs and the ring buffers they send through,
 * by descriptor.  They come from pins (pins.c) that an earlier dump left
 * in bpffs, or are loaded by this process, which then leaves pins for
 * the next.
 */
struct dump_programs {
	struct crib_prog task, thread, children, vmas, files, epoll, inotify, sockets,
			 socket_queue, sighand, sigqueue, timers;
	int task_records, vma_records, file_records, epoll_records, inotify_records,
	    socket_records, queue_records, signal_records;
	struct bpf_object *objects[DUMP_OBJECTS];	/* loaded here, or NULL */
	void *skeletons[DUMP_OBJECTS];
	int pins_fd;		/* the directory of pins in use, locked, or -1 */
	int target;		/* pidfd of the dump's root: every run is scoped to it */
	const char *source;	/* where they came from, for -v ... */
	char why[160];		/* ... and, loaded, why not from pins */
};

/* The head of every program's context: the run reaches @job's tree only. */
static inline struct crib_target dump_target(const struct dump_job *job);

/* Where the programs came from, and why not from pins, for -v: in @buf. */
const char *programs_origin(const struct dump_programs *progs, char *buf, size_t size);
/* The key of this build's programs among the pins: a hash of the objects. */
void programs_key(char *key, size_t size);
/*
 * Take the programs from the pins, or load them (and leave pins for the
 * next dump).  Returns 0, or -1 with @err set.
 */
int programs_load(struct dump_programs *progs, struct tool_error *err);
/*
 * Scope every run of the programs to the tree of @root, which crib-dump
 * must be allowed to ptrace (the kernel checks it at each run).
 */
int programs_scope(struct dump_programs *progs, pid_t root, struct tool_error *err);
/*
 * The slots (slots.c): every program and ring buffer of struct
 * dump_programs by name, filled by programs.c or pins.c.  slots_init()
 * names them all, empty.
 */
void slots_init(struct dump_programs *progs);
/* The program slot named @name, or NULL. */
struct crib_prog *slots_prog(struct dump_programs *progs, const char *name);
/* The ring buffer slot named @name, or NULL. */
int *slots_map(struct dump_programs *progs, const char *name);
/* Every program and ring buffer has its descriptor. */
bool slots_complete(const struct dump_programs *progs);
/* Close the descriptors of every slot (not the objects). */
void slots_close(struct dump_programs *progs);
/*
 * Run @prog over the objects of the process (VMAs, descriptors) to the
 * end, into @out: program_collect_all() with a struct dump_ctx, the walk
 * resuming after the last record that arrived, as @resume_after says.
 */
int programs_walk(struct dump_job *job, const struct crib_prog *prog, int map_fd,
		  uint64_t (*resume_after)(const void *last), struct record_list *out);
void programs_unload(struct dump_programs *progs);

/*
 * Pins (pins.c): the programs of one build, pinned under
 * /sys/fs/bpf/crib/KEY/ by root only.  A dump that uses them holds the
 * directory's lock, since they share their maps; a second dump at the
 * same time loads its own.
 */
#define PINS_ROOT	"/sys/fs/bpf/crib"

/*
 * Bind @progs to the pins of @key, locked and their maps emptied of what
 * an earlier dump left.  Returns 0, or -1: no usable pins (progs->why says).
 */
int pins_take(struct dump_programs *progs, const char *key);
/*
 * Pin the programs and maps @progs loaded, under @key, and keep them
 * locked for this dump; pins of other builds are removed.  Failing to pin
 * is no error (the next dump loads again): returns 0 pinned, -1 not
 * (progs->why says why).
 */
int pins_publish(struct dump_programs *progs, const char *key);
void pins_release(struct dump_programs *progs);

/* "/proc/PID/WHAT" resolved; returns 0 or -errno. */
int proc_readlink(pid_t pid, const char *what, char *buf, size_t size);
/* What crib-dump reads of /proc/PID/stat. */
struct proc_stat {
	char state;			/* field 3: R, S, D, T, t, Z, X... */
	unsigned long tty_nr;		/* field 7: the controlling terminal, st_rdev encoding; 0 none */
	unsigned long flags;		/* field 9: PF_* */
	unsigned long long start_time;	/* field 22: clock ticks after boot */
};
/* Fill @st; -1 when the process is gone (or its stat cannot be parsed). */
int proc_stat_read(pid_t pid, struct proc_stat *st);
/* Kernel dev_t (major << 20 | minor) to the st_dev encoding. */
uint64_t kernel_dev_to_st_dev(uint32_t kdev);

/* Everything the dump of one process needs, handed from step to step. */
struct dump_job {
	pid_t pid;
	unsigned int index;		/* its place in the tree's pre-order, from 1 */
	bool zombie;			/* exited, not waited for: the process record only */
	bool verbose;
	bool lock_network;		/* the process will be killed: lock its connections */
	struct dump_tree *tree;		/* the dump this process is part of */
	struct crib_writer *writer;	/* the tree's */
	struct dump_programs progs;	/* the tree's */
	struct freezer freezer;
	struct dump_task_rec task;		/* from dump_task */
	struct vma_list *vmas;		/* mm.c */
	struct file_list *files;	/* files.c */
	struct epoll_items *epolls;	/* events.c: what its epolls watch */
	struct inotify_watches *inotify;	/* inotify.c: its inotify watches */
	struct file_locks *locks;	/* locks.c: the locks and leases its descriptors show */
	struct pidfd_list *pidfds;	/* pidfd.c: what its pidfds refer to */
	struct tty_ends *ttys;		/* tty.c: the pseudo-terminal ends it holds */
	struct socket_list *sockets;	/* sockets.c */
	struct network_lock *network;	/* network.c */
	struct signal_state *signals;	/* signals.c */
	struct timer_state *timers;	/* timers.c */
	ARRAY(uint64_t) rseq_areas;	/* threads.c: each thread's struct rseq */
	ARRAY(struct dump_thread_rec) threads;	/* threads.c: from dump_thread */
	struct seccomp_state *seccomp;	/* seccomp.c: its threads' filters */
	struct page_store *kept;	/* --pre-copy: its pages, kept to write last */
	struct progress *progress;	/* the tree's, on a terminal */
	struct tool_error err;		/* this process's first failure */
};

static inline struct crib_target dump_target(const struct dump_job *job)
{
	return (struct crib_target){ .pidfd = job->progs.target };
}

/*
 * The processes of one dump (tree.c), in pre-order: the root first, each
 * process followed by its children's subtrees, children by ascending pid.
 * Each is frozen, or a zombie.  What several of them share is numbered
 * once for the snapshot by the file of its kind: open file descriptions
 * and pipes (files.c), shared memory objects (mm.c), socket queues
 * (sockets.c), memfds and unlinked files (ghost.c).
 */
struct dump_tree {
	ARRAY(struct dump_job *) procs;
	struct shared_files *files;
	struct shared_memory *memory;
	struct shared_sockets *sockets;
	struct ghost_table *ghosts;
	uint64_t ghost_limit;		/* the largest unlinked file carried, bytes */
	uint64_t seccomp_filters;	/* seccomp.c: filters numbered so far */
	struct tool_error err;		/* the dump's first failure */
};

/*
 * Freeze the process @root and every descendant, top down: a process is
 * stopped before its children are listed, so none can fork past the
 * freeze.  Each job is a copy of @model with its own pid.
 */
int tree_freeze(struct dump_tree *tree, const struct dump_job *model, pid_t root);
/* The root's job. */
struct dump_job *tree_root(const struct dump_tree *tree);
/*
 * @job's failure becomes the dump's (unless it has one): in a tree of
 * several processes, as "process PID: ...".  Returns -1.
 */
int tree_fail_in(struct dump_tree *tree, const struct dump_job *job);
/*
 * Whether @id names a thread (@type PIDTYPE_PID), a process (PIDTYPE_TGID)
 * or a process group (PIDTYPE_PGID) of the tree (tree_ids.c).
 */
bool tree_holds(const struct dump_tree *tree, uint32_t type, pid_t id);
/* Run @step on every process of the tree, zombies skipped; 0 or -1 with tree->err set. */
int tree_each(struct dump_tree *tree, int (*step)(struct dump_job *job));
/* Some process of the tree is gone or on its way out: the dump's failure is its. */
bool tree_gone(const struct dump_tree *tree);
/* Let every process run on as it was, or kill them all, still stopped. */
void tree_release(struct dump_tree *tree);
void tree_kill(struct dump_tree *tree);
/* Free every job with what it read (and the shared tables). */
void tree_free(struct dump_tree *tree);

/* The tree's clocks once it is stopped, and its boot (clocks.c; spec §5.6). */
struct dump_clocks {
	uint64_t monotonic_ns;		/* as the tree's time namespace shows them */
	uint64_t boottime_ns;
	char boot_id[BOOT_ID_SIZE];
	int64_t timens_monotonic_ns;	/* the offsets of that namespace */
	int64_t timens_boottime_ns;
};

/* Read them; refuses a tree whose processes are in two time namespaces. */
int clocks_read(struct dump_tree *tree, struct dump_clocks *clocks);

/*
 * Refuse a tree with a process or thread in another namespace than
 * crib-dump's (namespaces.c): none is carried yet, but time's clocks.
 */
int namespaces_check(struct dump_tree *tree);

/* The snapshot stream (snapshot.c): the header and notes, the end. */
/* Where and how the snapshot is written. */
/* How long each phase of the dump took, for the dump_stats record (stats.c). */
struct dump_stats {
	uint64_t start_ns;		/* CLOCK_MONOTONIC, the tool's start */
	uint64_t mark_ns;		/* the end of the last phase */
	uint64_t frozen_ns;		/* the freeze began; 0 before */
	uint64_t released_ns;		/* the tree was let go before the end; 0 if not */
	struct crib_dump_phase phases[8];
	size_t n_phases;
	uint64_t processes, threads;	/* counted while the tree is stopped */
};

void stats_start(struct dump_stats *s);
/* The phase that began with the last one's end is over: it was @name. */
void stats_phase_done(struct dump_stats *s, const char *name);
void stats_frozen(struct dump_stats *s);
void stats_let_go(struct dump_stats *s);
/* The tree's processes and threads, counted before it may be let go. */
void stats_count(struct dump_stats *s, const struct dump_tree *tree);
/* The record, "write" timed up to it; the failure in @tree's error. */
int stats_write(struct dump_stats *s, struct dump_tree *tree, struct crib_writer *w);

struct dump_output {
	int fd;
	int level;		/* zstd level */
	bool fast;		/* memory pages stored, not compressed */
	bool pre_copy;		/* pages kept (pages_keep()), written last */
	bool let_go_early;	/* ... once the processes were let go */
	struct dump_stats *stats;
};

int snapshot_open(struct dump_job *job, const struct dump_output *out,
		  const struct dump_clocks *clocks);
int snapshot_close(struct dump_job *job);
/* A dump that failed: the stream is left unfinished, so no reader takes it. */
void snapshot_abort(struct dump_job *job);

/*
 * The process record's facts (dump_task); a zombie's are all there is of
 * it.  task_check() refuses what a tree cannot carry, once all are read.
 */
int task_read(struct dump_job *job);
int task_check(struct dump_tree *tree);
/* /proc/PID/WHAT resolved and checked to be the object @id names. */
int resolve_checked_path(struct dump_job *job, const char *what, const struct dump_inode_id *id,
			 char *buf, size_t size);
int task_write(struct dump_job *job);
long membarrier_commands(unsigned int state);

/* Each thread's kernel side, read and checked (threads_read) before it is written. */
int threads_read(struct dump_job *job);
int threads_write(struct dump_job *job);

/*
 * Refuse, naming the process and thread, a thread's scheduling (sched.c)
 * or its sandboxes and speculation controls (security.c) that no record
 * carries; the process record carries the leader's scheduling.  The fill
 * functions put what the thread record carries of them in @t.
 */
int sched_check_thread(struct dump_job *job, const struct dump_thread_rec *t);
int security_check_thread(struct dump_job *job, const struct dump_thread_rec *t);
void sched_fill_thread(const struct dump_thread_rec *kt, struct crib_thread *t);
void security_fill_thread(const struct dump_thread_rec *kt, struct crib_thread *t);

/*
 * Seccomp (seccomp.c): once the threads are read, each one's mode and
 * filters, checked and read; written after the threads.
 */
int seccomp_read(struct dump_job *job);
int seccomp_write(struct dump_job *job);
void seccomp_free(struct dump_job *job);

/* Every VMA as dump_vmas sends it, resuming the walk when the ring buffer filled up. */
int mm_collect_vmas(struct dump_job *job, struct record_list *recs);
int mm_read(struct dump_job *job);
/*
 * Once every process's VMAs are read: the shared memory objects mapped
 * more than once in the tree, numbered; mm_write_shared() writes their
 * shmem records, before the first process.
 */
int mm_share(struct dump_tree *tree);
int mm_write_shared(struct dump_tree *tree, struct crib_writer *w);
int mm_write(struct dump_job *job);
void mm_free(struct dump_job *job);
void mm_free_shared(struct dump_tree *tree);

/* The memory of every VMA that needs it; after mm_write(). */
int pages_write(struct dump_job *job);
/*
 * --pre-copy: the same pages taken into the job's page store instead,
 * while the process is frozen; pages_write_kept() writes them out, once
 * every other record is written and the processes may run again.
 */
int pages_keep(struct dump_job *job);
int pages_write_kept(struct dump_job *job);

/*
 * Page stores (precopy.c): one process's memory contents, copied into the
 * dumper.  @copied are the runs the pre-copy took while the process ran;
 * @plan, the runs the snapshot carries, taken once it is frozen.
 */
#define STORED_ZERO	UINT64_MAX	/* a run of zero pages, not stored */

struct stored_run {
	uint64_t addr, len;
	uint64_t offset;	/* of the contents in the store, or STORED_ZERO */
	uint64_t group;		/* runs that pages_write() would write as one */
};

struct page_store {
	pid_t pid;
	unsigned long long start_time;	/* /proc/PID/stat's, at the pre-copy */
	unsigned char *mem;		/* MAP_FAILED while empty */
	size_t len, cap;
	ARRAY(struct stored_run) copied;	/* ascending */
	ARRAY(struct stored_run) plan;		/* ascending */
};

/* The stores of a pre-copy, one per process of the tree as it was. */
struct precopy {
	ARRAY(struct page_store *) stores;
	uint64_t bytes;			/* copied, in all */
};

/*
 * Clear the soft-dirty bits of @root and its descendants and copy their
 * memory while they run.  Returns 0, or -1 with @err set (out of memory,
 * or more anonymous memory than half of what the system has available);
 * a process that cannot be copied is read in full once frozen.
 */
int precopy_tree(struct precopy *pc, pid_t root, struct tool_error *err);
/* Process @pid's store, handed over (an empty one if it was not copied), or NULL. */
struct page_store *precopy_take(struct precopy *pc, pid_t pid);
void precopy_free(struct precopy *pc);
/*
 * Up to @len bytes at @addr of the process copied to the end of the store,
 * at *@offset, with process_vm_readv() or else @mem_fd (if not -1): how
 * many (fewer where the memory cannot be read), or -1 out of memory.
 */
ssize_t page_store_copy(struct page_store *s, int mem_fd, uint64_t addr, uint64_t len,
			uint64_t *offset);
/* The copied run holding @addr, or NULL and *@next the start of the next one. */
const struct stored_run *page_store_find(const struct page_store *s, uint64_t addr,
					 uint64_t *next);
void page_store_free(struct page_store *s);

/*
 * Ghosts (ghost.c): memfds and files unlinked while open or mapped, whose
 * contents the snapshot carries.  ghost_note() looks at the file that
 * /proc/@pid/@what (fd/N, map_files/A-B) opens, procfs naming it @path:
 * *@id is its ghost's number, made on first sight, or 0 when its path
 * reaches it.  ghosts_write() writes every ghost with its contents,
 * before the first process.
 */
int ghost_note(struct dump_tree *tree, pid_t pid, const char *what, const char *path,
	       uint64_t *id);
int ghosts_write(struct dump_tree *tree, struct crib_writer *w);
void ghosts_free(struct dump_tree *tree);
/* procfs's @path names a file with no link left: "PATH (deleted)". */
struct stat;
bool ghost_path_unlinked(const char *path, const struct stat *st);
/* Drop procfs's " (deleted)" from @path; -1 when it has none. */
int ghost_strip_deleted(char *path);

/* Every descriptor as dump_files sends it, resuming when the ring buffer filled up. */
int files_collect(struct dump_job *job, struct record_list *recs);
/*
 * The sockets of @pid (only the one at @fd unless it is -1) as dump_sockets
 * sends them, resuming when the ring buffer filled up; the runs reach
 * @target's tree only (dump_target(job), or crib-dump itself).
 */
int sockets_collect(struct dump_job *job, struct crib_target target, pid_t pid, int fd,
		    struct record_list *recs);
int files_read(struct dump_job *job);
/*
 * Once every process's descriptors are read: open file descriptions and
 * pipes numbered in the order the snapshot meets them, and how many ends
 * of each pipe are outside the tree.
 */
int files_share(struct dump_tree *tree);
int files_write(struct dump_job *job);
void files_free(struct dump_job *job);
void files_free_shared(struct dump_tree *tree);
/* Descriptors read by files_read(). */
size_t files_count(const struct dump_job *job);
/* How many descriptors are sockets; whether @fd is the socket @ino. */
size_t files_socket_count(const struct dump_job *job);
bool files_is_socket(const struct dump_job *job, int fd, uint64_t ino);

/*
 * The first descriptor of the tree, in snapshot order, holding the file
 * dump_files numbered @desc; false if none does.  After files_share().
 */
bool files_find_desc(const struct dump_tree *tree, uint32_t desc, pid_t *pid, int *fd);
typedef bool (*desc_finder)(const struct dump_tree *tree, uint32_t desc, pid_t *pid, int *fd);

/*
 * Event files (events.c): eventfd, signalfd, timerfd, epoll.  Their kind
 * from what dump_files read (CRIB_FILE_ANON_INODE for any other anonymous
 * file), their keys in the file record, the timerfd record, and the items
 * of each epoll: read with the process's files, tied to the descriptors
 * of the tree that hold their files once all are read, written after the
 * process's pipes.
 */
uint64_t events_file_type(const struct dump_file_rec *k);
void events_fill_file(const struct dump_file_rec *k, struct crib_file *f);
int events_write_timerfd(struct dump_job *job, const struct dump_file_rec *k);
int events_read_epoll(struct dump_job *job, const struct dump_file_rec *k);
/*
 * Every record @prog sends through @map for the event file @k (a
 * dump_epoll_ctx names it), again from resume_after(the last) when the
 * ring buffer filled: as many as dump_files counted (k->count), or the
 * file changed and the dump fails.  @kind names the file in messages.
 */
int events_collect(struct dump_job *job, const struct crib_prog *prog, int map_fd,
		   const struct dump_file_rec *k, const char *kind,
		   uint64_t (*resume_after)(const void *last), struct record_list *recs);
/*
 * Ties each epoll item to the first descriptor of the tree holding its
 * file, through @find (files_find_desc(), handed in: files.c calls this
 * file, not the other way round).
 */
int events_share(struct dump_tree *tree, desc_finder find);
int events_write_epolls(struct dump_job *job);
void events_free(struct dump_job *job);

/*
 * Inotify watches (inotify.c): listed for each inotify instance with the
 * process's files, each with a mounted path that reaches the watched
 * inode; written with the epoll items, with a note for unread events.
 */
int inotify_read(struct dump_job *job, const struct dump_file_rec *k);
int inotify_write(struct dump_job *job);
void inotify_free(struct dump_job *job);

/*
 * File locks and leases (locks.c): read for each descriptor whose file
 * took one (@path names it in messages), refusing what a restore cannot
 * take again; written after the process's other file records, a lock of
 * a description once in the tree.
 */
int locks_read(struct dump_job *job, const struct dump_file_rec *k, const char *path);
int locks_write(struct dump_job *job);
void locks_free(struct dump_job *job);

/*
 * Pidfds (pidfd.c): whether @path names one; what each refers to, read
 * with the process's files; checked once the whole tree is read (a pidfd
 * of a live process outside it is refused); written after the locks.
 */
bool pidfd_is_pidfd(const char *path);
int pidfd_read(struct dump_job *job, const struct dump_file_rec *k);
int pidfd_check(struct dump_tree *tree);
int pidfd_write(struct dump_job *job);
void pidfd_free(struct dump_job *job);

/*
 * Pseudo-terminals (tty.c): whether a descriptor is a terminal end or
 * /dev/tty; each end read as the descriptor is met (tty_read(), which
 * refuses /dev/tty and what is not a /dev/pts pseudo-terminal); the pairs
 * matched across the tree, numbered, and the sessions they control
 * checked (tty_share(), once every process was read); the records.
 */
bool tty_is_terminal(const struct dump_file_rec *k);
int tty_read(struct dump_job *job, const struct dump_file_rec *k, const char *path);
int tty_share(struct dump_tree *tree);
int tty_write(struct dump_job *job);
void tty_free(struct dump_job *job);

/* Every socket, its options and queued data; after files_read(). */
int sockets_read(struct dump_job *job);
/* Socket records; the queues of a socket once in the tree, with its first descriptor. */
int sockets_write(struct dump_job *job);
void sockets_free(struct dump_job *job);
void sockets_free_shared(struct dump_tree *tree);

/*
 * The network lock (network.c).  The process's TCP connections stay
 * locked from sockets_read() on; network_repair() puts its TCP sockets in
 * repair mode once the snapshot is complete, so that the kill closes them
 * silently; network_unlock() is for a dump that failed.
 */
int network_repair(struct dump_job *job);
void network_unlock(struct dump_job *job);
void network_free(struct dump_job *job);

/* Handlers and pending signals: sighand, sigpending, each thread's list. */
int signals_read(struct dump_job *job);
/* The signals pending for thread @tid alone, for its thread record. */
const struct crib_siginfo *signals_thread_pending(const struct dump_job *job, pid_t tid,
						  size_t *n);
int signals_write(struct dump_job *job);
void signals_free(struct dump_job *job);

/* Interval timers and POSIX timers: the timers record. */
int timers_read(struct dump_job *job);
int timers_write(struct dump_job *job);
void timers_free(struct dump_job *job);

/* What pages_write() needs to know about one VMA. */
struct vma_info {
	uint64_t start, end;
	uint64_t kind;		/* enum crib_vma_kind */
	uint64_t vm_flags;
	uint64_t offset;	/* in its file, bytes */
	bool has_file;
};

size_t mm_vma_count(const struct dump_job *job);
const struct vma_info *mm_vma(const struct dump_job *job, size_t i);
/* Whether a mapping of the process maps the file @dev (st_dev encoding), @ino. */
bool mm_maps_file(const struct dump_job *job, uint64_t dev, uint64_t ino);

/* A range of addresses, [start, end). */
struct addr_range {
	uint64_t start, end;
};

/*
 * The parts of VMA @i whose pages this process's records carry: all of it,
 * but for a shared memory object the pages an earlier VMA of the tree
 * (in pre-order) did not already carry.  Up to @max ranges; their count.
 */
size_t mm_vma_own_ranges(const struct dump_job *job, size_t i, struct addr_range *out,
			 size_t max);

/* The step log of -v, on a line of its own even while the progress meter shows. */
#define dump_verbose(job, ...) do {					\
	if ((job)->verbose) {						\
		progress_hide((job)->progress);				\
		fprintf(stderr, "crib-dump: " __VA_ARGS__);		\
	}								\
} while (0)

#endif /* CRIB_DUMP_TOOL_H */
