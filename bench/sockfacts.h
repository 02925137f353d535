/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The facts the socket benchmark reads about every socket of a process,
 * two ways, into the same struct sock_fact:
 *
 *   sockfacts-crib.c    the dump_sockets CRIB program, run and drained as
 *                       crib-dump runs it
 *   sockfacts-procfs.c  the way a procfs-based dumper (CRIU) gathers them:
 *                       /proc/PID/fd, /proc/net/{tcp,tcp6,udp,udp6,unix},
 *                       sock_diag (inet_diag with INET_DIAG_INFO, unix_diag),
 *                       and getsockopt()/ioctl() on a pidfd_getfd() copy of
 *                       each socket, TCP ones in repair mode for their
 *                       sequence numbers and window
 *
 * Only facts both ways can read are kept, in the units procfs and
 * getsockopt() give them.
 */
#ifndef CRIB_BENCH_SOCKFACTS_H
#define CRIB_BENCH_SOCKFACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "crib-dump.h"

#define SOCKFACT_NAME_LEN	108

/* Options read with getsockopt(), as it returns them. */
enum sockfact_opt {
	SF_SO_RCVBUF,
	SF_SO_SNDBUF,
	SF_SO_KEEPALIVE,
	SF_SO_REUSEADDR,
	SF_SO_REUSEPORT,
	SF_SO_PRIORITY,
	SF_SO_MARK,
	SF_SO_RCVLOWAT,
	SF_IP_TOS,		/* inet */
	SF_IPV6_V6ONLY,		/* AF_INET6 */
	SF_TCP_NODELAY,		/* TCP */
	SF_TCP_CORK,		/* TCP */
	SF_NR_OPTS,
};

struct sock_fact {
	int fd;
	uint64_t ino;
	int family;
	int type;
	int state;			/* sk_state */
	/* inet: addresses in network order, ports in host order */
	uint8_t local_addr[16], peer_addr[16];
	uint16_t local_port, peer_port;
	/* AF_UNIX */
	uint8_t name[SOCKFACT_NAME_LEN];
	size_t name_len;
	uint64_t peer_ino;
	/* queues as /proc/net and unix_diag show them */
	uint32_t rx_queue, tx_queue;
	/* TCP, not listening: TCP_REPAIR's view, and TCP_INFO's */
	uint32_t write_seq, rcv_nxt;	/* TCP_QUEUE_SEQ of the send and receive queues */
	uint32_t snd_wl1, snd_wnd, max_window, rcv_wnd, rcv_wup;	/* TCP_REPAIR_WINDOW */
	uint8_t snd_wscale, rcv_wscale;
	bool timestamps, sack, wscale;
	uint32_t inq, outq;		/* SIOCINQ, SIOCOUTQ */
	bool has_opt[SF_NR_OPTS];
	int opt[SF_NR_OPTS];
};

struct sock_facts {
	struct sock_fact *items;	/* by descriptor */
	size_t n, cap;
};

struct sock_fact *sock_facts_add(struct sock_facts *f);
void sock_facts_sort(struct sock_facts *f);
void sock_facts_free(struct sock_facts *f);

/* The CRIB way: dump_sockets of @job->pid, its records drained and converted. */
int crib_sock_facts_read(struct dump_job *job, struct sock_facts *f);

/* The stages of the procfs way, timed apart to show where its time goes. */
enum procfs_stage {
	STAGE_FDS,		/* /proc/PID/fd listed, every link read */
	STAGE_PROC_NET,		/* /proc/net/{tcp,tcp6,udp,udp6,unix} parsed */
	STAGE_DIAG,		/* inet_diag and unix_diag dumps */
	STAGE_SOCKOPT,		/* pidfd_getfd(), getsockopt(), ioctl(), TCP_REPAIR */
	NR_STAGES,
};

/* The procfs way, with the buffers it keeps from run to run. */
struct procfs_sock_reader {
	pid_t pid;
	int pidfd;
	char *buf;
	size_t buf_size;
	uint64_t stage_cycles[NR_STAGES];	/* of the last read, in TSC cycles */
};

int procfs_sock_reader_init(struct procfs_sock_reader *r, pid_t pid, struct tool_error *err);
void procfs_sock_reader_free(struct procfs_sock_reader *r);
int procfs_sock_facts_read(struct procfs_sock_reader *r, struct sock_facts *f,
			   struct tool_error *err);

/*
 * Every fact of @a against @b, socket by socket; each difference printed
 * as a "# " line.  Returns the number of differences.
 */
int sock_facts_compare(const struct sock_facts *a, const struct sock_facts *b);

#endif /* CRIB_BENCH_SOCKFACTS_H */
