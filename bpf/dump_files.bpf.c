// SPDX-License-Identifier: GPL-2.0
/*
 * crib-dump: every open descriptor of a process, in descriptor order,
 * through the task_file open-coded iterator.  When the ring buffer fills
 * up the program stops with DUMP_NO_ROOM; user space drains it and runs the
 * program again, skipping the descriptors below ctx->start.
 *
 * Descriptors that share an open file description (dup(), fork()) point
 * to one struct file: the program numbers files as it meets them, in a map
 * that lives as long as the loaded program, so every run of one dump, for
 * every process of the tree, gives one file one number, and the file's
 * address stays in the kernel.  A pipe's or FIFO's counts of readers and
 * writers tell crib-dump whether all of its ends are in the tree.
 *
 * Paths are resolved by crib-dump, as for VMAs (see dump_mm.bpf.c).
 *
 * Event files are recognised by asking the eventfd, timerfd, signalfd and
 * epoll kfuncs in turn, each of which refuses a file of another kind, and
 * their state travels in the file's record.  The items an epoll watches
 * are many, so dump_epoll sends them, one epoll at a time: each names the
 * watched file by the number dump_files gives it, so crib-dump finds which
 * descriptor of the tree holds it; a number no descriptor has is a file
 * outside the tree.  An inotify's watches are listed by dump_inotify, a
 * sleepable program: naming the watched inode may sleep.  Both copy the
 * items in batches, each under the lock of the epoll or inotify, which the
 * kfunc drops before it returns: a program never holds a lock of the
 * process it dumps.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "dump.h"
#include "crib_kfuncs.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} file_records SEC(".maps");

/* Why the task_file iterator stopped early, as a dump result. */
static __always_inline int iter_result(int err)
{
	if (!err)
		return DUMP_OK;
	return err == -EAGAIN ? DUMP_BUSY : DUMP_NO_ACCESS;
}

/* struct file address -> its number, from 1.  Files of a frozen tree stay put. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DUMP_MAX_DESCS);
	__type(key, __u64);
	__type(value, __u32);
} desc_ids SEC(".maps");

__u32 next_desc_id;

#define S_IFMT		00170000
#define S_IFIFO		0010000

/* FD_CLOEXEC lives in the descriptor table, not in the file. */
static __always_inline __u32 fd_cloexec(struct task_struct *task, int fd)
{
	struct files_struct *files = task->files;
	unsigned long word = 0;
	struct fdtable *fdt;

	if (!files)
		return 0;
	fdt = files->fdt;
	if (!fdt || (unsigned int)fd >= fdt->max_fds)
		return 0;
	bpf_probe_read_kernel(&word, sizeof(word), fdt->close_on_exec + (unsigned int)fd / 64);
	return (word >> ((unsigned int)fd % 64)) & 1;
}

/* The offset of @field in @type, relocated to the running kernel's layout. */
#define FIELD_OFFSET(type, field) \
	__builtin_preserve_field_info(((type *)0)->field, BPF_CORE_FIELD_BYTE_OFFSET)

/*
 * Whether @file took a lock on the list at @head (a file_lock_context's):
 * a POSIX lock's, an OFD or flock() lock's or a lease's flc_file.  Only the
 * first DUMP_MAX_LOCKS_WALKED are looked at; a longer list counts as taken,
 * so that crib-dump reads the file's locks (which the kernel lists in its
 * fdinfo, under the list's spinlock) rather than lose one.  The numbers iterator
 * has the verifier check the walk's body until its states converge, not
 * once per step.  The list is read without its spinlock, which a CRIB
 * program cannot take: the tree is frozen, and another process's lock
 * coming or going is not ours.
 */
static __always_inline __u32 lock_taken(__u64 head, __u64 file)
{
	__u64 flc_list = FIELD_OFFSET(struct file_lock_core, flc_list);
	__u64 flc_file = FIELD_OFFSET(struct file_lock_core, flc_file);
	struct bpf_iter_num it;
	__u64 pos = 0, owner;
	__u32 taken = 1;	/* unless the walk reaches the list's end */

	if (bpf_probe_read_kernel(&pos, sizeof(pos), (void *)head))
		return 1;
	bpf_iter_num_new(&it, 0, DUMP_MAX_LOCKS_WALKED);
	while (bpf_iter_num_next(&it)) {
		if (!pos || pos == head) {
			taken = 0;
			break;
		}
		owner = 0;
		bpf_probe_read_kernel(&owner, sizeof(owner), (void *)(pos - flc_list + flc_file));
		if (owner == file ||
		    bpf_probe_read_kernel(&pos, sizeof(pos), (void *)pos))
			break;
	}
	bpf_iter_num_destroy(&it);
	return taken;
}

static __always_inline __u32 file_locks(struct inode *inode, struct file *file)
{
	struct file_lock_context *flctx = inode->i_flctx;
	__u64 base;

	if (!flctx)
		return 0;
	base = (__u64)flctx;
	if (lock_taken(base + FIELD_OFFSET(struct file_lock_context, flc_flock), (__u64)file))
		return 1;
	if (lock_taken(base + FIELD_OFFSET(struct file_lock_context, flc_posix), (__u64)file))
		return 1;
	return lock_taken(base + FIELD_OFFSET(struct file_lock_context, flc_lease), (__u64)file);
}

/* Who gets the file's SIGIO, by its number in the initial pid namespace. */
static __always_inline void read_owner(struct file *file, struct dump_file_rec *f)
{
	struct fown_struct *fown = file->f_owner;
	struct pid *pid;

	if (!fown)
		return;
	f->owner_signum = fown->signum;
	pid = fown->pid;
	if (!pid)
		return;
	f->owner_pid = pid->numbers[0].nr;
	f->owner_type = fown->pid_type;
}

/* The number of the description at @file's address; 0 when the map is full. */
static __always_inline __u32 desc_id(__u64 file)
{
	__u64 key = file;
	__u32 *found, id;

	found = bpf_map_lookup_elem(&desc_ids, &key);
	if (found)
		return *found;
	id = ++next_desc_id;
	if (bpf_map_update_elem(&desc_ids, &key, &id, BPF_NOEXIST))
		return 0;
	return id;
}

/* The kind and state of an event file; DUMP_BUSY for an epoll or inotify in use. */
static __always_inline int read_event_file(struct file *file, struct dump_file_rec *f)
{
	struct bpf_crib_inotify_watch watch;
	struct bpf_crib_epoll_item item;
	struct bpf_crib_timerfd timer;
	struct bpf_crib_eventfd efd;
	int n;

	if (!bpf_eventfd_get_state(file, &efd)) {
		f->event = DUMP_EVENT_EVENTFD;
		f->count = efd.count;
		f->event_flags = efd.flags;
	} else if (!bpf_timerfd_get_state(file, &timer)) {
		f->event = DUMP_EVENT_TIMERFD;
		f->clockid = timer.clockid;
		f->event_flags = timer.settime_flags;
		f->count = timer.ticks;
		f->value_ns = timer.value;
		f->interval_ns = timer.interval;
	} else if (!bpf_signalfd_get_mask(file, &f->sigmask)) {
		f->event = DUMP_EVENT_SIGNALFD;
	} else {
		/* asked for one item from the first, they count them all */
		n = bpf_epoll_get_items(file, 0, &item, sizeof(item));
		if (n == -EAGAIN)
			return DUMP_BUSY;
		if (n >= 0) {
			f->event = DUMP_EVENT_EPOLL;
			f->count = n;
			return DUMP_OK;
		}
		n = bpf_inotify_get_watches(file, 0, &watch, sizeof(watch));
		if (n == -EAGAIN)
			return DUMP_BUSY;
		if (n >= 0) {
			f->event = DUMP_EVENT_INOTIFY;
			f->count = n;
			n = bpf_inotify_get_queued(file);
			f->queued = n > 0 ? n : 0;
		}
	}
	return DUMP_OK;
}

SEC("crib")
int dump_files(struct dump_ctx *ctx)
{
	struct bpf_iter_task_file it;
	struct task_struct *task;
	struct dump_file_rec *f;
	struct inode *inode;
	struct file *file;
	int fd, ret = DUMP_OK;

	task = bpf_crib_task_from_vpid(ctx->pid);
	if (!task)
		return DUMP_NO_TASK;
	bpf_iter_task_file_new(&it, task);
	while ((file = bpf_iter_task_file_next(&it))) {
		fd = bpf_iter_task_file_get_fd(&it);
		if (fd < (s64)ctx->start)
			continue;
		f = bpf_ringbuf_reserve(&file_records, sizeof(*f), 0);
		if (!f) {
			ret = DUMP_NO_ROOM;
			break;
		}
		dump_zero(f, sizeof(*f));
		inode = file->f_inode;
		f->kind = DUMP_REC_FILE;
		f->fd = fd;
		f->f_flags = file->f_flags;
		f->f_mode = file->f_mode;
		f->pos = file->f_pos;
		f->ino = inode->i_ino;
		f->size = inode->i_size;
		f->dev = inode->i_sb->s_dev;
		f->i_mode = inode->i_mode;
		f->rdev = inode->i_rdev;
		f->cloexec = fd_cloexec(task, fd);
		f->desc = desc_id((__u64)file);
		f->locks = file_locks(inode, file);
		read_owner(file, f);
		if ((inode->i_mode & S_IFMT) == S_IFIFO && inode->i_pipe) {
			f->pipe_readers = inode->i_pipe->readers;
			f->pipe_writers = inode->i_pipe->writers;
		}
		/* anonymous inodes have no type bits: only those can be event files */
		if (!(inode->i_mode & S_IFMT)) {
			ret = read_event_file(file, f);
			if (ret != DUMP_OK) {
				bpf_ringbuf_discard(f, 0);
				break;
			}
		}
		bpf_ringbuf_submit(f, 0);
	}
	if (ret == DUMP_OK)
		ret = iter_result(bpf_iter_task_file_get_err(&it));
	bpf_iter_task_file_destroy(&it);
	bpf_task_release(task);
	return ret;
}

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} epoll_records SEC(".maps");

/*
 * Epoll items and inotify watches copied per kfunc call, on the stack; a
 * run reads at most DUMP_MAX_BATCHES batches, and the next run resumes.
 */
#define EVENT_BATCH		8
#define DUMP_MAX_BATCHES	(1 << 16)

/* The file at descriptor ctx->fd of process ctx->pid, referenced; or NULL and why. */
static __always_inline struct file *file_at(const struct dump_epoll_ctx *ctx, int *ret)
{
	struct task_struct *task;
	struct file *file;

	task = bpf_crib_task_from_vpid(ctx->pid);
	if (!task) {
		*ret = DUMP_NO_TASK;
		return NULL;
	}
	file = bpf_file_from_task_fd(task, ctx->fd);
	bpf_task_release(task);
	*ret = file ? DUMP_OK : DUMP_NO_ACCESS;
	return file;
}

/* Send @items, @n of which were copied, from item number *@index on. */
static __always_inline int send_epoll_items(const struct bpf_crib_epoll_item *items, int n,
					    __u64 *index)
{
	struct dump_epoll_item_rec *r;
	int i;

	for (i = 0; i < EVENT_BATCH && i < n; i++) {
		r = bpf_ringbuf_reserve(&epoll_records, sizeof(*r), 0);
		if (!r)
			return DUMP_NO_ROOM;
		r->kind = DUMP_REC_EPOLL_ITEM;
		r->tfd = items[i].fd;
		r->index = (*index)++;
		r->events = items[i].events;
		r->data = items[i].data;
		r->desc = desc_id(items[i].file);
		bpf_ringbuf_submit(r, 0);
	}
	return DUMP_OK;
}

SEC("crib")
int dump_epoll(struct dump_epoll_ctx *ctx)
{
	struct bpf_crib_epoll_item items[EVENT_BATCH];
	__u64 index = ctx->start;
	struct bpf_iter_num it;
	struct file *file;
	int n, ret;

	file = file_at(ctx, &ret);
	if (!file)
		return ret;
	for_each_step(it, DUMP_MAX_BATCHES) {
		n = bpf_epoll_get_items(file, index, items, sizeof(items));
		if (n < 0) {
			ret = iter_result(n);
			break;
		}
		ret = send_epoll_items(items, n, &index);
		if (ret != DUMP_OK || n <= EVENT_BATCH)
			break;
	}
	bpf_iter_num_destroy(&it);
	bpf_put_file(file);
	return ret;
}

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} inotify_records SEC(".maps");

/* Send @watches of @file, @n of which were copied, from watch number *@index on. */
static __always_inline int send_inotify_watches(struct file *file,
						const struct bpf_crib_inotify_watch *watches,
						int n, __u64 *index)
{
	struct dump_inotify_watch_rec *r;
	int i;

	for (i = 0; i < EVENT_BATCH && i < n; i++) {
		r = bpf_ringbuf_reserve(&inotify_records, sizeof(*r), 0);
		if (!r)
			return DUMP_NO_ROOM;
		r->kind = DUMP_REC_INOTIFY_WATCH;
		r->index = (*index)++;
		r->wd = watches[i].wd;
		r->mask = watches[i].mask;
		r->dev_major = watches[i].dev_major;
		r->dev_minor = watches[i].dev_minor;
		r->ino = watches[i].ino;
		/* a watch being removed has no descriptor, and no path */
		if (watches[i].wd < 0)
			r->path_len = -ENOENT;
		else
			r->path_len = bpf_inotify_watch_get_path(file, watches[i].wd, r->path,
								 sizeof(r->path));
		bpf_ringbuf_submit(r, 0);
	}
	return DUMP_OK;
}

SEC("crib.s")
int dump_inotify(struct dump_epoll_ctx *ctx)
{
	struct bpf_crib_inotify_watch watches[EVENT_BATCH];
	__u64 index = ctx->start;
	struct bpf_iter_num it;
	struct file *file;
	int n, ret;

	file = file_at(ctx, &ret);
	if (!file)
		return ret;
	for_each_step(it, DUMP_MAX_BATCHES) {
		n = bpf_inotify_get_watches(file, index, watches, sizeof(watches));
		if (n < 0) {
			ret = iter_result(n);
			break;
		}
		ret = send_inotify_watches(file, watches, n, &index);
		if (ret != DUMP_OK || n <= EVENT_BATCH)
			break;
	}
	bpf_iter_num_destroy(&it);
	bpf_put_file(file);
	return ret;
}
