/* SPDX-License-Identifier: GPL-2.0 */
/*
 * crib-restore: bring a process back from a CRIB snapshot.
 *
 * The whole snapshot is read and checked first (snapshot.c, check.c), its
 * memory going to shadows of the VMAs (shadow.c) or a page store (a
 * memfd), so nothing is created from a stream that turns out corrupt.  Then the process is created with its
 * original PID (tracer.c), as a child that sets up its descriptors and
 * process attributes with libc (child.c, files.c) and jumps into the
 * restorer (restorer.c) in a restore area laid out by area.c.  The
 * restorer rebuilds the address space and the threads; crib-restore,
 * tracing every thread, sets the registers, unmaps the area and lets them
 * all go.  Any failure kills what was created.
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
};

struct plan_vma {
	struct crib_vma v;	/* path owned by the plan */
	bool has_data;		/* some page run in the page store falls in it */
	void *shadow;		/* its contents in this process, laid out alike: shadow.c */
	uint64_t shadow_off;	/* where in the reservation the shadow goes */
	bool shadow_room;	/* it has one there (cleared if it cannot be made) */
};

/* A run of pages with contents, kept in the page store at @offset. */
struct plan_pages {
	uint64_t addr;
	uint64_t len;
	uint64_t offset;
};

struct plan_pipe {
	uint64_t pipe_id;
	uint64_t pipe_size;
	unsigned char *data;
	size_t len;
	bool has_read_end, has_write_end;
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

struct plan_socket {
	struct crib_socket s;		/* options point into @opt_values */
	struct plan_addr local, peer;
	struct crib_sockopt *options;
	unsigned char *opt_values;
	struct plan_queue recv, send;
};

/* Everything a snapshot says, as the restore needs it. */
struct restore_plan {
	struct crib_header header;	/* strings owned by the plan */
	struct crib_process proc;	/* strings and arrays owned by the plan */
	struct crib_mm mm;		/* auxv and exe owned by the plan */
	bool have_process, have_mm;
	ARRAY(struct plan_thread) threads;	/* the leader first */
	ARRAY(struct plan_vma) vmas;
	ARRAY(struct plan_pages) pages;
	int page_store;			/* memfd with the page contents */
	uint64_t page_store_len;
	void *shadows;			/* the reservation holding the VMAs' shadows */
	uint64_t shadows_len;
	uint64_t shadow_bytes;		/* contents taken into shadows */
	bool no_shadows;		/* no room for them: everything in the page store */
	ARRAY(struct crib_file) files;	/* paths owned by the plan */
	ARRAY(struct crib_pipe) pipe_fds;	/* the pipe ends, one per fd */
	ARRAY(struct plan_pipe) pipes;	/* one per pipe */
	struct crib_sigaction *actions;
	size_t n_actions;
	struct plan_siginfo *shared_pending;
	size_t n_shared_pending;
	struct crib_timers timers;	/* timers.posix owned by the plan */
	bool have_timers;
	ARRAY(struct plan_socket) sockets;	/* one per descriptor */
};

/* Read the snapshot at @fd into @plan, counting what is read in @progress. */
int plan_read(struct restore_plan *plan, int fd, struct progress *progress,
	      struct tool_error *err);

/*
 * Private anonymous memory waits for the restorer in a shadow of its VMA
 * (shadow.c), which the new process inherits and the restorer moves into
 * place.  True when the run at @addr (@data NULL: zeros) was taken into a
 * shadow, false when it belongs in the page store.
 */
bool shadow_take(struct restore_plan *plan, uint64_t addr, const void *data, uint64_t len);
void shadow_free(struct restore_plan *plan);
void plan_free(struct restore_plan *plan);
struct plan_pipe *plan_find_pipe(struct restore_plan *plan, uint64_t pipe_id);

/* Socket records into the plan: see socket_plan.c. */
int plan_take_socket(struct restore_plan *plan, const struct crib_socket *s,
		     struct tool_error *err);
int plan_take_socket_queue(struct restore_plan *plan, const struct crib_socket_queue *q,
			   struct tool_error *err);
void plan_free_sockets(struct restore_plan *plan);
struct plan_socket *plan_find_socket_fd(const struct restore_plan *plan, uint64_t fd);
/* The first socket of the plan with @sock_id (several fds may share one). */
struct plan_socket *plan_find_socket_id(const struct restore_plan *plan, uint64_t sock_id);
/* The recorded value of @ps's int option @level/@name; false when not recorded. */
bool plan_sockopt_int(const struct plan_socket *ps, int level, int name, int *val);

/* Everything checked before anything is created: see check.c. */
int plan_check(const struct restore_plan *plan, struct tool_error *err);
/* The sockets' part of it: see sockets.c. */
int sockets_check(const struct restore_plan *plan, struct tool_error *err);

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

int udp_refill_open(struct udp_refill *r, const struct restore_plan *plan,
		    struct tool_error *err);
void udp_refill_close(struct udp_refill *r);

/*
 * Let the packets of the restored TCP connections through again: crib-dump
 * locked them (see network.c).  Connections that are not locked are skipped.
 * Called by the child, its connections rebuilt and still in repair mode.
 */
int network_release(const struct restore_plan *plan, struct tool_error *err);

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
	int *vma;		/* per plan VMA: the file it maps, or -1 */
	int *opened;		/* distinct files opened for mappings */
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

int area_create(struct restore_area *area, const struct restore_plan *plan,
		struct tool_error *err);
/* Fill in the arguments, with the descriptor numbers the child settled on. */
void area_fill(struct restore_area *area, const struct restore_plan *plan,
	       const struct restore_fds *fds);
void area_destroy(struct restore_area *area);
/* The restorer's step as words, for an error message. */
const char *area_step_name(uint32_t step);

/*
 * Fault injection, a testing aid (fault.c): CRIB_RESTORE_FAULT names a
 * step, after the new process exists, at which the restore is made to fail.
 */
enum fault_site {
	FAULT_NONE = 0,
	FAULT_FILES,		/* the child, once its descriptors are open */
	FAULT_ATTRIBUTES,	/* the child, once its attributes are set */
	FAULT_RESTORER,		/* the restorer, entering restore_fault.step */
	FAULT_REGISTERS,	/* the tracer, once the registers are set */
	FAULT_DETACH,		/* the tracer, once the first thread is let go */
};

struct restore_fault {
	enum fault_site site;
	uint32_t step;		/* FAULT_RESTORER: an enum rst_step */
	const char *name;	/* its CRIB_RESTORE_FAULT name */
};

/* Read CRIB_RESTORE_FAULT; 0 (FAULT_NONE when unset) or -1 for a bad name. */
int fault_from_env(struct restore_fault *f, struct tool_error *err);
/* The CRIB_RESTORE_FAULT name of a restorer step. */
const char *fault_step_name(uint32_t step);

/*
 * The child's part: descriptors, process attributes, then the jump into
 * the restorer.  Never returns; a failure is written to the area's message
 * and ends the child.
 */
void child_restore(const struct restore_plan *plan, struct restore_area *area,
		   struct udp_refill *refill, int sync_fd, const struct restore_fault *fault)
	__attribute__((noreturn));

/* Open every descriptor of the snapshot at its number: see files.c. */
int files_restore(const struct restore_plan *plan, struct udp_refill *refill, int temp_base,
		  struct tool_error *err);

/*
 * Create every socket of the plan, parked at or above @temp_base; @fds[i]
 * gets the descriptor of plan->sockets.items[i] (see sockets.c).  TCP
 * connections are left in repair mode.
 */
int sockets_create(const struct restore_plan *plan, struct udp_refill *refill, int temp_base,
		   int *fds, struct tool_error *err);
/*
 * Once every descriptor is at its number: release the network lock of the
 * TCP connections, take them out of repair mode, write their unsent data.
 */
int sockets_resume(const struct restore_plan *plan, struct tool_error *err);

struct restore_options {
	bool wait;
	bool verbose;
	bool quiet;			/* no progress meter */
	struct restore_fault fault;
	struct progress *progress;	/* on a terminal */
};

/*
 * Create the process from @plan and let it run.  Returns its PID, or -1
 * with @err set and nothing left behind.
 */
pid_t restore_process(const struct restore_plan *plan, struct udp_refill *refill,
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
int verify_restored(pid_t pid, const struct verify_input *in, const struct restore_options *opt,
		    struct tool_error *err);

/* The step log of -v, on a line of its own even while the progress meter shows. */
#define restore_verbose(opt, ...) do {					\
	if ((opt)->verbose) {						\
		progress_hide((opt)->progress);				\
		fprintf(stderr, "crib-restore: " __VA_ARGS__);		\
	}								\
} while (0)

#endif /* CRIB_RESTORE_TOOL_H */
