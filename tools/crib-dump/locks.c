// SPDX-License-Identifier: GPL-2.0
/*
 * File locks and leases (spec §5.3, file_lock).  dump_files tells which
 * files took a lock; for those, the kernel's own list is read from the
 * "lock:" lines of /proc/PID/fdinfo/FD, which it prints under the file's
 * lock context, keeping only the locks taken through this file by this
 * process (a POSIX lock, owned by its descriptor table) or by the file
 * itself (an OFD lock, a flock() or a lease, owned by the description).
 * A lock another process took through the same file is not listed: it is
 * that process's, and stays with it.
 *
 * A POSIX lock is written under the descriptor that shows it.  A lock of
 * a description shows under every descriptor of it, in every process:
 * it is written once, under the descriptor of the process whose PID the
 * kernel gave it (who took it; a restored process takes it again), or
 * under the first descriptor of the tree holding it when that process
 * is gone.
 *
 * Refused, naming the process, the descriptor and the lock: a lease
 * being broken (its breaker waits on a lease a restore cannot hand back
 * half-broken), a delegation, a mandatory lock, what the kernel prints
 * as none of the kinds above, and a POSIX lock on a file the process
 * also maps (closing the descriptor a restore maps it through drops it).
 * A process outside the tree waiting for one of these locks is fine:
 * waiters are not the holder's state.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crib-dump.h"

/* One lock a descriptor of the process shows. */
struct held_lock {
	int fd;
	uint32_t desc;			/* dump_files's id of its description */
	pid_t owner;			/* the PID the kernel gave it; -1 for OFD locks */
	uint64_t dev, ino;		/* the locked file (st_dev encoding) */
	struct crib_file_lock rec;
};

struct file_locks {
	ARRAY(struct held_lock) items;
};

/* The words of one "lock:" line, as lock_get_status() prints them. */
struct lock_line {
	char kind[16], state[16], type[16], where[64];
	long long pid, start;
	char end[32];
};

static int parse_line(const char *line, struct lock_line *l)
{
	long long id;

	/* "1: POSIX  ADVISORY  WRITE 123 08:01:456 0 EOF" */
	return sscanf(line, "%lld: %15s %15s %15s %lld %63s %lld %31s", &id, l->kind, l->state,
		      l->type, &l->pid, l->where, &l->start, l->end) == 8 ? 0 : -1;
}

static int refuse(struct dump_job *job, int fd, const char *path, const char *line,
		  const char *why)
{
	return tool_fail(&job->err, 0, "process %d, fd %d (%s): %s (\"%s\"): that cannot be "
			 "restored", (int)job->pid, fd, path, why, line);
}

static int lock_kind(const struct lock_line *l, uint64_t *kind)
{
	if (!strcmp(l->kind, "POSIX"))
		*kind = CRIB_LOCK_POSIX;
	else if (!strcmp(l->kind, "OFDLCK"))
		*kind = CRIB_LOCK_OFD;
	else if (!strcmp(l->kind, "FLOCK"))
		*kind = CRIB_LOCK_FLOCK;
	else if (!strcmp(l->kind, "LEASE"))
		*kind = CRIB_LOCK_LEASE;
	else
		return -1;
	return 0;
}

/* The range of a byte-range lock: its last byte, or "EOF" for one that runs on. */
static int lock_range(const struct lock_line *l, struct crib_file_lock *rec)
{
	char *end;
	unsigned long long last;

	if (l->start < 0)
		return -1;
	rec->start = (uint64_t)l->start;
	if (!strcmp(l->end, "EOF"))
		return 0;
	errno = 0;
	last = strtoull(l->end, &end, 10);
	if (errno || *end || last < rec->start)
		return -1;
	rec->len = last - rec->start + 1;
	return 0;
}

/* One "lock:" line of fd @fd into @h, or the reason it is refused. */
static int read_line(struct dump_job *job, int fd, const char *path, const char *line,
		     struct held_lock *h)
{
	struct lock_line l;
	bool ranged;

	if (parse_line(line, &l))
		return tool_fail(&job->err, 0, "process %d, fd %d: cannot parse the lock \"%s\" "
				 "of its fdinfo", (int)job->pid, fd, line);
	if (!strcmp(l.kind, "DELEG"))
		return refuse(job, fd, path, line, "it holds an NFS delegation");
	if (lock_kind(&l, &h->rec.kind))
		return refuse(job, fd, path, line, "it holds a lock of a kind crib does not know");
	if (!strcmp(l.state, "BREAKING"))
		return refuse(job, fd, path, line, "its lease is being broken");
	if (strcmp(l.state, "ADVISORY") && strcmp(l.state, "ACTIVE"))
		return refuse(job, fd, path, line, "it holds a mandatory lock");
	if (!strcmp(l.type, "READ"))
		h->rec.type = CRIB_LOCK_READ;
	else if (!strcmp(l.type, "WRITE"))
		h->rec.type = CRIB_LOCK_WRITE;
	else
		return refuse(job, fd, path, line, "it holds a lock of neither type");
	ranged = h->rec.kind == CRIB_LOCK_POSIX || h->rec.kind == CRIB_LOCK_OFD;
	if (ranged && lock_range(&l, &h->rec))
		return tool_fail(&job->err, 0, "process %d, fd %d: cannot parse the range of the "
				 "lock \"%s\" of its fdinfo", (int)job->pid, fd, line);
	/*
	 * A restore opens a mapped file once more to map it, and closing that
	 * descriptor would drop every POSIX lock of the process on the file.
	 */
	if (h->rec.kind == CRIB_LOCK_POSIX && mm_maps_file(job, h->dev, h->ino))
		return refuse(job, fd, path, line, "it holds a POSIX lock on a file it also maps "
			      "(a restore maps it through a descriptor of its own, and closing "
			      "that drops the process's locks on the file)");
	h->rec.pid = (uint64_t)job->pid;
	h->rec.fd = (uint64_t)fd;
	h->fd = fd;
	h->owner = (pid_t)l.pid;
	return 0;
}

int locks_read(struct dump_job *job, const struct dump_file_rec *k, const char *path)
{
	char name[64], line[256];
	struct held_lock *h;
	FILE *f;
	size_t len;
	int ret = 0;

	if (!job->locks) {
		job->locks = calloc(1, sizeof(*job->locks));
		if (!job->locks)
			return tool_fail(&job->err, 0, "out of memory");
	}
	snprintf(name, sizeof(name), "/proc/%d/fdinfo/%d", (int)job->pid, k->fd);
	f = fopen(name, "re");
	if (!f)
		return tool_fail(&job->err, errno, "cannot read the locks of fd %d", k->fd);
	while (!ret && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "lock:\t", 6))
			continue;
		len = strlen(line);
		if (len && line[len - 1] == '\n')
			line[len - 1] = '\0';
		h = array_push(&job->locks->items);
		if (!h) {
			ret = tool_fail(&job->err, 0, "out of memory");
			break;
		}
		*h = (struct held_lock){ .desc = k->desc, .dev = kernel_dev_to_st_dev(k->dev),
					 .ino = k->ino };
		ret = read_line(job, k->fd, path, line + 6, h);
	}
	fclose(f);
	return ret;
}

static bool same_lock(const struct held_lock *a, const struct held_lock *b)
{
	return a->desc == b->desc && a->rec.kind == b->rec.kind && a->rec.type == b->rec.type &&
	       a->rec.start == b->rec.start && a->rec.len == b->rec.len;
}

/*
 * Whether @h, a lock of a description, is written under this descriptor:
 * the first one showing it in the process that took it, or in the tree
 * when that process is not in it.
 */
static bool writes_description_lock(const struct dump_job *job, const struct held_lock *h)
{
	const struct held_lock *first = NULL, *o;
	const struct dump_job *p;
	size_t i, j;

	for (i = 0; i < job->tree->procs.n; i++) {
		p = job->tree->procs.items[i];
		for (j = 0; p->locks && j < p->locks->items.n; j++) {
			o = &p->locks->items.items[j];
			if (!same_lock(o, h))
				continue;
			if (p->pid == h->owner)
				return o == h;
			if (!first)
				first = o;
		}
	}
	return first == h;
}

int locks_write(struct dump_job *job)
{
	const struct held_lock *h;
	size_t i;

	for (i = 0; job->locks && i < job->locks->items.n; i++) {
		h = &job->locks->items.items[i];
		if (h->rec.kind != CRIB_LOCK_POSIX && !writes_description_lock(job, h))
			continue;
		if (crib_write_file_lock(job->writer, &h->rec))
			return tool_fail(&job->err, 0, "writing a lock of fd %d: %s", h->fd,
					 crib_writer_error(job->writer)->msg);
	}
	return 0;
}

void locks_free(struct dump_job *job)
{
	if (!job->locks)
		return;
	array_free(&job->locks->items);
	free(job->locks);
	job->locks = NULL;
}
