// SPDX-License-Identifier: GPL-2.0-only
/*
 * The readable summary.  Records are printed as they stream by; the memory
 * maps (memmap.c) and the process tree (proctree.c) are kept, indexed, and
 * printed at the end.  Text from the snapshot goes through print_text() or
 * print_path(), so no byte of it reaches a terminal as a control.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "inspect.h"

struct summary {
	const struct options *o;
	struct memmap *memmap;
	struct proctree *tree;
	uint64_t unknown;
	uint64_t ghost_bytes;	/* of the ghost whose data is being read */
	size_t ghost_chunks;
};

static void print_header(const struct crib_header *h)
{
	time_t secs = (time_t)(h->time_ns / 1000000000ull);
	char when[64] = "?";
	struct tm tm;

	if (gmtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	printf("CRIB snapshot, format %u.%u\n", h->version_major, h->version_minor);
	printf("  source:   Linux ");
	print_text(h->kernel_release);
	putchar(' ');
	print_text(h->arch);
	printf(", page size %" PRIu64, h->page_size);
	if (h->hostname) {
		printf(", host ");
		print_text(h->hostname);
	}
	printf("\n  created:  %s by ", when);
	print_text(h->tool_name);
	putchar(' ');
	print_text(h->tool_version);
	putchar('\n');
	printf("  root pid: %" PRIu64 "   flags: 0x%" PRIx64 "%s\n", h->root_pid, h->flags,
	       (h->flags & CRIB_HDR_NO_PAGES) ? " (no memory contents)" : "");
	if (h->boot_id) {
		printf("  clocks:   monotonic %" PRIu64 ".%03u s, boottime %" PRIu64 ".%03u s, "
		       "boot ", h->monotonic_ns / 1000000000u,
		       (unsigned int)(h->monotonic_ns % 1000000000u / 1000000u),
		       h->boottime_ns / 1000000000u,
		       (unsigned int)(h->boottime_ns % 1000000000u / 1000000u));
		print_text(h->boot_id);
		putchar('\n');
	}
	if (h->timens_monotonic_ns || h->timens_boottime_ns)
		printf("  time namespace offsets: monotonic %+.3f s, boottime %+.3f s\n",
		       (double)h->timens_monotonic_ns / 1e9, (double)h->timens_boottime_ns / 1e9);
}

static void print_process(const struct crib_process *p)
{
	printf("\nprocess %" PRIu64 " \"", p->pid);
	print_text(p->comm);
	printf("\"  ppid %" PRIu64 "  pgid %" PRIu64 "  sid %" PRIu64 "\n", p->ppid, p->pgid,
	       p->sid);
	if (p->zombie) {
		printf("  zombie: wait status 0x%" PRIx64 "\n", p->exit_status);
		return;
	}
	if (p->stop_signal || p->child_subreaper)
		printf("  %s%s%s\n", p->stop_signal ? "stopped by job control" : "",
		       p->stop_signal && p->child_subreaper ? ", " : "",
		       p->child_subreaper ? "child subreaper" : "");
	printf("  uid %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "  gid %" PRIu64 "/%" PRIu64
	       "/%" PRIu64 "/%" PRIu64 "  groups", p->uid, p->euid, p->suid, p->fsuid, p->gid,
	       p->egid, p->sgid, p->fsgid);
	for (size_t i = 0; i < p->n_groups && i < 32; i++)
		printf("%s%" PRIu64, i ? "," : " ", p->groups[i]);
	printf("%s\n", p->n_groups > 32 ? ",..." : p->n_groups ? "" : " none");
	printf("  caps eff 0x%" PRIx64 " prm 0x%" PRIx64 " inh 0x%" PRIx64 " bnd 0x%" PRIx64
	       " amb 0x%" PRIx64 "\n", p->cap_eff, p->cap_prm, p->cap_inh, p->cap_bnd, p->cap_amb);
	printf("  sched policy %" PRIu64 " prio %" PRId64 " nice %" PRId64 "  umask %04" PRIo64
	       "  personality 0x%" PRIx64 "  no_new_privs %d  dumpable %" PRIu64 "  %zu rlimits\n",
	       p->sched_policy, p->sched_priority, p->nice, p->umask, p->personality,
	       p->no_new_privs, p->dumpable, p->n_rlimits);
	if (p->cpus || p->timer_slack_ns || p->oom_score_adj)
		printf("  cpus 0x%" PRIx64 "  timer slack %" PRIu64 " ns  oom_score_adj %" PRId64 "\n",
		       p->cpus, p->timer_slack_ns, p->oom_score_adj);
	if (p->sched_reset_on_fork || p->membarrier)
		printf("  %smembarrier registrations 0x%" PRIx64 "\n",
		       p->sched_reset_on_fork ? "SCHED_RESET_ON_FORK  " : "", p->membarrier);
	printf("  cwd ");
	print_path(p->cwd);
	if (p->cwd_unlinked)
		printf(" (removed)");
	printf("  root ");
	print_path(p->root);
	printf("  exe ");
	print_path(p->exe);
	putchar('\n');
}

static void print_thread(const struct crib_thread *t)
{
	printf("  thread %" PRIu64 " \"", t->tid);
	print_text(t->comm);
	putchar('"');
	if (t->regs_arch) {
		putchar(' ');
		print_text(t->regs_arch);
		printf(" regs %zu bytes", t->regs.len);
	}
	else
		printf(" rip 0x%" PRIx64 " rsp 0x%" PRIx64, t->regs_x86_64.rip, t->regs_x86_64.rsp);
	printf(" blocked 0x%" PRIx64 " pending %zu xstate %zu bytes%s\n", t->sigmask, t->n_pending,
	       t->xstate.len, t->sigaltstack.size ? " altstack" : "");
	if (t->own_creds)
		printf("    own credentials: uid %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64
		       "  gid %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "  caps eff 0x%" PRIx64
		       " prm 0x%" PRIx64 "\n", t->creds.uid, t->creds.euid, t->creds.suid,
		       t->creds.fsuid, t->creds.gid, t->creds.egid, t->creds.sgid, t->creds.fsgid,
		       t->creds.cap_eff, t->creds.cap_prm);
	if (t->pdeath_signal)
		printf("    parent-death signal %" PRIu64 "\n", t->pdeath_signal);
	if (t->securebits || t->ioprio || t->spec_store_bypass || t->spec_indirect_branch)
		printf("    securebits 0x%" PRIx64 "  ioprio 0x%" PRIx64 "  speculation controls: "
		       "store bypass %" PRIu64 ", indirect branch %" PRIu64 "\n", t->securebits,
		       t->ioprio, t->spec_store_bypass, t->spec_indirect_branch);
	print_siginfo_list(t->pending, t->n_pending);
}

static void print_seccomp_filter(const struct crib_seccomp_filter *f)
{
	size_t n = f->insns.len / 8;

	printf("  seccomp filter %" PRIu64 ": %zu instruction%s%s\n", f->filter_id, n,
	       n == 1 ? "" : "s", f->log ? ", logged" : "");
}

static void print_seccomp(const struct crib_seccomp *s)
{
	size_t i;

	printf("  thread %" PRIu64 " seccomp: ", s->tid);
	if (s->mode == CRIB_SECCOMP_STRICT) {
		printf("strict mode\n");
		return;
	}
	printf("filter%s", s->n_filters == 1 ? "" : "s");
	for (i = 0; i < s->n_filters; i++)
		printf("%s%" PRIu64, i ? ", " : " ", s->filters[i]);
	printf(" (the first installed first)\n");
}

static void print_mm(const struct crib_mm *m)
{
	printf("  mm: code %" PRIx64 "-%" PRIx64 " data %" PRIx64 "-%" PRIx64 " brk %" PRIx64
	       "-%" PRIx64 " stack %" PRIx64 " auxv %zu bytes, %" PRIu64 " vmas\n",
	       m->start_code, m->end_code, m->start_data, m->end_data, m->start_brk, m->brk,
	       m->start_stack, m->auxv.len, m->nr_vmas);
}

static void print_file(const struct crib_file *f)
{
	printf("fd %-3" PRIu64 " %-9s flags 0%-7" PRIo64 " pos %-8" PRId64 " desc %-3" PRIu64 " ",
	       f->fd, crib_file_type_name(f->type), f->flags, f->pos, f->desc);
	print_path(f->path);
	if (f->type == CRIB_FILE_EVENTFD)
		printf("  count %" PRIu64 "%s", f->eventfd_count,
		       f->eventfd_semaphore ? " (semaphore)" : "");
	else if (f->type == CRIB_FILE_SIGNALFD)
		printf("  mask 0x%" PRIx64, f->sigmask);
	if (f->ghost_id)
		printf("  ghost %" PRIu64, f->ghost_id);
	printf("%s\n", f->cloexec ? "  (cloexec)" : "");
}

static const char *clock_name(uint64_t clockid)
{
	static const char *const names[] = {
		[0] = "realtime", [1] = "monotonic", [7] = "boottime",
		[8] = "realtime-alarm", [9] = "boottime-alarm",
	};

	return clockid < 10 && names[clockid] ? names[clockid] : "clock ?";
}

static void print_timerfd(const struct crib_timerfd *t)
{
	printf("timerfd fd %" PRIu64 ": %s, next in %" PRIu64 " ns, every %" PRIu64
	       " ns, %" PRIu64 " expirations unread%s%s\n", t->fd, clock_name(t->clockid),
	       t->value_ns, t->interval_ns, t->ticks,
	       (t->settime_flags & 1) ? ", absolute" : "",
	       (t->settime_flags & 2) ? ", cancel on set" : "");
}

static void print_epoll_item(const struct crib_epoll_item *e)
{
	printf("epoll fd %" PRIu64 ": watches fd %" PRIu64 " (pid %" PRIu64 " fd %" PRIu64
	       "), events 0x%" PRIx64 ", data 0x%" PRIx64 "\n", e->fd, e->tfd, e->target_pid,
	       e->target_fd, e->events, e->data);
}

/* IN_* of inotify_add_watch(2), by name as inotify(7) lists them. */
static const struct {
	uint64_t bit;
	const char *name;
} in_flags[] = {
	{ 0x00000001, "ACCESS" }, { 0x00000002, "MODIFY" }, { 0x00000004, "ATTRIB" },
	{ 0x00000008, "CLOSE_WRITE" }, { 0x00000010, "CLOSE_NOWRITE" }, { 0x00000020, "OPEN" },
	{ 0x00000040, "MOVED_FROM" }, { 0x00000080, "MOVED_TO" }, { 0x00000100, "CREATE" },
	{ 0x00000200, "DELETE" }, { 0x00000400, "DELETE_SELF" }, { 0x00000800, "MOVE_SELF" },
	{ 0x01000000, "ONLYDIR" }, { 0x02000000, "DONT_FOLLOW" }, { 0x04000000, "EXCL_UNLINK" },
	{ 0x10000000, "MASK_CREATE" }, { 0x20000000, "MASK_ADD" }, { 0x80000000, "ONESHOT" },
};

static void print_inotify_watch(const struct crib_inotify_watch *iw)
{
	uint64_t rest = iw->mask;
	bool first = true;

	printf("inotify fd %" PRIu64 ": watch %" PRIu64 " on ", iw->fd, iw->wd);
	print_path(iw->path);
	printf(", mask 0x%" PRIx64 " (", iw->mask);
	for (size_t i = 0; i < sizeof(in_flags) / sizeof(in_flags[0]); i++) {
		if (!(iw->mask & in_flags[i].bit))
			continue;
		printf("%s%s", first ? "" : ",", in_flags[i].name);
		rest &= ~in_flags[i].bit;
		first = false;
	}
	if (rest)
		printf("%s0x%" PRIx64, first ? "" : ",", rest);
	else if (first)
		putchar('-');
	printf(")\n");
}

/* A lock as /proc/locks names it: kind, type, and the range of a byte-range lock. */
static void print_file_lock(const struct crib_file_lock *l)
{
	static const char *const kinds[] = { "POSIX", "OFD", "FLOCK", "LEASE" };
	static const char *const types[] = { "READ", "WRITE" };

	printf("lock fd %" PRIu64 ": ", l->fd);
	if (l->kind < sizeof(kinds) / sizeof(kinds[0]))
		printf("%s ", kinds[l->kind]);
	else
		printf("kind %" PRIu64 " ", l->kind);
	if (l->type < sizeof(types) / sizeof(types[0]))
		printf("%s", types[l->type]);
	else
		printf("type %" PRIu64, l->type);
	if (l->kind == CRIB_LOCK_POSIX || l->kind == CRIB_LOCK_OFD) {
		if (l->len)
			printf(", bytes %" PRIu64 "-%" PRIu64, l->start, l->start + l->len - 1);
		else
			printf(", bytes %" PRIu64 "-EOF", l->start);
	}
	putchar('\n');
}

/* What a pidfd refers to: a process or thread of the tree, or one reaped before the dump. */
static void print_pidfd(const struct crib_pidfd *p)
{
	printf("pidfd fd %" PRIu64 ": ", p->fd);
	if (p->dead)
		printf("a %s that had exited and was reaped\n", p->thread ? "thread" : "process");
	else
		printf("%s %" PRIu64 "\n", p->thread ? "thread" : "process", p->target);
}

/* A pseudo-terminal end: which, its pair, window size, modes, the session it controls. */
static void print_tty(const struct crib_tty *t)
{
	printf("pty fd %" PRIu64 ": %s of pair %" PRIu64 " (pts %" PRIu64 "), %" PRIu64 "x%" PRIu64
	       ", lflag %#" PRIx64, t->fd, t->end == CRIB_TTY_MASTER ? "master" :
	       t->end == CRIB_TTY_SLAVE ? "slave" : "/dev/tty",
	       t->tty_id, t->index, t->rows, t->cols, t->lflag);
	if (t->packet)
		printf(", packet mode");
	if (t->exclusive)
		printf(", exclusive");
	if (t->locked)
		printf(", locked");
	if (t->sid)
		printf(", controls session %" PRIu64 ", foreground group %" PRIu64, t->sid,
		       t->fg_pgrp);
	putchar('\n');
}

/* F_SEAL_* by name, as fcntl(2) lists them. */
static void print_seals(uint64_t seals)
{
	static const char *const names[] = { "seal", "shrink", "grow", "write", "future-write",
					     "exec" };
	bool first = true;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (seals & (1ull << i)) {
			printf("%s%s", first ? ", seals " : ",", names[i]);
			first = false;
		}
	if (seals >> 6)
		printf("%s0x%" PRIx64, first ? ", seals " : ",", seals & ~(uint64_t)0x3f);
}

static void print_ghost(const struct crib_ghost *g)
{
	printf("ghost %" PRIu64 ": %s ", g->ghost_id, crib_ghost_kind_name(g->kind));
	print_path(g->path);
	printf(", %" PRIu64 " bytes, mode %06" PRIo64 ", owner %" PRIu64 ":%" PRIu64, g->size,
	       g->mode, g->uid, g->gid);
	print_seals(g->seals);
	putchar('\n');
}

/* The contents of the ghost just printed, once all its chunks are read. */
static void flush_ghost_data(struct summary *s)
{
	char a[16];

	if (!s->ghost_chunks)
		return;
	printf("  contents: %s in %zu chunk%s\n", size_str(s->ghost_bytes, a, sizeof(a)),
	       s->ghost_chunks, s->ghost_chunks == 1 ? "" : "s");
	s->ghost_bytes = 0;
	s->ghost_chunks = 0;
}

static void print_pipe(const struct crib_pipe *p)
{
	static const char *const ends[] = { "read end", "write end", "read and write" };

	printf("pipe fd %" PRIu64 ": pipe %" PRIu64 ", %s, %" PRIu64 " bytes queued, buffer %"
	       PRIu64 "", p->fd, p->pipe_id, p->end < 3 ? ends[p->end] : "end ?", p->queued,
	       p->pipe_size);
	if (p->ends_outside)
		printf(", %" PRIu64 " end%s outside the snapshot", p->ends_outside,
		       p->ends_outside == 1 ? "" : "s");
	putchar('\n');
}

static void print_sockaddr(const struct crib_sockaddr *a)
{
	char buf[160];

	fputs(sockaddr_str(a, buf, sizeof(buf)), stdout);
}

/* Option names by (level, name), as <sys/socket.h> and friends spell them. */
static const char *sockopt_name(uint64_t level, uint64_t name)
{
	static const struct { uint16_t level, name; const char *text; } names[] = {
		{ 1, 2, "SO_REUSEADDR" }, { 1, 15, "SO_REUSEPORT" }, { 1, 9, "SO_KEEPALIVE" },
		{ 1, 6, "SO_BROADCAST" }, { 1, 5, "SO_DONTROUTE" }, { 1, 10, "SO_OOBINLINE" },
		{ 1, 13, "SO_LINGER" }, { 1, 7, "SO_SNDBUF" }, { 1, 8, "SO_RCVBUF" },
		{ 1, 72, "SO_BUF_LOCK" }, { 1, 18, "SO_RCVLOWAT" }, { 1, 20, "SO_RCVTIMEO" },
		{ 1, 21, "SO_SNDTIMEO" }, { 1, 12, "SO_PRIORITY" }, { 1, 36, "SO_MARK" },
		{ 1, 16, "SO_PASSCRED" }, { 1, 29, "SO_TIMESTAMP" }, { 1, 35, "SO_TIMESTAMPNS" },
		{ 1, 40, "SO_RXQ_OVFL" }, { 1, 42, "SO_PEEK_OFF" }, { 1, 62, "SO_BINDTOIFINDEX" },
		{ 0, 1, "IP_TOS" }, { 0, 2, "IP_TTL" }, { 0, 21, "IP_MINTTL" },
		{ 0, 10, "IP_MTU_DISCOVER" }, { 0, 33, "IP_MULTICAST_TTL" },
		{ 0, 34, "IP_MULTICAST_LOOP" }, { 0, 8, "IP_PKTINFO" }, { 0, 12, "IP_RECVTTL" },
		{ 0, 13, "IP_RECVTOS" }, { 0, 11, "IP_RECVERR" }, { 0, 20, "IP_RECVORIGDSTADDR" },
		{ 0, 15, "IP_FREEBIND" }, { 0, 19, "IP_TRANSPARENT" },
		{ 0, 24, "IP_BIND_ADDRESS_NO_PORT" },
		{ 41, 26, "IPV6_V6ONLY" }, { 41, 67, "IPV6_TCLASS" }, { 41, 16, "IPV6_UNICAST_HOPS" },
		{ 6, 1, "TCP_NODELAY" }, { 6, 2, "TCP_MAXSEG" }, { 6, 3, "TCP_CORK" },
		{ 6, 4, "TCP_KEEPIDLE" }, { 6, 5, "TCP_KEEPINTVL" }, { 6, 6, "TCP_KEEPCNT" },
		{ 6, 7, "TCP_SYNCNT" }, { 6, 8, "TCP_LINGER2" }, { 6, 9, "TCP_DEFER_ACCEPT" },
		{ 6, 18, "TCP_USER_TIMEOUT" }, { 6, 25, "TCP_NOTSENT_LOWAT" },
		{ 6, 16, "TCP_THIN_LINEAR_TIMEOUTS" }, { 6, 13, "TCP_CONGESTION" },
		{ 17, 1, "UDP_CORK" }, { 17, 103, "UDP_SEGMENT" }, { 17, 104, "UDP_GRO" },
		{ 0, 3, "IP_HDRINCL" }, { 255, 1, "ICMP_FILTER" }, { 41, 7, "IPV6_CHECKSUM" },
		{ 41, 36, "IPV6_HDRINCL" }, { 58, 1, "ICMPV6_FILTER" },
		{ 136, 10, "UDPLITE_SEND_CSCOV" }, { 136, 11, "UDPLITE_RECV_CSCOV" },
		{ 263, 10, "PACKET_VERSION" }, { 263, 8, "PACKET_AUXDATA" },
		{ 263, 9, "PACKET_ORIGDEV" }, { 263, 12, "PACKET_RESERVE" },
		{ 263, 17, "PACKET_TIMESTAMP" }, { 263, 20, "PACKET_QDISC_BYPASS" },
		{ 270, 3, "NETLINK_PKTINFO" }, { 270, 4, "NETLINK_BROADCAST_ERROR" },
		{ 270, 5, "NETLINK_NO_ENOBUFS" }, { 270, 8, "NETLINK_LISTEN_ALL_NSID" },
		{ 270, 9, "NETLINK_LIST_MEMBERSHIPS" }, { 270, 10, "NETLINK_CAP_ACK" },
		{ 270, 11, "NETLINK_EXT_ACK" }, { 270, 12, "NETLINK_GET_STRICT_CHK" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].level == level && names[i].name == name)
			return names[i].text;
	return NULL;
}

/* NETLINK_LIST_MEMBERSHIPS: the groups joined, by number, from its bitmap of u32 words. */
static void print_netlink_groups(const struct crib_sockopt *o)
{
	const uint8_t *v = o->value.data;
	bool first = true;
	uint32_t word;

	for (size_t w = 0; w + 4 <= o->value.len; w += 4) {
		memcpy(&word, v + w, 4);
		for (unsigned int bit = 0; bit < 32; bit++) {
			if (!(word & (1u << bit)))
				continue;
			printf("%s%zu", first ? "" : ",", w * 8 + bit + 1);
			first = false;
		}
	}
	if (first)
		printf("none");
}

/* One option: an int as a number, a name (TCP_CONGESTION) as text, else a size. */
static void print_sockopt(const struct crib_sockopt *o)
{
	const char *name = sockopt_name(o->level, o->name);
	const uint8_t *v = o->value.data;
	int32_t i;

	if (name)
		printf(" %s=", name);
	else
		printf(" %" PRIu64 "/%" PRIu64 "=", o->level, o->name);
	if (o->level == 270 && o->name == 9) {
		print_netlink_groups(o);
	} else if (o->value.len == 4) {
		memcpy(&i, v, 4);	/* native byte order, as the spec says */
		printf("%" PRId32, i);
	} else if (o->level == 6 && o->name == 13) {
		for (size_t k = 0; k < o->value.len && v[k]; k++)
			putchar(v[k] >= 0x20 && v[k] < 0x7f ? v[k] : '?');
	} else if (o->value.len == 8 && o->level == 1 && o->name == 13) {
		int32_t on, secs;

		memcpy(&on, v, 4);
		memcpy(&secs, v + 4, 4);
		printf("%s%" PRId32 "s", on ? "on," : "off,", secs);
	} else {
		printf("%zu bytes", o->value.len);
	}
}

/* Options that are not zero, so the defaults do not drown the settings. */
static void print_sockopts(const struct crib_socket *s)
{
	size_t shown = 0;
	int32_t i;

	printf("    options (%zu, non-zero shown):", s->n_options);
	for (size_t k = 0; k < s->n_options; k++) {
		const struct crib_sockopt *o = &s->options[k];

		if (o->value.len == 4) {
			memcpy(&i, o->value.data, 4);
			if (!i)
				continue;
		}
		print_sockopt(o);
		shown++;
	}
	printf("%s\n", shown ? "" : " none");
}

static void print_socket(const struct crib_socket *s)
{
	static const char *const families[] = { [1] = "unix", [2] = "inet", [10] = "inet6",
						[16] = "netlink", [17] = "packet" };
	static const char *const types[] = { [1] = "stream", [2] = "dgram", [3] = "raw",
					     [5] = "seqpacket" };
	const char *fam = s->family < 18 && families[s->family] ? families[s->family] : "?";
	const char *type = s->type < 6 && types[s->type] ? types[s->type] : "?";
	const char *state = crib_socket_state_name(s);

	printf("socket fd %" PRIu64 ": %s %s proto %" PRIu64 " ", s->fd, fam, type, s->protocol);
	if (strcmp(state, "unknown"))
		printf("%s ", state);
	else
		printf("state %" PRIu64 " ", s->state);
	print_sockaddr(&s->local);
	printf(" -> ");
	print_sockaddr(&s->peer);
	printf("  queued recv %" PRIu64 " send %" PRIu64 " bytes\n", s->recv_queued,
	       s->send_queued);
	printf("    sock_id %" PRIu64, s->sock_id);
	if (s->peer_id)
		printf(" peer_id %" PRIu64, s->peer_id);
	if (s->backlog)
		printf(" backlog %" PRIu64, s->backlog);
	if (s->shutdown)
		printf(" shutdown%s%s", s->shutdown & 1 ? " read" : "", s->shutdown & 2 ? " write" : "");
	putchar('\n');
	if (s->protocol == 6 && s->type == 1)
		printf("    tcp snd_una %" PRIu64 " snd_nxt %" PRIu64 " write_seq %" PRIu64
		       " rcv_nxt %" PRIu64 " copied_seq %" PRIu64 " unsent %" PRIu64
		       "  wnd snd %" PRIu64 " rcv %" PRIu64 "  mss %" PRIu64 " wscale %s%" PRIu64
		       "/%" PRIu64 "%s%s\n",
		       s->tcp.snd_una, s->tcp.snd_nxt, s->tcp.write_seq, s->tcp.rcv_nxt,
		       s->tcp.copied_seq, s->tcp.unsent, s->tcp.snd_wnd, s->tcp.rcv_wnd,
		       s->tcp.mss_clamp, s->tcp.wscale_ok ? "" : "off ", s->tcp.snd_wscale,
		       s->tcp.rcv_wscale, s->tcp.sack ? " sack" : "",
		       s->tcp.timestamps ? " timestamps" : "");
	print_sockopts(s);
}

static void print_socket_queue(const struct crib_socket_queue *q)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < q->n_chunks; i++)
		bytes += q->chunks[i].data.len;
	printf("    %s queue of %" PRIu64 ", record %" PRIu64 ": %zu chunk%s, %" PRIu64 " bytes",
	       q->queue == CRIB_QUEUE_SEND ? "send" : "receive", q->sock_id, q->seq, q->n_chunks,
	       q->n_chunks == 1 ? "" : "s", bytes);
	if (q->n_chunks && q->chunks[0].src.family) {
		printf(", first from ");
		print_sockaddr(&q->chunks[0].src);
	}
	putchar('\n');
}

/* Any record without its own printer: scalar fields in one line. */
static void print_generic(const struct crib_record *rec)
{
	const struct crib_struct_desc *d = rec->info->body;

	printf("  %s:", rec->info->name);
	for (size_t i = 0; i < d->nfields; i++) {
		const struct crib_field *f = &d->fields[i];
		const uint8_t *p = (const uint8_t *)&rec->u + f->offset;

		switch (f->type) {
		case CRIB_FT_UINT:
			printf((f->flags & CRIB_FIELD_HEX) ? " %s=0x%" PRIx64 : " %s=%" PRIu64,
			       f->name, *(const uint64_t *)p);
			break;
		case CRIB_FT_INT:
			printf(" %s=%" PRId64, f->name, *(const int64_t *)p);
			break;
		case CRIB_FT_BOOL:
			printf(" %s=%s", f->name, *(const bool *)p ? "yes" : "no");
			break;
		case CRIB_FT_TEXT:
		case CRIB_FT_PATH:
			printf(" %s=\"", f->name);
			print_text(*(const char *const *)p);
			putchar('"');
			break;
		case CRIB_FT_BLOB:
			printf(" %s=%zu bytes", f->name, ((const struct crib_blob *)p)->len);
			break;
		case CRIB_FT_UINT_ARRAY:
		case CRIB_FT_STRUCT_ARRAY:
			printf(" %s=[%zu]", f->name,
			       *(const size_t *)((const uint8_t *)&rec->u + f->count_offset));
			break;
		default:
			break;
		}
	}
	putchar('\n');
}

/*
 * The start of a line of a process's file or socket: under the process's
 * own heading, an indent; without it (--section=files,net), its pid.
 */
static void print_owner(const struct summary *s, uint64_t pid)
{
	if (section_name_selected(s->o, "proc"))
		printf("  ");
	else
		printf("pid %" PRIu64 " ", pid);
}

static void print_record(struct summary *s, const struct crib_record *rec)
{
	if (rec->type != CRIB_REC_GHOST_DATA)
		flush_ghost_data(s);
	switch (rec->type) {
	case CRIB_REC_HEADER:
		print_header(&rec->u.header);
		break;
	case CRIB_REC_TRAILER:
		printf("\ntrailer: %" PRIu64 " records, %" PRIu64 " bytes, checksum %016" PRIx64
		       " verified\n", rec->u.trailer.records, rec->u.trailer.stream_bytes,
		       rec->u.trailer.checksum);
		break;
	case CRIB_REC_PROCESS:
		print_process(&rec->u.process);
		break;
	case CRIB_REC_THREAD:
		print_thread(&rec->u.thread);
		break;
	case CRIB_REC_SECCOMP_FILTER:
		print_seccomp_filter(&rec->u.seccomp_filter);
		break;
	case CRIB_REC_SECCOMP:
		print_seccomp(&rec->u.seccomp);
		break;
	case CRIB_REC_MM:
		print_mm(&rec->u.mm);
		break;
	case CRIB_REC_VMA:
		memmap_add_vma(s->memmap, &rec->u.vma);
		break;
	case CRIB_REC_PAGES:
		memmap_add_pages(s->memmap, &rec->u.pages);
		break;
	case CRIB_REC_FILE:
		print_owner(s, rec->u.file.pid);
		print_file(&rec->u.file);
		break;
	case CRIB_REC_PIPE:
		print_owner(s, rec->u.pipe.pid);
		print_pipe(&rec->u.pipe);
		break;
	case CRIB_REC_TIMERFD:
		print_owner(s, rec->u.timerfd.pid);
		print_timerfd(&rec->u.timerfd);
		break;
	case CRIB_REC_EPOLL_ITEM:
		print_owner(s, rec->u.epoll_item.pid);
		print_epoll_item(&rec->u.epoll_item);
		break;
	case CRIB_REC_INOTIFY_WATCH:
		print_owner(s, rec->u.inotify_watch.pid);
		print_inotify_watch(&rec->u.inotify_watch);
		break;
	case CRIB_REC_FILE_LOCK:
		print_owner(s, rec->u.file_lock.pid);
		print_file_lock(&rec->u.file_lock);
		break;
	case CRIB_REC_PIDFD:
		print_owner(s, rec->u.pidfd.pid);
		print_pidfd(&rec->u.pidfd);
		break;
	case CRIB_REC_TTY:
		print_owner(s, rec->u.tty.pid);
		print_tty(&rec->u.tty);
		break;
	case CRIB_REC_GHOST:
		print_ghost(&rec->u.ghost);
		break;
	case CRIB_REC_GHOST_DATA:
		s->ghost_bytes += rec->u.ghost_data.data.len;
		s->ghost_chunks++;
		break;
	case CRIB_REC_SOCKET:
		print_owner(s, rec->u.socket.pid);
		print_socket(&rec->u.socket);
		break;
	case CRIB_REC_SOCKET_QUEUE:
		print_socket_queue(&rec->u.socket_queue);
		break;
	case CRIB_REC_SOCKET_FILTER:
		printf("    filter: %zu instructions%s\n", rec->u.socket_filter.insns.len / 8,
		       rec->u.socket_filter.locked ? ", locked" : "");
		break;
	case CRIB_REC_SIGHAND:
		print_sighand(&rec->u.sighand);
		break;
	case CRIB_REC_SIGPENDING:
		print_sigpending(&rec->u.sigpending);
		break;
	case CRIB_REC_TIMERS:
		print_timers(&rec->u.timers);
		break;
	case CRIB_REC_NOTE:
		printf("note: ");
		print_text(rec->u.note.name);
		printf(" = ");
		print_text(rec->u.note.value);
		putchar('\n');
		break;
	default:
		if (rec->info)
			print_generic(rec);
		else
			printf("unknown %s record 0x%04x at offset %" PRIu64 " (%zu bytes), skipped\n",
			       crib_record_is_critical(rec->type) ? "critical" : "ancillary",
			       rec->type, rec->offset, rec->raw_len);
		break;
	}
}

int run_summary(const char *path, const struct options *o)
{
	struct summary s = { .o = o };
	struct crib_record rec;
	struct crib_reader *r;
	int fd, code, ret;

	r = open_snapshot(path, o, &fd, &code, NULL);
	if (!r)
		return code;
	s.memmap = memmap_new(crib_reader_header(r)->page_size);
	s.tree = proctree_new();
	if (!s.memmap || !s.tree) {
		fprintf(stderr, "crib-inspect: out of memory\n");
		code = EXIT_IO;
		goto out;
	}
	while ((ret = crib_reader_next(r, &rec)) > 0) {
		if (rec.type == CRIB_REC_PROCESS)
			proctree_add(s.tree, &rec.u.process);
		else if (rec.type == CRIB_REC_THREAD)
			proctree_count_thread(s.tree, rec.u.thread.pid);
		if (!rec.info)
			s.unknown++;
		if (section_selected(o, &rec) && !record_filtered_out(o, &rec))
			print_record(&s, &rec);
	}
	flush_ghost_data(&s);
	memmap_print(s.memmap);
	if (section_name_selected(o, "proc"))
		proctree_print(s.tree, o->have_pid ? &o->pid : NULL);
	if (s.unknown)
		printf("%" PRIu64 " unknown ancillary record%s skipped\n", s.unknown,
		       s.unknown == 1 ? "" : "s");
	code = EXIT_OK;
	if (ret < 0) {
		fflush(stdout);
		report_error(path, crib_reader_error(r));
		code = exit_code_for(crib_reader_error(r)->code);
	}
out:
	memmap_free(s.memmap);
	proctree_free(s.tree);
	close_snapshot(r, fd);
	return code;
}
