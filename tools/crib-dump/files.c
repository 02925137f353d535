// SPDX-License-Identifier: GPL-2.0
/*
 * File and pipe records.  The dump_files CRIB program walks the descriptor
 * table with the task_file iterator and reports each file's flags,
 * position, inode, FD_CLOEXEC, the open file description it refers to and,
 * for a pipe, how many descriptions read and write it; this file names the
 * files, classifies them, refuses what cannot be represented yet, and
 * reads queued pipe data.  Memfds and unlinked files are ghost.c's, the
 * locks of a file that took one locks.c's, what a pidfd refers to
 * pidfd.c's, pseudo-terminals tty.c's.
 *
 * Across the tree, descriptions and pipes are numbered in the order the
 * snapshot meets them (files_share()): descriptors sharing a description
 * (dup(), fork()) name one number, and so do the ends of one pipe, in any
 * process.  A pipe's bytes are written once, with its first descriptor.
 *
 * Pipe contents are copied with tee(2) from a descriptor opened through
 * /proc/PID/fd/N (which opens the same pipe, read side, whichever end the
 * process holds): tee duplicates the queued bytes without consuming them,
 * so the pipe is left as it was if the process runs on.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "crib-dump.h"
#include "dump_files.skel.h"
#include "filetime.h"
#include "kabi.h"

struct file_entry {
	struct dump_file_rec k;
	uint64_t type;		/* enum crib_file_type */
	char *path;
	uint64_t desc;		/* its description's number in the snapshot */
	uint64_t ghost_id;	/* memfds and unlinked files: ghost.c */
	struct shared_pipe *pipe;	/* pipes and FIFOs */
};

struct file_list {
	struct file_entry *items;
	size_t n;
};

/* A pipe or FIFO of the tree. */
struct shared_pipe {
	uint64_t ino;
	uint32_t dev;
	uint64_t id;			/* its number in the snapshot */
	uint32_t readers, writers;	/* the kernel's count of its descriptions */
	uint32_t tree_readers, tree_writers;	/* those the tree holds */
	bool data_written;
};

/* What the tree's processes share of files (files_share()). */
struct shared_files {
	uint64_t *desc_number;		/* by dump_files's id */
	size_t n_desc_ids;
	ARRAY(struct shared_pipe *) pipes;
};

/* The walk goes on from the descriptor after the last one that arrived. */
static uint64_t after_file(const void *last)
{
	return (uint64_t)((const struct dump_file_rec *)last)->fd + 1;
}

int files_collect(struct dump_job *job, struct record_list *recs)
{
	return programs_walk(job, &job->progs.files, job->progs.file_records, after_file, recs);
}

static uint64_t file_type(const struct dump_file_rec *k, const char *path)
{
	/* Not every anonymous file lacks type bits: 6.12's pidfds are S_IFREG. */
	if (pidfd_is_pidfd(path))
		return CRIB_FILE_PIDFD;
	if (!strncmp(path, "anon_inode:", 11))
		return events_file_type(k);
	switch (k->i_mode & S_IFMT) {
	case S_IFREG:
		return strncmp(path, "/memfd:", 7) ? CRIB_FILE_REGULAR : CRIB_FILE_MEMFD;
	case S_IFDIR: return CRIB_FILE_DIR;
	case S_IFCHR: return CRIB_FILE_CHARDEV;
	case S_IFBLK: return CRIB_FILE_BLOCKDEV;
	/* a pipe is named "pipe:[inode]", a FIFO by its path */
	case S_IFIFO: return strncmp(path, "pipe:[", 6) ? CRIB_FILE_FIFO : CRIB_FILE_PIPE;
	case S_IFSOCK: return CRIB_FILE_SOCKET;
	case S_IFLNK: return CRIB_FILE_SYMLINK;
	default: return events_file_type(k);	/* anon inodes have no type bits */
	}
}

static int add_file(struct dump_job *job, const struct dump_file_rec *k, struct file_entry *e)
{
	char what[32], path[PATH_MAX];
	int ret;

	snprintf(what, sizeof(what), "fd/%d", k->fd);
	ret = proc_readlink(job->pid, what, path, sizeof(path));
	if (ret)
		return tool_fail(&job->err, -ret, "cannot resolve fd %d", k->fd);
	e->k = *k;
	e->type = file_type(k, path);
	if (e->type == CRIB_FILE_ANON_INODE)
		return tool_fail(&job->err, 0, "cannot dump fd %d (%s): this kind of file is not "
				 "supported yet", k->fd, path);
	if (!k->desc)
		return tool_fail(&job->err, 0, "fd %d: the tree has more open files than the %d "
				 "a dump numbers", k->fd, DUMP_MAX_DESCS);
	if (k->locks && locks_read(job, k, path))
		return -1;
	if (e->type == CRIB_FILE_PIDFD && pidfd_read(job, k))
		return -1;
	if (tty_is_terminal(k) && tty_read(job, k, path))
		return -1;
	e->path = strdup(path);
	if (!e->path)
		return tool_fail(&job->err, 0, "out of memory");
	return 0;
}

static struct shared_pipe *find_pipe(struct shared_files *sf, const struct dump_file_rec *k)
{
	struct shared_pipe **slot, *p;
	size_t i;

	for (i = 0; i < sf->pipes.n; i++)
		if (sf->pipes.items[i]->ino == k->ino && sf->pipes.items[i]->dev == k->dev)
			return sf->pipes.items[i];
	p = calloc(1, sizeof(*p));
	slot = p ? array_push(&sf->pipes) : NULL;
	if (!slot) {
		free(p);
		return NULL;
	}
	*p = (struct shared_pipe){ .ino = k->ino, .dev = k->dev, .id = sf->pipes.n,
				   .readers = k->pipe_readers, .writers = k->pipe_writers };
	*slot = p;
	return p;
}

/*
 * One descriptor, in snapshot order: its description numbered if it is
 * the first of it; its pipe numbered, and its description counted among
 * the pipe's readers or writers, likewise; a memfd or unlinked file
 * noted as a ghost (ghost.c).
 */
static int share_one(struct dump_tree *tree, pid_t job_pid, struct shared_files *sf,
		     struct file_entry *e, uint64_t *next)
{
	uint64_t *number = &sf->desc_number[e->k.desc];
	bool first = !*number;
	char what[32];

	if (first)
		*number = ++*next;
	e->desc = *number;
	if (e->type == CRIB_FILE_REGULAR || e->type == CRIB_FILE_MEMFD) {
		snprintf(what, sizeof(what), "fd/%d", e->k.fd);
		return ghost_note(tree, job_pid, what, e->path, &e->ghost_id);
	}
	if (!crib_file_is_pipe(e->type))
		return 0;
	e->pipe = find_pipe(sf, &e->k);
	if (!e->pipe)
		return tool_fail(&tree->err, 0, "out of memory");
	if (first) {
		e->pipe->tree_readers += !!(e->k.f_mode & FMODE_READ);
		e->pipe->tree_writers += !!(e->k.f_mode & FMODE_WRITE);
	}
	return 0;
}

/* A restore gives a file's SIGIO to the same thread, process or group: one of the tree. */
static int check_owner(struct dump_tree *tree, const struct dump_job *job,
		       const struct file_entry *e)
{
	static const char *const kind[] = { "thread", "process", "process group" };
	const struct dump_file_rec *k = &e->k;

	if (!k->owner_pid)
		return 0;
	if (k->owner_type > PIDTYPE_PGID)
		return tool_fail(&tree->err, 0, "process %d, fd %d: its SIGIO goes to a session, "
				 "which a snapshot does not carry", (int)job->pid, k->fd);
	if (!tree_holds(tree, k->owner_type, k->owner_pid))
		return tool_fail(&tree->err, 0, "process %d, fd %d (%s): its SIGIO goes to %s %d "
				 "(F_SETOWN), outside the tree: that cannot be restored",
				 (int)job->pid, k->fd, e->path, kind[k->owner_type], k->owner_pid);
	return 0;
}

int files_share(struct dump_tree *tree)
{
	struct shared_files *sf = calloc(1, sizeof(*sf));
	struct dump_job *job;
	uint64_t next = 0;
	size_t i, j;

	if (!sf)
		return tool_fail(&tree->err, 0, "out of memory");
	tree->files = sf;
	for (i = 0; i < tree->procs.n; i++)
		for (j = 0; tree->procs.items[i]->files && j < tree->procs.items[i]->files->n; j++)
			if (tree->procs.items[i]->files->items[j].k.desc >= sf->n_desc_ids)
				sf->n_desc_ids = tree->procs.items[i]->files->items[j].k.desc + 1;
	sf->desc_number = calloc(sf->n_desc_ids + 1, sizeof(*sf->desc_number));
	if (!sf->desc_number)
		return tool_fail(&tree->err, 0, "out of memory");
	for (i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		for (j = 0; job->files && j < job->files->n; j++)
			if (share_one(tree, job->pid, sf, &job->files->items[j], &next) ||
			    check_owner(tree, job, &job->files->items[j]))
				return -1;
	}
	return tty_share(tree);
}

bool files_find_desc(const struct dump_tree *tree, uint32_t desc, pid_t *pid, int *fd)
{
	const struct dump_job *job;
	size_t i, j;

	for (i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		for (j = 0; job->files && j < job->files->n; j++) {
			if (job->files->items[j].k.desc == desc) {
				*pid = job->pid;
				*fd = job->files->items[j].k.fd;
				return true;
			}
		}
	}
	return false;
}

void files_free_shared(struct dump_tree *tree)
{
	struct shared_files *sf = tree->files;

	if (!sf)
		return;
	for (size_t i = 0; i < sf->pipes.n; i++)
		free(sf->pipes.items[i]);
	array_free(&sf->pipes);
	free(sf->desc_number);
	free(sf);
	tree->files = NULL;
}

int files_read(struct dump_job *job)
{
	struct record_list recs = { .kind = DUMP_REC_FILE, .size = sizeof(struct dump_file_rec) };
	struct file_list *list;
	size_t i;
	int ret = -1;

	list = calloc(1, sizeof(*list));
	if (!list)
		return tool_fail(&job->err, 0, "out of memory");
	job->files = list;
	if (files_collect(job, &recs))
		goto out;
	list->items = calloc(recs.n ? recs.n : 1, sizeof(*list->items));
	if (!list->items) {
		tool_fail(&job->err, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < recs.n; i++, list->n++)
		if (add_file(job, (const struct dump_file_rec *)recs.items + i, &list->items[i]))
			goto out;
	for (i = 0; i < list->n; i++)
		if (events_read_epoll(job, &list->items[i].k) ||
		    inotify_read(job, &list->items[i].k))
			goto out;
	ret = 0;
out:
	record_list_free(&recs);
	return ret;
}

static int write_file(struct dump_job *job, const struct file_entry *e)
{
	const struct dump_file_rec *k = &e->k;
	struct crib_file f = {
		.pid = job->pid, .fd = (uint64_t)k->fd, .cloexec = k->cloexec,
		.type = e->type, .flags = k->f_flags, .pos = k->pos,
		/* pipes, sockets and event files have no path, only a name ("pipe:[inode]") */
		.path = e->type == CRIB_FILE_PIPE || e->type == CRIB_FILE_SOCKET ||
			crib_file_is_event(e->type) ? "" : e->path,
		.dev = kernel_dev_to_st_dev(k->dev), .inode = k->ino,
		.size = k->size, .mode = k->i_mode, .desc = e->desc, .ghost_id = e->ghost_id,
	};

	if (k->owner_pid) {
		f.owner_pid = (uint64_t)k->owner_pid;
		f.owner_type = k->owner_type;	/* enum pid_type's order is F_OWNER_*'s */
	}
	f.signal = k->owner_signum;
	events_fill_file(k, &f);
	if (crib_write_file(job->writer, &f))
		return tool_fail(&job->err, 0, "writing the record of fd %d: %s", k->fd,
				 crib_writer_error(job->writer)->msg);
	return 0;
}

/*
 * The pipe behind @fd of the process: its size, how many bytes it holds
 * and, when @data is not NULL, those bytes, without consuming them.
 */
static int read_pipe_queue(struct dump_job *job, int fd, int *pipe_size, void **data,
			   int *queued, uint64_t *mtime_ns)
{
	struct stat st;
	char path[64];
	int src, tmp[2] = { -1, -1 }, ret = -1;
	ssize_t n, got = 0;

	if (data)
		*data = NULL;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)job->pid, fd);
	src = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (src < 0)
		return tool_fail(&job->err, errno, "cannot open the pipe of fd %d", fd);
	*pipe_size = fcntl(src, F_GETPIPE_SZ);
	if (*pipe_size < 0 || ioctl(src, FIONREAD, queued) || fstat(src, &st)) {
		tool_fail(&job->err, errno, "cannot query the pipe of fd %d", fd);
		goto out;
	}
	*mtime_ns = stat_mtime_ns(&st);
	if (!*queued || !data) {
		ret = 0;
		goto out;
	}
	*data = malloc(*queued);
	if (!*data || pipe2(tmp, O_CLOEXEC) || fcntl(tmp[1], F_SETPIPE_SZ, *pipe_size) < 0) {
		tool_fail(&job->err, errno, "cannot set up a copy of the pipe of fd %d", fd);
		goto out;
	}
	n = tee(src, tmp[1], *queued, SPLICE_F_NONBLOCK);
	while (n > 0 && got < n) {
		ssize_t r = read(tmp[0], (char *)*data + got, n - got);

		if (r <= 0)
			break;
		got += r;
	}
	if (n != *queued || got != n) {
		tool_fail(&job->err, 0, "cannot copy the %d bytes queued in the pipe of fd %d: %s",
			  *queued, fd, n < 0 ? strerror(errno) : "short copy");
		goto out;
	}
	ret = 0;
out:
	if (ret && data) {
		free(*data);
		*data = NULL;
	}
	if (tmp[0] >= 0)
		close(tmp[0]);
	if (tmp[1] >= 0)
		close(tmp[1]);
	close(src);
	return ret;
}

static uint64_t pipe_end(const struct file_entry *e)
{
	if ((e->k.f_mode & FMODE_READ) && (e->k.f_mode & FMODE_WRITE))
		return CRIB_PIPE_BOTH;
	return (e->k.f_mode & FMODE_WRITE) ? CRIB_PIPE_WRITE : CRIB_PIPE_READ;
}

/* Descriptions of the pipe outside the tree: the kernel counts more than the tree holds. */
static uint64_t ends_outside(const struct shared_pipe *sp)
{
	return (sp->readers > sp->tree_readers ? sp->readers - sp->tree_readers : 0) +
	       (sp->writers > sp->tree_writers ? sp->writers - sp->tree_writers : 0);
}

/* The pipe record of one pipe end, and the pipe's data once in the tree. */
static int write_pipe(struct dump_job *job, size_t i)
{
	const struct file_entry *e = &job->files->items[i];
	bool with_data = !e->pipe->data_written;
	struct crib_pipe p;
	int pipe_size = 0, queued = 0, ret = -1;
	uint64_t mtime_ns = 0;
	void *data = NULL;

	if (read_pipe_queue(job, e->k.fd, &pipe_size, with_data ? &data : NULL, &queued,
			    &mtime_ns))
		return -1;
	p = (struct crib_pipe) {
		.pid = job->pid, .fd = (uint64_t)e->k.fd, .pipe_id = e->pipe->id,
		.end = pipe_end(e), .pipe_size = (uint64_t)pipe_size, .queued = (uint64_t)queued,
		.ends_outside = ends_outside(e->pipe),
		/* a pipe made anew has new times; a FIFO is the filesystem's, kept */
		.mtime_ns = e->type == CRIB_FILE_FIFO ? mtime_ns : 0,
	};
	if (crib_write_pipe(job->writer, &p))
		goto fail;
	if (with_data && queued &&
	    crib_write_pipe_data(job->writer, p.pipe_id, data, (size_t)queued))
		goto fail;
	e->pipe->data_written = true;
	ret = 0;
	goto out;
fail:
	tool_fail(&job->err, 0, "writing the pipe of fd %d: %s", e->k.fd,
		  crib_writer_error(job->writer)->msg);
out:
	free(data);
	return ret;
}

int files_write(struct dump_job *job)
{
	size_t i;

	for (i = 0; i < job->files->n; i++)
		if (write_file(job, &job->files->items[i]))
			return -1;
	for (i = 0; i < job->files->n; i++)
		if (crib_file_is_pipe(job->files->items[i].type) && write_pipe(job, i))
			return -1;
	for (i = 0; i < job->files->n; i++)
		if (events_write_timerfd(job, &job->files->items[i].k))
			return -1;
	if (events_write_epolls(job) || inotify_write(job) || locks_write(job) ||
	    pidfd_write(job) || tty_write(job))
		return -1;
	dump_verbose(job, "%zu files\n", job->files->n);
	return 0;
}

size_t files_socket_count(const struct dump_job *job)
{
	size_t i, n = 0;

	for (i = 0; i < job->files->n; i++)
		n += job->files->items[i].type == CRIB_FILE_SOCKET;
	return n;
}

bool files_is_socket(const struct dump_job *job, int fd, uint64_t ino)
{
	size_t i;

	for (i = 0; i < job->files->n; i++)
		if (job->files->items[i].k.fd == fd)
			return job->files->items[i].type == CRIB_FILE_SOCKET &&
			       job->files->items[i].k.ino == ino;
	return false;
}

void files_free(struct dump_job *job)
{
	size_t i;

	if (!job->files)
		return;
	for (i = 0; i < job->files->n; i++)
		free(job->files->items[i].path);
	free(job->files->items);
	free(job->files);
	job->files = NULL;
}

size_t files_count(const struct dump_job *job)
{
	return job->files ? job->files->n : 0;
}
