/* SPDX-License-Identifier: GPL-2.0 */
/*
 * crib-restore: bring a process tree back from a CRIB snapshot.
 *
 * The whole snapshot is read and checked first (snapshot.c, check.c,
 * tree.c), its memory left in the mapped snapshot (direct.c) or going to
 * shadows of the VMAs (shadow.c), shared memory objects (shmem.c) or a
 * page store (a memfd), so nothing is created from a stream that turns
 * out corrupt.  crib-restore then makes
 * every open file description of the tree, sockets included (files.c,
 * sockets.c), and creates the root with its original PID (tracer.c).
 * Each process, while it still runs crib-restore's code (child.c), forks
 * its children with their PIDs, makes its session and group (tree.c),
 * takes its descriptors from the descriptions it inherited, sets the
 * attributes libc can set and jumps into the restorer (restorer.c) in a
 * restore area of its own (area.c).  The restorer rebuilds the address
 * space and the threads, crib-restore copying pages in while it waits
 * (direct.c); crib-restore, tracing every thread of every process, sets
 * the registers, unmaps the areas, lets the TCP connections
 * go and then every process.  Any failure kills what was created.
 *
 * A struct restore_plan is what the snapshot says of one process; the
 * struct restore_tree holds them all and what they share.
 */
#ifndef CRIB_RESTORE_TOOL_H
#define CRIB_RESTORE_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <crib/format.h>

#include "array.h"
#include "error.h"
#include "progress.h"
#include "restorer.h"

struct restore_sockets;
struct user_ring_buffer;
struct udp_refill;
struct shadow_filler;

struct plan_siginfo {
	uint32_t signo;
	uint8_t info[RST_SIGINFO_SIZE];
};

struct plan_thread {
	pid_t tid;
	char comm[RST_COMM_LEN];
	struct crib_regs_x86_64 regs;
	void *xstate;
	size_t xstate_len;
	uint64_t sigmask;
	struct crib_sigaltstack altstack;
	struct plan_siginfo *pending;
	size_t n_pending;
	uint64_t clear_child_tid;
	uint64_t robust_list;
	uint64_t robust_list_len;
	uint64_t rseq;
	uint64_t rseq_len;
	uint64_t rseq_sig;
	uint64_t pdeath_signal;
	bool own_creds;			/* else the process's */
	struct crib_creds creds;	/* groups owned by the plan */
};

struct plan_vma {
	struct crib_vma v;	/* path owned by the plan */
	bool has_data;		/* some page run in the page store falls in it */
	void *shadow;		/* its contents in this process, laid out alike: shadow.c */
	uint64_t shadow_off;	/* where in the reservation the shadow goes */
	bool shadow_room;	/* it has one there (cleared if it cannot be made) */
	bool shadow_filled;	/* registered with the tree's filler: shadow.c */
	bool direct;		/* pages copied straight into the new process: direct.c */
};

/* Pages for direct.c to copy in: @data in the mapped snapshot, NULL: zeros. */
struct plan_direct {
	uint64_t addr;
	uint64_t len;
	const void *data;
};

/* A run of pages with contents, kept in the page store at @offset. */
struct plan_pages {
	uint64_t addr;
	uint64_t len;
	uint64_t offset;
};

/* A pipe or FIFO of the tree, with its bytes. */
struct plan_pipe {
	uint64_t pipe_id;
	uint64_t pipe_size;
	unsigned char *data;
	size_t len;
	bool has_read_end, has_write_end;	/* some descriptor of the tree has one */
	uint64_t ends_outside;		/* descriptions outside the snapshot */
};

/* A socket address as the plan keeps it; family 0: none. */
struct plan_addr {
	uint64_t family;
	uint8_t addr[128];	/* 4 or 16 bytes, or the sun_path bytes */
	size_t len;
	uint16_t port;
	uint32_t flowinfo;
	uint32_t scope_id;
};

/* One datagram, or a run of stream bytes. */
struct plan_chunk {
	unsigned char *data;
	size_t len;
	struct plan_addr src;
};

/* A queue's chunks, in order. */
struct plan_queue {
	ARRAY(struct plan_chunk);
	uint64_t next_seq;	/* of the next socket_queue record */
	uint64_t bytes;
};

struct restore_plan;

struct plan_socket {
	struct crib_socket s;		/* options point into @opt_values */
	struct plan_addr local, peer;
	struct crib_sockopt *options;
	unsigned char *opt_values;
	struct plan_queue recv, send;
	struct restore_plan *owner;	/* the process whose descriptor this is */
};

/* One descriptor of a process: its number, and the description it refers to. */
struct plan_fd {
	uint64_t fd;
	bool cloexec;
	size_t desc;		/* index into tree->descs */
};

/* A shared memory object mapped by several VMAs (shmem.c). */
struct plan_shmem {
	uint64_t id;		/* shmem_id */
	uint64_t size;
	void *map;		/* the object, in crib-restore: filled as the pages come */
};

/* A memfd or unlinked file, carried whole (ghost.c). */
struct plan_ghost {
	struct crib_ghost g;	/* path owned by the tree */
	int fd;			/* crib-restore's: its contents, then the file itself */
};

/* What the snapshot says of one process, as the restore needs it. */
struct restore_plan {
	struct crib_header header;	/* the tree's: strings owned by the tree */
	struct crib_process proc;	/* strings and arrays owned by the plan */
	struct crib_mm mm;		/* auxv and exe owned by the plan */
	bool have_mm;
	ARRAY(struct plan_thread) threads;	/* the leader first */
	ARRAY(struct plan_vma) vmas;
	ARRAY(struct plan_pages) pages;
	int page_store;			/* the tree's memfd with the page contents */
	void *shadows;			/* the reservation holding the VMAs' shadows */
	uint64_t shadows_len;
	uint64_t shadow_bytes;		/* contents taken into shadows */
	bool no_shadows;		/* no room for them: everything in the page store */
	ARRAY(struct plan_direct) direct;	/* direct.c */
	uint64_t direct_bytes;
	ARRAY(struct crib_file) files;	/* paths owned by the plan */
	ARRAY(struct plan_fd) fds;	/* files.c: each file's description */
	struct crib_sigaction *actions;
	size_t n_actions;
	struct plan_siginfo *shared_pending;
	size_t n_shared_pending;
	struct crib_timers timers;	/* timers.posix owned by the plan */
	bool have_timers;
	/* its place in the tree (tree.c) */
	size_t index;			/* in tree->procs */
	struct restore_plan *parent;	/* NULL for the root */
	ARRAY(struct restore_plan *) children;	/* by pid */
	int64_t born_sid;		/* the session it forks some children in, before setsid(); -1 */
	size_t group_helper;		/* the helper of its group that it forks, + 1; 0 none */
};

/* A process that makes a process group whose leader is gone, then ends (tree.c). */
struct plan_helper {
	pid_t pid;			/* the group's id */
	pid_t sid;
	struct restore_plan *maker;	/* the member that forks it */
	unsigned int members;		/* that join the group */
};

/* An open file description, made once for the tree by crib-restore (files.c). */
struct plan_desc {
	const struct crib_file *file;	/* its first descriptor's record */
	const struct restore_plan *owner;	/* and that descriptor's process */
	struct plan_pipe *pipe;		/* pipes and FIFOs */
	uint64_t end;			/* enum crib_pipe_end */
	size_t socket;			/* sockets: index into tree->sockets */
	/* a path under /proc/PID/ of a process of the tree: opened once it exists */
	const struct restore_plan *proc_owner;
};

/* Everything a snapshot says, as the restore needs it. */
struct restore_tree {
	struct crib_header header;	/* strings owned by the tree */
	ARRAY(struct restore_plan *) procs;	/* in pre-order, the root first */
	int page_store;			/* memfd with the page contents */
	uint64_t page_store_len;
	struct shadow_filler *filler;	/* fills shadows while the snapshot is read */
	void *input_map;		/* the snapshot, kept mapped for direct.c */
	size_t input_map_len;
	ARRAY(struct crib_pipe) pipe_fds;	/* the pipe ends, one per fd of any process */
	ARRAY(struct plan_pipe) pipes;	/* one per pipe */
	ARRAY(struct plan_socket) sockets;	/* one per descriptor of any process */
	ARRAY(struct plan_shmem) shmems;
	ARRAY(struct plan_ghost) ghosts;
	ARRAY(struct plan_desc) descs;	/* files.c */
	ARRAY(struct plan_helper) helpers;	/* tree.c */
	ARRAY(struct crib_timerfd) timerfds;	/* events.c */
	ARRAY(struct crib_epoll_item) epoll_items;	/* events.c: as listed, every descriptor's */
	ARRAY(struct crib_inotify_watch) inotify_watches;	/* inotify.c: paths owned */
	uint64_t ext_sid;		/* the root's session when it leads none, as recorded */
	uint64_t ext_pgid;		/* the root's group when it leads none, as recorded */
};

/* Lookups in the tree that every kind makes (plan.c). */
struct restore_plan *plan_root(const struct restore_tree *tree);
/* The process with pid @pid, or NULL. */
struct restore_plan *plan_find(const struct restore_tree *tree, uint64_t pid);
struct plan_pipe *plan_find_pipe(struct restore_tree *tree, uint64_t pipe_id);
/* The socket of @owner's descriptor @fd, or NULL. */
struct plan_socket *plan_find_socket_fd(const struct restore_tree *tree,
					const struct restore_plan *owner, uint64_t fd);
/* The first socket of the tree with @sock_id (several fds may share one). */
struct plan_socket *plan_find_socket_id(const struct restore_tree *tree, uint64_t sock_id);
/* Descriptor @fd of process @pid, once files_link() ran, or NULL. */
const struct plan_fd *plan_find_fd(const struct restore_tree *tree, uint64_t pid, uint64_t fd);

/* Read the snapshot at @fd into @tree, counting what is read in @progress. */
int plan_read(struct restore_tree *tree, int fd, struct progress *progress,
	      struct tool_error *err);

/* A string of a record, copied for the plan; NULL stays NULL (plan.c). */
char *plan_dup_str(const char *s);

/*
 * The records of each kind, taken into the tree as the snapshot is read
 * (snapshot.c dispatches them), and freed with it.
 */
int task_take(struct restore_tree *tree, const struct crib_process *p, struct tool_error *err);
void task_free(struct restore_plan *plan);
int threads_take(struct restore_plan *plan, const struct crib_thread *t, struct tool_error *err);
void threads_free(struct restore_plan *plan);
int mm_take(struct restore_plan *plan, const struct crib_mm *mm, struct tool_error *err);
int mm_take_vma(struct restore_plan *plan, const struct crib_vma *v, struct tool_error *err);
void mm_free(struct restore_plan *plan);
/* @stored: the data lies in the snapshot itself (a stored_pages record). */
int pages_take(struct restore_tree *tree, struct restore_plan *plan, const struct crib_pages *p,
	       bool stored, struct tool_error *err);
/*
 * Once every VMA is known: the runs left in the snapshot for a VMA that
 * must keep a shadow (direct_keeps()) go to its shadow after all.
 */
int pages_settle_direct(struct restore_tree *tree, struct restore_plan *plan,
			struct tool_error *err);
/* Once the stream is read: mark the VMAs that get contents; every run lies inside VMAs. */
int pages_index(struct restore_plan *plan, struct tool_error *err);
void pages_free(struct restore_plan *plan);
int files_take(struct restore_plan *plan, const struct crib_file *f, struct tool_error *err);
int files_take_pipe(struct restore_tree *tree, const struct crib_pipe *p, struct tool_error *err);
int files_take_pipe_data(struct restore_tree *tree, const struct crib_pipe_data *d,
			 struct tool_error *err);
void files_free(struct restore_plan *plan);
/* The pipes and the descriptions. */
void files_free_tree(struct restore_tree *tree);
/* @n siginfos into a new array at *@out; -1 when out of memory. */
int signals_copy_siginfos(const struct crib_siginfo *in, size_t n, struct plan_siginfo **out);
int signals_take_sighand(struct restore_plan *plan, const struct crib_sighand *s,
			 struct tool_error *err);
int signals_take_sigpending(struct restore_plan *plan, const struct crib_sigpending *s,
			    struct tool_error *err);
void signals_free(struct restore_plan *plan);
int timers_take(struct restore_plan *plan, const struct crib_timers *t, struct tool_error *err);
void timers_free(struct restore_plan *plan);

/*
 * Private anonymous memory waits for the restorer in a shadow of its VMA
 * (shadow.c), which the new process inherits and the restorer moves into
 * place.  True when the run at @addr (@data NULL: zeros) was taken into a
 * shadow, false when it belongs in the page store.  @data_in_input: the
 * data lies in the snapshot itself (a stored_pages record), not in the
 * reader's buffers.
 */
bool shadow_take(struct restore_plan *plan, struct shadow_filler *filler, uint64_t addr,
		 const void *data, uint64_t len, bool data_in_input);

/* A run of pages for a shadow (shadow_fill.c). */
struct fill_run {
	char *to;		/* where in the shadow */
	const void *data;	/* NULL: zero pages */
	uint64_t len;
	void *shadow;		/* the whole shadow, to unregister */
	uint64_t shadow_len;
	uint64_t page;
	bool registered;	/* the shadow is registered with the filler */
};

/*
 * What fills shadows while the snapshot is read (shadow_fill.c): a
 * userfaultfd, and with @threaded (the snapshot is mapped, so the data of
 * stored records stays where it is until it is read to the end) a thread
 * that fills those runs while the reader goes on.  Never NULL but when
 * out of memory; without a userfaultfd every run is written in place.
 * Closing it waits for the queued runs and leaves the shadows as filled.
 */
struct shadow_filler *shadow_filler_open(bool threaded);
void shadow_filler_close(struct shadow_filler *f);
/*
 * Fill [@to, +@len) of memory registered with @uffd with @data, or (@data
 * NULL) with the zero page.  -1 when the kernel would not: a page there
 * already (runs that overlap), no memory, the memory no longer registered.
 */
int uffd_fill(int uffd, uint64_t to, const void *data, uint64_t len);
/* Register a new shadow, so that runs fill it: false when they cannot. */
bool shadow_fill_register(struct shadow_filler *f, void *shadow, uint64_t len);
/*
 * Fill @run, now or (its data in the input, or none) by the thread.
 * Returns whether the shadow is still registered.
 */
bool shadow_fill(struct shadow_filler *f, const struct fill_run *run, bool data_in_input);
/*
 * Once the tree's root is forked, which inherits every shadow: drop this
 * process's references to their pages, so that the restored processes
 * own them alone and their first writes copy nothing.  The reservation
 * stays, for shadow_free().
 */
void shadow_let_go(const struct restore_plan *plan);
void shadow_free(struct restore_plan *plan);

/*
 * Pages straight into the new process (direct.c).  While the snapshot is
 * read: 1 when the run at @addr of @pv (@data in the mapped snapshot;
 * NULL: zeros) is left there, to be copied in by direct_fill(); 0 when it
 * goes elsewhere; -1 on failure.
 */
int direct_take(struct restore_plan *plan, struct plan_vma *pv, uint64_t addr,
		 const void *data, uint64_t len, struct tool_error *err);
/*
 * Once every VMA of @plan is known: whether @pv's runs may stay direct.
 * Not when a neighbour would merge with it if both were mapped afresh
 * (the kernel keeps them apart only by where their pages came from): then
 * each keeps a shadow, moved into place pages and all, and they stay apart.
 */
bool direct_keeps(const struct restore_plan *plan, const struct plan_vma *pv);
/* Some process of @tree has runs left to copy in. */
bool direct_any(const struct restore_tree *tree);
/*
 * Threads that copy with the tracer, made before the tree's first process
 * so that none takes a PID the tree needs; NULL: the tracer copies alone.
 */
struct direct_copiers;
struct direct_copiers *direct_copiers_start(const struct restore_tree *tree);
void direct_copiers_stop(struct direct_copiers *c);
/*
 * Process @pid, restored by @plan, trapped in its restorer with @args:
 * copy its direct runs in through its userfaultfd, or write them through
 * /proc/PID/mem when it has none or the copy fails (@copy_fails: a
 * testing aid, it fails after the first piece).
 */
int direct_fill(struct direct_copiers *c, const struct restore_plan *plan, pid_t pid,
		const struct rst_args *args, bool copy_fails, struct tool_error *err);
void plan_free(struct restore_tree *tree);

/*
 * Shared memory objects (shmem.c): each mapped once in crib-restore, the
 * pages of any of its VMAs written into it as they are read; each process
 * opens the objects it maps (through /proc/self/map_files), and its
 * restorer maps them.
 */
int shmem_take(struct restore_tree *tree, const struct crib_shmem *s, struct tool_error *err);
struct plan_shmem *shmem_find(const struct restore_tree *tree, uint64_t id);
/* True when the pages at @addr of @pv went into its object. */
bool shmem_take_pages(struct restore_tree *tree, const struct plan_vma *pv, uint64_t addr,
		      const void *data, uint64_t len, uint64_t page_size);
/* A descriptor of @sh's object, opened in this process; -1 with errno. */
int shmem_open(const struct plan_shmem *sh);
void shmem_free(struct restore_tree *tree);

/*
 * Ghosts (ghost.c): memfds and unlinked files.  Their records go into
 * memfds as the snapshot is read; ghosts_make() makes the unlinked files
 * again (created, filled, opened, unlinked) before the first process;
 * ghost_open() opens one as a descriptor of its own; ghosts_seal() adds
 * the memfds' seals once every process maps them.
 */
int ghost_take(struct restore_tree *tree, const struct crib_ghost *g, struct tool_error *err);
int ghost_take_data(struct restore_tree *tree, const struct crib_ghost_data *d,
		    struct tool_error *err);
struct plan_ghost *ghost_find(const struct restore_tree *tree, uint64_t id);
/* An unlinked file's directory is there to make it in again. */
int ghost_check_dir(const struct plan_ghost *pg, struct tool_error *err);
int ghosts_make(const struct restore_tree *tree, struct tool_error *err);
/* A descriptor of ghost @id opened with @flags; -1 with errno. */
int ghost_open(const struct restore_tree *tree, uint64_t id, int flags);
int ghosts_seal(const struct restore_tree *tree, struct tool_error *err);
void ghosts_free(struct restore_tree *tree);

/* Socket records into the tree: see socket_plan.c. */
int plan_take_socket(struct restore_tree *tree, struct restore_plan *owner,
		     const struct crib_socket *s, struct tool_error *err);
int plan_take_socket_queue(struct restore_tree *tree, const struct crib_socket_queue *q,
			   struct tool_error *err);
void plan_free_sockets(struct restore_tree *tree);
/* The recorded value of @ps's int option @level/@name; false when not recorded. */
bool plan_sockopt_int(const struct plan_socket *ps, int level, int name, int *val);

/* Everything checked before anything is created: see check.c. */
int plan_check(const struct restore_tree *tree, struct tool_error *err);
/* The sockets' part of it: see sockets.c. */
int sockets_check(const struct restore_tree *tree, struct tool_error *err);

/*
 * The tree (tree.c): each process's parent and children, the order
 * sessions and groups are made in, helpers for groups whose leader is
 * gone; refused when it cannot be made.  After plan_read().
 */
int tree_link(struct restore_tree *tree, struct tool_error *err);
/* Every PID the restore takes (processes, threads, helpers) is free. */
int tree_check_pids(const struct restore_tree *tree, struct tool_error *err);

/*
 * What the processes of a tree being made tell each other: a word per
 * process and per helper, in memory they all inherit from crib-restore.
 */
struct tree_ctl;

struct tree_ctl *tree_ctl_new(const struct restore_tree *tree, struct tool_error *err);
void tree_ctl_free(struct tree_ctl *ctl, const struct restore_tree *tree);
/*
 * Where a process without a restore area (a zombie) or a helper writes
 * its failure; slot: the process's index, or tree->procs.n + the helper's.
 */
const char *tree_ctl_message(const struct tree_ctl *ctl, size_t slot);
char *tree_ctl_message_slot(struct tree_ctl *ctl, size_t slot, size_t *len);

/*
 * The descriptions (files.c): files_link() names each descriptor's, after
 * the tree is read; files_make() makes them all in crib-restore, parked
 * from @base up, sockets too (TCP connections in repair mode);
 * files_install() gives a process its descriptors from them.
 */
int files_link(struct restore_tree *tree, struct tool_error *err);
/* The lowest descriptor number above every one the snapshot and crib-restore use. */
int files_park_base(const struct restore_tree *tree);
int files_make(const struct restore_tree *tree, struct udp_refill *refill, int base,
	       struct tool_error *err);
int files_install(const struct restore_tree *tree, const struct restore_plan *plan, int base,
		  struct tool_error *err);
struct restore_ctx;
/*
 * A description under /proc/PID/, PID a process of the tree, is made by
 * none of these: files_open_own_proc() opens it in process PID as soon
 * as that exists, before it forks, so that what it forks inherits it;
 * files_open_proc() opens it in any other process that holds it, once
 * PID exists (each its own description, then).
 */
int files_open_own_proc(const struct restore_ctx *ctx, const struct restore_plan *plan,
			struct tool_error *err);
int files_open_proc(const struct restore_ctx *ctx, const struct restore_plan *plan,
		    struct tool_error *err);
/* The parked descriptor of @tree->sockets.items[@i]. */
int files_socket_fd(const struct restore_tree *tree, int base, size_t i);

/*
 * Event files (events.c): eventfd, signalfd, timerfd, epoll.  Their
 * records taken as the snapshot is read; each file and every epoll item
 * checked against the rest of the snapshot; each description made by
 * files_make() (events_make()), then every epoll's items added once all
 * descriptions exist (events_fill_epolls()).  Parked descriptions start
 * above every descriptor number an item was added under
 * (events_highest_tfd()).
 */
bool events_is_event_file(uint64_t type);
int events_take_timerfd(struct restore_tree *tree, const struct crib_timerfd *t,
			struct tool_error *err);
int events_take_epoll_item(struct restore_tree *tree, const struct crib_epoll_item *e,
			   struct tool_error *err);
int events_check(const struct restore_tree *tree, const struct restore_plan *plan,
		 const struct crib_file *f, struct tool_error *err);
int events_check_items(const struct restore_tree *tree, struct tool_error *err);
int events_highest_tfd(const struct restore_tree *tree);
int events_make(const struct restore_tree *tree, const struct plan_desc *d, int at,
		struct tool_error *err);
int events_fill_epolls(const struct restore_tree *tree, int base, struct tool_error *err);

/*
 * Inotify watches (inotify.c): taken as the snapshot is read, checked
 * (each of an inotify of the snapshot, its path there), and added when
 * events_make() makes their instance, which inotify_make() returns.
 */
int inotify_take_watch(struct restore_tree *tree, const struct crib_inotify_watch *w,
		       struct tool_error *err);
int inotify_check(const struct restore_tree *tree, struct tool_error *err);
int inotify_make(const struct restore_tree *tree, const struct plan_desc *d,
		 struct tool_error *err);
void inotify_free(struct restore_tree *tree);

/*
 * The CRIB program that refills UDP receive queues, loaded by crib-restore
 * before the child exists and run by the child (udp_queue.c).  Not loaded
 * when no UDP socket has packets queued.
 */
struct udp_refill {
	struct restore_sockets *skel;
	struct user_ring_buffer *ring;
	int prog_fd;		/* -1 when not loaded */
};

int udp_refill_open(struct udp_refill *r, const struct restore_tree *tree,
		    struct tool_error *err);
void udp_refill_close(struct udp_refill *r);

/*
 * The network lock crib-dump left on the TCP connections (network.c).
 * network_release() lets their packets through again (connections that
 * are not locked are skipped); crib-restore calls it last, once every
 * process is in place and the connections have left repair mode.
 * network_hold_again() is for a restore that fails after they left it:
 * the connections are put back in repair mode (@fds: the tree's sockets,
 * -1 for none), and locked again first when @relock, so that closing them
 * sends nothing and the snapshot restores again.  A connection that was
 * released and took in data or a FIN meanwhile has acknowledged what the
 * snapshot does not hold, which a later restore could not give back: it
 * is reset instead, and left out of the lock, and @err says so.
 */
int network_release(const struct restore_tree *tree, struct tool_error *err);
int network_hold_again(const struct restore_tree *tree, const int *fds, bool relock,
		       struct tool_error *err);

/*
 * The restore area: the restorer code, its arguments, and one stack per
 * thread, in a shared mapping at an address the snapshot leaves free.
 */
struct restore_area {
	void *base;
	size_t len;
	struct rst_args *args;
};

/* Helper descriptors the child keeps for the restorer: see child.c. */
struct restore_fds {
	int pages;		/* the page store */
	int exe;
	int *vma;		/* per plan VMA: the file or shared object it maps, or -1 */
	int *opened;		/* distinct files and objects opened for mappings */
	size_t n_opened;
};

/*
 * Map @len bytes where the snapshot has no mapping and this process has
 * none either, clear of the snapshot's mappings by a margin; NULL if no
 * hole has room (mapping.c).
 */
void *map_in_hole(const struct restore_plan *plan, size_t len, int prot, int flags);
/* The MAP_* flags a VMA of the snapshot is mapped with. */
uint32_t vma_map_flags(const struct crib_vma *v);
/*
 * Private anonymous memory, not locked (which would be populated as it is
 * mapped): what may wait in a shadow (shadow.c) or be copied in straight
 * (direct.c).
 */
bool vma_private_anon(const struct crib_vma *v);
/* A VMA the restorer maps: the kernel provides the vDSO pair itself. */
bool vma_is_mapped(const struct crib_vma *v);
/* A VMA that maps a shared memory object of the tree, through a descriptor. */
bool vma_maps_object(const struct crib_vma *v);

int area_create(struct restore_area *area, const struct restore_plan *plan,
		struct tool_error *err);
/* Fill in the arguments, with the descriptor numbers the child settled on. */
void area_fill(struct restore_area *area, const struct restore_plan *plan,
	       const struct restore_fds *fds);
void area_destroy(struct restore_area *area);
/* The restorer's step as words, for an error message. */
const char *area_step_name(uint32_t step);

/*
 * What each kind hands to the restorer, written into @a by area_fill():
 * @off is where its part of the area goes (from a->area_start).
 */
void mm_fill(struct rst_args *a, const struct restore_plan *plan, const struct restore_fds *fds,
	     uint64_t off);
void pages_fill(struct rst_args *a, const struct restore_plan *plan, uint64_t off);
void signals_fill(struct rst_args *a, const struct restore_plan *plan, uint64_t off);
void signals_fill_shared(struct rst_args *a, const struct restore_plan *plan, uint64_t off);
void signals_fill_siginfo(struct rst_siginfo *out, const struct plan_siginfo *in, size_t n);
void timers_fill(struct rst_args *a, const struct restore_plan *plan, uint64_t off);
void task_fill(struct rst_args *a, const struct restore_plan *plan);
uint64_t threads_fill(struct rst_args *a, const struct restore_plan *plan, uint64_t off,
		      uint64_t siginfo_off, uint64_t stacks_off);

/*
 * Fault injection, a testing aid (fault.c): CRIB_RESTORE_FAULT names a
 * step, after the new process exists, at which the restore is made to fail.
 */
enum fault_site {
	FAULT_NONE = 0,
	FAULT_GHOSTS,		/* crib-restore, once the unlinked files are made again */
	FAULT_DESCRIPTIONS,	/* crib-restore, once every description is made, epolls filled */
	FAULT_FORK,		/* the child, once it forked its children */
	FAULT_SESSION,		/* the child, once its session and group are made */
	FAULT_FILES,		/* the child, once its descriptors are open */
	FAULT_ATTRIBUTES,	/* the child, once its attributes are set */
	FAULT_RESTORER,		/* the restorer, entering restore_fault.step */
	FAULT_REGISTERS,	/* the tracer, once the registers are set */
	FAULT_SEALS,		/* the tracer, once the memfds are sealed */
	FAULT_RESUME,		/* the tracer, once the connections left repair mode */
	FAULT_UNLOCK,		/* the tracer, once the network lock is released */
	FAULT_DETACH,		/* the tracer, once the first thread is let go */
	FAULT_COPY,		/* no failure: direct.c's copy fails, the pages are written */
};

/*
 * The child and restorer sites fail in one process: the root, or the one
 * CRIB_RESTORE_FAULT=STEP@PID names.
 */
struct restore_fault {
	enum fault_site site;
	uint32_t step;		/* FAULT_RESTORER: an enum rst_step */
	const char *name;	/* its CRIB_RESTORE_FAULT name */
	pid_t pid;		/* where; 0: the root */
};

/* Read CRIB_RESTORE_FAULT; 0 (FAULT_NONE when unset) or -1 for a bad name. */
int fault_from_env(struct restore_fault *f, struct tool_error *err);
/* The CRIB_RESTORE_FAULT name of a restorer step. */
const char *fault_step_name(uint32_t step);

/* What every process of the tree needs while it still runs crib-restore's code. */
struct restore_ctx {
	const struct restore_tree *tree;
	struct restore_area *areas;	/* by process index; zombies have none */
	struct tree_ctl *ctl;
	int park_base;			/* the descriptions, from here up */
	const struct restore_fault *fault;
	pid_t fault_pid;		/* the process a child or restorer fault fails */
	int go_fd;			/* the root reads it: crib-restore traces it */
};

/*
 * The part of process @i while it runs crib-restore's code (child.c): its
 * children forked, its session and group made (tree.c), its descriptors,
 * its attributes, then the jump into the restorer.  Never returns; a
 * failure is written to the area's message and ends the process.  A
 * zombie of the snapshot ends here, as it ended then.
 */
void child_restore(const struct restore_ctx *ctx, size_t i) __attribute__((noreturn));
/* Report @err from process @i (in its area) and end it. */
void child_exit(const struct restore_ctx *ctx, size_t i, const struct tool_error *err)
	__attribute__((noreturn));

/* fork() into process ID @pid (clone3 with set_tid): the child's 0, the pid, or -1. */
pid_t fork_with_pid(pid_t pid);

/*
 * The tree's part of the child (tree.c), once it forked its children in
 * the order tree_link() settled: make or join its group; end a zombie; a
 * group helper's whole life.  Each returns in the process that was there,
 * or fails with @err.
 */
int tree_join_group(const struct restore_ctx *ctx, const struct restore_plan *plan,
		    struct tool_error *err);
void tree_end_zombie(const struct restore_ctx *ctx, const struct restore_plan *plan)
	__attribute__((noreturn));
/* @plan's process exists: what is under /proc/PID/ for it may be opened. */
void tree_mark_born(const struct restore_ctx *ctx, const struct restore_plan *plan);
void tree_wait_born(const struct restore_ctx *ctx, const struct restore_plan *plan);

/*
 * Create every socket of the tree, parked at or above @temp_base; @fds[i]
 * gets the descriptor of tree->sockets.items[i] (see sockets.c).  TCP
 * connections are left in repair mode.
 */
int sockets_create(const struct restore_tree *tree, struct udp_refill *refill, int temp_base,
		   int *fds, struct tool_error *err);
/*
 * Once every process is in place: take the TCP connections out of repair
 * mode, on @fds (crib-restore's copies, as sockets_create() made them).
 */
int sockets_leave_repair(const struct restore_tree *tree, const int *fds,
			 struct tool_error *err);
/*
 * Then, once the network lock is released: write their unsent data and
 * their FINs again, so that these go out at once.  Sent under the lock
 * they were dropped, and went out only when a retransmission timer
 * fired, whose backoff kept growing as long as the lock held.
 */
int sockets_resume(const struct restore_tree *tree, const int *fds, struct tool_error *err);
/*
 * Whether connection @fd, back in repair mode, has received data or a FIN
 * since it was restored from @ps (or it cannot tell).
 */
bool tcp_took_more(const struct plan_socket *ps, int fd);

struct restore_options {
	bool wait;
	bool verbose;
	bool quiet;			/* no progress meter */
	struct restore_fault fault;
	struct progress *progress;	/* on a terminal */
};

/*
 * A tree from another boot is born in a time namespace whose clocks go on
 * from the dump's (clocks.c, spec §5.6); in the same boot, nothing.  Call
 * before the root is created, from the thread that creates it.
 */
int clocks_prepare(const struct restore_tree *tree, const struct restore_options *opt,
		   struct tool_error *err);

/*
 * Create the processes of @tree and let them run.  Returns the root's PID,
 * or -1 with @err set and nothing left behind.
 */
pid_t restore_tree(const struct restore_tree *tree, struct udp_refill *refill,
		   const struct restore_options *opt, struct tool_error *err);
/* --wait: wait for the restored process; its exit status (128 + N for signal N). */
int restore_wait(pid_t pid);

/*
 * --verify (verify.c): the snapshot is kept to be read again, then
 * compared with a dump of the restored process.
 */
struct verify_input {
	int fd;			/* the snapshot from @start: a dup or a memfd copy */
	off_t start;
};

/* Make the input @fd readable twice, through @in->fd; 0 or -1. */
int verify_keep_input(int fd, struct verify_input *in, struct tool_error *err);
void verify_input_close(struct verify_input *in);
/*
 * Dump @pid again with crib-dump --leave-running and compare; differences
 * are printed on standard error.  Returns 0 when the process matches its
 * snapshot; otherwise -1 with @err set, and the process is killed.
 */
int verify_restored(const struct restore_tree *tree, const struct verify_input *in,
		    const struct restore_options *opt, struct tool_error *err);

/* The step log of -v, on a line of its own even while the progress meter shows. */
#define restore_verbose(opt, ...) do {					\
	if ((opt)->verbose) {						\
		progress_hide((opt)->progress);				\
		fprintf(stderr, "crib-restore: " __VA_ARGS__);		\
	}								\
} while (0)

#endif /* CRIB_RESTORE_TOOL_H */
