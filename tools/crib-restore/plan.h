/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The restore tree: what a snapshot says, as the restore needs it.  A
 * struct restore_plan is what it says of one process; the struct
 * restore_tree holds them all and what they share.  The kinds fill it as
 * the snapshot is read (snapshot.c) and look each other up in it here
 * (plan.c), calling nothing above them.
 */
#ifndef CRIB_RESTORE_PLAN_H
#define CRIB_RESTORE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <crib/format.h>

#include "array.h"
#include "error.h"
#include "restorer.h"

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
	uint64_t securebits;
	uint64_t ioprio;
	uint64_t spec_store_bypass;	/* PR_SPEC_*; 0 not set */
	uint64_t spec_indirect_branch;
	uint64_t seccomp_mode;		/* enum crib_seccomp_mode; 0 none (seccomp.c) */
	const struct plan_seccomp_filter **seccomp;	/* the first installed first */
	size_t n_seccomp;
};

/* A seccomp filter, which threads of several processes may name (seccomp.c). */
struct plan_seccomp_filter {
	uint64_t filter_id;
	bool log;
	void *insns;			/* struct sock_filter[] */
	size_t n_insns;
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
	uint64_t mtime_ns;		/* a FIFO's, set again once filled */
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
	uint32_t port;		/* a port, 16 bits; AF_NETLINK: a port id */
	uint32_t flowinfo;
	uint32_t scope_id;
	uint32_t group;		/* AF_NETLINK: a multicast group */
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
	bool have_filter;		/* socket_filter.c: a socket_filter record */
	bool filter_locked;		/* SO_LOCK_FILTER */
	void *filter;			/* struct sock_filter[n_filter] */
	size_t n_filter;
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

/* One pseudo-terminal end a descriptor holds (tty.c), its control characters its own. */
struct plan_tty {
	struct crib_tty t;		/* t.cc points at @cc */
	uint8_t cc[CRIB_TTY_NCCS];
};
/* An open file description, made once for the tree by crib-restore (files.c). */
struct plan_desc {
	const struct crib_file *file;	/* its first descriptor's record */
	const struct restore_plan *owner;	/* and that descriptor's process */
	struct plan_pipe *pipe;		/* pipes and FIFOs */
	uint64_t end;			/* enum crib_pipe_end */
	size_t socket;			/* sockets: index into tree->sockets */
	const struct plan_tty *tty;	/* pseudo-terminal ends */
	/* a path under /proc/PID/ of a process of the tree: opened once it exists */
	const struct restore_plan *proc_owner;
};

/* Everything a snapshot says, as the restore needs it. */
struct restore_tree {
	struct crib_header header;	/* strings owned by the tree */
	int snapshot_exit;		/* plan_read(): the snapshot unreadable (exit.h), or 0 */
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
	ARRAY(struct plan_seccomp_filter *) seccomp_filters;	/* seccomp.c */
	ARRAY(struct crib_file_lock) file_locks;	/* locks.c */
	ARRAY(struct crib_pidfd) pidfds;	/* pidfd.c */
	ARRAY(struct plan_tty) ttys;	/* tty.c: one per descriptor of any process */
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

/* A string of a record, copied for the plan; NULL stays NULL (plan.c). */
char *plan_dup_str(const char *s);

#endif /* CRIB_RESTORE_PLAN_H */
