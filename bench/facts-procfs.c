// SPDX-License-Identifier: GPL-2.0
/*
 * The procfs side of the benchmark: the facts the CRIB programs give,
 * gathered the way a procfs-based dumper does and parsed into the same
 * records.
 *
 *   process  /proc/PID/stat, status, limits, personality and auxv read
 *            and parsed; cwd, root and exe resolved
 *            (readlink) and stat()ed for their device and inode
 *   VMAs     /proc/PID/smaps (VmFlags is the only place for every VMA
 *            flag) or /proc/PID/maps, read in 64 KiB chunks and parsed
 *            line by line; /proc/PID/map_files/START-END stat()ed for the
 *            mode of each mapped file
 *   files    /proc/PID/fd listed; for each descriptor fd/N resolved
 *            (readlink) and stat()ed, fdinfo/N read and parsed
 *
 * What procfs does not show is left zero and out of the comparison: the
 * mm flags (coredump_filter shows some of them, but only in kernels with
 * ELF core dumps, which the benchmark's lacks), and the exact brk (procfs
 * gives the end of [heap], brk rounded up to a page).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "facts.h"

#define READ_CHUNK	(64 * 1024)
#define PAGE_SHIFT	12
#define FMODE_READ	0x1
#define FMODE_WRITE	0x2

/* Kernel VM_* flags that /proc/PID/maps shows (rwx, and p or s). */
#define VM_READ		0x1ull
#define VM_WRITE	0x2ull
#define VM_EXEC		0x4ull
#define VM_MAYSHARE	0x80ull
#define VM_PKEY_SHIFT	32
#define VM_PKEY_MASK	(0xfull << VM_PKEY_SHIFT)

/* The VmFlags mnemonics of fs/proc/task_mmu.c and their bits on x86_64. */
static const struct {
	char name[3];
	unsigned char bit;
} vm_flag_names[] = {
	{ "rd", 0 }, { "wr", 1 }, { "ex", 2 }, { "sh", 3 }, { "mr", 4 }, { "mw", 5 },
	{ "me", 6 }, { "ms", 7 }, { "gd", 8 }, { "um", 9 }, { "pf", 10 }, { "uw", 12 },
	{ "lo", 13 }, { "io", 14 }, { "sr", 15 }, { "rr", 16 }, { "dc", 17 }, { "de", 18 },
	{ "lf", 19 }, { "ac", 20 }, { "nr", 21 }, { "ht", 22 }, { "sf", 23 }, { "ar", 24 },
	{ "wf", 25 }, { "dd", 26 }, { "sd", 27 }, { "mm", 28 }, { "hg", 29 }, { "nh", 30 },
	{ "mg", 31 }, { "ui", 38 }, { "ss", 37 }, { "dp", 40 }, { "sl", 63 },
};

static uint64_t smaps_known_flags(void)
{
	uint64_t known = VM_PKEY_MASK;	/* from the ProtectionKey line */
	size_t i;

	for (i = 0; i < sizeof(vm_flag_names) / sizeof(vm_flag_names[0]); i++)
		known |= 1ull << vm_flag_names[i].bit;
	return known;
}

/* st_dev encoding to the kernel's (major << 20 | minor), as the programs send it. */
static uint32_t kernel_dev(dev_t dev)
{
	return (uint32_t)(major(dev) << 20 | minor(dev));
}

int procfs_reader_init(struct procfs_reader *r, pid_t pid, enum procfs_vma_source source,
		       struct tool_error *err)
{
	r->pid = pid;
	r->source = source;
	r->buf_size = READ_CHUNK;
	r->buf = malloc(r->buf_size + 1);
	if (!r->buf)
		return tool_fail(err, 0, "out of memory");
	return 0;
}

void procfs_reader_free(struct procfs_reader *r)
{
	free(r->buf);
	r->buf = NULL;
}

/* /proc/PID/@what, whole, into the reader's buffer (NUL-terminated); its length or -1. */
static ssize_t read_small(struct procfs_reader *r, const char *what, struct tool_error *err)
{
	char path[64];
	ssize_t n = 0, len = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)r->pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tool_fail(err, errno, "cannot open %s", path);
	while ((size_t)len < r->buf_size && (n = read(fd, r->buf + len, r->buf_size - len)) > 0)
		len += n;
	if (n < 0)
		len = tool_fail(err, errno, "cannot read %s", path);
	else if ((size_t)len == r->buf_size)
		len = tool_fail(err, 0, "%s is larger than %zu bytes", path, r->buf_size);
	else
		r->buf[len] = '\0';
	close(fd);
	return len;
}

/* The value after "@key:" in a status-like text, or NULL. */
static const char *field(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p) {
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return p + klen + 1;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static int parse_stat(struct procfs_reader *r, struct dump_task_rec *t, struct tool_error *err)
{
	unsigned long long v[52] = { 0 };
	const char *open_paren, *close_paren;
	char *p;
	int i;

	if (read_small(r, "stat", err) < 0)
		return -1;
	open_paren = strchr(r->buf, '(');
	close_paren = strrchr(r->buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return tool_fail(err, 0, "malformed /proc/%d/stat", (int)r->pid);
	memcpy(t->comm, open_paren + 1,
	       (size_t)(close_paren - open_paren - 1) < DUMP_COMM_LEN ?
	       (size_t)(close_paren - open_paren - 1) : DUMP_COMM_LEN);
	/* Fields are numbered from 1 as in proc(5); the state, 3, is a letter. */
	p = (char *)close_paren + 3;
	for (i = 4; i <= 51; i++) {
		v[i] = strtoull(p, &p, 10);
		if (*p != ' ' && *p != '\n')
			return tool_fail(err, 0, "malformed /proc/%d/stat (field %d)", (int)r->pid, i);
	}
	t->ppid = (int32_t)v[4];
	t->pgid = (int32_t)v[5];
	t->sid = (int32_t)v[6];
	t->attrs.nice = (int32_t)(long long)v[19];
	t->start_boottime = v[22] * (1000000000ull / (unsigned long long)sysconf(_SC_CLK_TCK));
	t->start_code = v[26];
	t->end_code = v[27];
	t->start_stack = v[28];
	t->attrs.rt_priority = (uint32_t)v[40];
	t->attrs.policy = (uint32_t)v[41];
	t->start_data = v[45];
	t->end_data = v[46];
	t->start_brk = v[47];
	t->arg_start = v[48];
	t->arg_end = v[49];
	t->env_start = v[50];
	t->env_end = v[51];
	return 0;
}

static int parse_ids(const char *text, const char *key, uint32_t *ids, int n)
{
	const char *p = field(text, key);
	char *end;
	int i;

	if (!p)
		return -1;
	for (i = 0; i < n; i++) {
		ids[i] = (uint32_t)strtoul(p, &end, 10);
		if (end == p)
			return -1;
		p = end;
	}
	return 0;
}

static int parse_status(struct procfs_reader *r, struct dump_task_rec *t, struct tool_error *err)
{
	static const char *const caps[] = { "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb" };
	struct dump_creds *c = &t->creds;
	__u64 *cap_fields[] = { &c->cap_inh, &c->cap_prm, &c->cap_eff, &c->cap_bnd,
				 &c->cap_amb };
	uint32_t uids[4], gids[4], one[1];
	const char *p;
	char *end;
	int i;

	if (read_small(r, "status", err) < 0)
		return -1;
	if (parse_ids(r->buf, "Pid", one, 1))
		goto bad;
	t->pid = (int32_t)one[0];
	if (parse_ids(r->buf, "Tgid", one, 1))
		goto bad;
	t->tgid = (int32_t)one[0];
	if (parse_ids(r->buf, "Threads", &t->nr_threads, 1) ||
	    parse_ids(r->buf, "Uid", uids, 4) || parse_ids(r->buf, "Gid", gids, 4))
		goto bad;
	c->uid = uids[0], c->euid = uids[1], c->suid = uids[2], c->fsuid = uids[3];
	c->gid = gids[0], c->egid = gids[1], c->sgid = gids[2], c->fsgid = gids[3];
	p = field(r->buf, "Groups");
	if (!p)
		goto bad;
	for (c->ngroups = 0;; c->ngroups++) {
		unsigned long g = strtoul(p, &end, 10);

		if (end == p)
			break;
		if (c->ngroups < DUMP_MAX_GROUPS)
			c->groups[c->ngroups] = (uint32_t)g;
		p = end;
	}
	p = field(r->buf, "Umask");
	if (!p)
		goto bad;
	t->umask = (uint32_t)strtoul(p, NULL, 8);
	p = field(r->buf, "NoNewPrivs");
	if (!p)
		goto bad;
	t->no_new_privs = (uint32_t)strtoul(p, NULL, 10);
	for (i = 0; i < 5; i++) {
		p = field(r->buf, caps[i]);
		if (!p)
			goto bad;
		*cap_fields[i] = strtoull(p, NULL, 16);
	}
	return 0;
bad:
	return tool_fail(err, 0, "malformed /proc/%d/status", (int)r->pid);
}

/* One limit column of /proc/PID/limits: a number or "unlimited". */
static uint64_t limit_value(const char *p)
{
	while (*p == ' ')
		p++;
	return strncmp(p, "unlimited", 9) ? strtoull(p, NULL, 10) : UINT64_MAX;
}

/*
 * fs/proc/base.c prints the limits in resource order under a header, as
 * "%-25s %-20s %-20s": the soft limit starts in column 26, the hard one
 * in column 47.
 */
static int parse_limits(struct procfs_reader *r, struct dump_task_rec *t, struct tool_error *err)
{
	char *line, *next;
	int i;

	if (read_small(r, "limits", err) < 0)
		return -1;
	line = strchr(r->buf, '\n');
	for (i = 0; i < DUMP_NR_RLIMITS; i++) {
		if (!line || !(next = strchr(line + 1, '\n')) || next - line < 48)
			return tool_fail(err, 0, "malformed /proc/%d/limits", (int)r->pid);
		line++;
		t->rlim[i].cur = limit_value(line + 26);
		t->rlim[i].max = limit_value(line + 47);
		line = next;
	}
	return 0;
}

static int parse_small_values(struct procfs_reader *r, struct procfs_facts *f,
			      struct tool_error *err)
{
	ssize_t len;

	if (read_small(r, "personality", err) < 0)
		return -1;
	f->task.personality = (uint32_t)strtoul(r->buf, NULL, 16);
	len = read_small(r, "auxv", err);
	if (len < 0)
		return -1;
	memcpy(f->task.auxv, r->buf,
	       (size_t)len < sizeof(f->task.auxv) ? (size_t)len : sizeof(f->task.auxv));
	return 0;
}

/* cwd, root or exe: the path, and the device and inode it names. */
static int resolve_link(struct procfs_reader *r, const char *what, char *path, size_t size,
			struct dump_inode_id *id, struct tool_error *err)
{
	char proc_path[64];
	struct stat st;
	ssize_t len;

	snprintf(proc_path, sizeof(proc_path), "/proc/%d/%s", (int)r->pid, what);
	len = readlink(proc_path, path, size - 1);
	if (len < 0 || stat(proc_path, &st))
		return tool_fail(err, errno, "cannot resolve %s", proc_path);
	path[len] = '\0';
	id->ino = st.st_ino;
	id->dev = kernel_dev(st.st_dev);
	id->present = 1;
	return 0;
}

static int pool_add(struct string_pool *pool, const char *s, size_t len, size_t *off)
{
	size_t cap;
	char *data;

	if (pool->len + len + 1 > pool->cap) {
		cap = pool->cap ? pool->cap * 2 : 4096;
		while (cap < pool->len + len + 1)
			cap *= 2;
		data = realloc(pool->data, cap);
		if (!data)
			return -1;
		pool->data = data;
		pool->cap = cap;
	}
	memcpy(pool->data + pool->len, s, len);
	pool->data[pool->len + len] = '\0';
	*off = pool->len;
	pool->len += len + 1;
	return 0;
}

static int grow(void **items, size_t *cap, size_t n, size_t size, size_t **paths)
{
	size_t new_cap = *cap ? *cap * 2 : 64;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*items, new_cap * size);
	if (!p)
		return -1;
	*items = p;
	p = realloc(*paths, new_cap * sizeof(**paths));
	if (!p)
		return -1;
	*paths = p;
	*cap = new_cap;
	return 0;
}

/* Lines of a procfs file read in chunks; a line never spans more than one. */
struct line_reader {
	int fd;
	char *buf;
	size_t size, start, end;
	bool eof;
};

/* The next line, without its newline; NULL at the end (errno 0) or on error. */
static char *next_line(struct line_reader *lr)
{
	char *nl;
	ssize_t n;

	for (;;) {
		nl = memchr(lr->buf + lr->start, '\n', lr->end - lr->start);
		if (nl) {
			char *line = lr->buf + lr->start;

			*nl = '\0';
			lr->start = (size_t)(nl - lr->buf) + 1;
			return line;
		}
		if (lr->eof) {
			errno = lr->start == lr->end ? 0 : EBADMSG;
			return NULL;
		}
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
		if (lr->end == lr->size) {
			errno = E2BIG;
			return NULL;
		}
		n = read(lr->fd, lr->buf + lr->end, lr->size - lr->end);
		if (n < 0)
			return NULL;
		if (n == 0)
			lr->eof = true;
		lr->end += (size_t)n;
	}
}

static bool is_vma_header(const char *line)
{
	return (line[0] >= '0' && line[0] <= '9') || (line[0] >= 'a' && line[0] <= 'f');
}

/* "start-end perms offset major:minor inode   path" */
static int parse_vma_header(struct procfs_facts *f, char *line)
{
	unsigned long long start, end, offset, ino;
	unsigned int maj, min;
	char perms[5];
	struct dump_vma_rec *v;
	int pos = 0;
	char *path;

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end, perms, &offset, &maj,
		   &min, &ino, &pos) < 7 || !pos)
		return -1;
	path = line + pos;
	if (!strcmp(path, "[vsyscall]"))	/* the gate page: no VMA of the mm */
		return 1;
	if (grow((void **)&f->vmas, &f->cap_vmas, f->n_vmas, sizeof(*f->vmas), &f->vma_path) ||
	    pool_add(&f->paths, path, strlen(path), &f->vma_path[f->n_vmas]))
		return -2;
	v = &f->vmas[f->n_vmas++];
	*v = (struct dump_vma_rec){
		.kind = DUMP_REC_VMA, .start = start, .end = end,
		.vm_flags = (perms[0] == 'r' ? VM_READ : 0) | (perms[1] == 'w' ? VM_WRITE : 0) |
			    (perms[2] == 'x' ? VM_EXEC : 0) | (perms[3] == 's' ? VM_MAYSHARE : 0),
		.has_file = maj || min || ino,
		.ino = ino,
		.dev = maj << 20 | min,
		.pgoff = (maj || min || ino) ? offset >> PAGE_SHIFT : 0,
	};
	if (!strcmp(path, "[heap]"))
		f->task.brk = end;
	else if (!strcmp(path, "[vdso]"))
		f->task.vdso = start;
	return 0;
}

static int parse_vm_flags(struct dump_vma_rec *v, const char *p)
{
	size_t i;

	/* VmFlags has them all but the protection key, which comes first. */
	v->vm_flags &= VM_PKEY_MASK;
	for (;;) {
		while (*p == ' ')
			p++;
		if (!*p)
			return 0;
		for (i = 0; i < sizeof(vm_flag_names) / sizeof(vm_flag_names[0]); i++)
			if (p[0] == vm_flag_names[i].name[0] && p[1] == vm_flag_names[i].name[1])
				break;
		if (i == sizeof(vm_flag_names) / sizeof(vm_flag_names[0]) || (p[2] && p[2] != ' '))
			return -1;
		v->vm_flags |= 1ull << vm_flag_names[i].bit;
		p += 2;
	}
}

/* The mode of a mapped file, through map_files as a dumper opens it. */
static int vma_file_mode(struct procfs_reader *r, struct dump_vma_rec *v, struct tool_error *err)
{
	char path[96];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)r->pid,
		 (unsigned long long)v->start, (unsigned long long)v->end);
	if (stat(path, &st))
		return tool_fail(err, errno, "cannot stat %s", path);
	v->i_mode = st.st_mode;
	return 0;
}

static int parse_vmas(struct procfs_reader *r, struct procfs_facts *f, struct tool_error *err)
{
	const char *what = r->source == PROCFS_SMAPS ? "smaps" : "maps";
	struct line_reader lr = { .buf = r->buf, .size = r->buf_size };
	struct dump_vma_rec *cur = NULL;
	char path[64], *line;
	int ret = -1, kind;
	size_t i;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)r->pid, what);
	lr.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (lr.fd < 0)
		return tool_fail(err, errno, "cannot open %s", path);
	f->vm_flags_known = r->source == PROCFS_SMAPS ? smaps_known_flags() :
			    VM_READ | VM_WRITE | VM_EXEC | VM_MAYSHARE;
	while ((line = next_line(&lr))) {
		if (is_vma_header(line)) {
			kind = parse_vma_header(f, line);
			if (kind == -2) {
				tool_fail(err, 0, "out of memory");
				goto out;
			}
			if (kind < 0)
				goto bad;
			cur = kind ? NULL : &f->vmas[f->n_vmas - 1];
		} else if (cur && !strncmp(line, "VmFlags:", 8)) {
			if (parse_vm_flags(cur, line + 8))
				goto bad;
		} else if (cur && !strncmp(line, "ProtectionKey:", 14)) {
			cur->vm_flags |= strtoull(line + 14, NULL, 10) << VM_PKEY_SHIFT;
		}
	}
	if (errno) {
		tool_fail(err, errno, "cannot read %s", path);
		goto out;
	}
	for (i = 0; i < f->n_vmas; i++)
		if (f->vmas[i].has_file && vma_file_mode(r, &f->vmas[i], err))
			goto out;
	f->task.has_mm = f->n_vmas > 0;
	f->task.map_count = (uint32_t)f->n_vmas;
	ret = 0;
	goto out;
bad:
	tool_fail(err, 0, "malformed line in %s: %.80s", path, line);
out:
	close(lr.fd);
	return ret;
}

/* fdinfo/N: "pos:", "flags:" (octal, O_CLOEXEC added), "mnt_id:", "ino:". */
static int parse_fdinfo(struct procfs_reader *r, struct dump_file_rec *k, struct tool_error *err)
{
	const char *pos, *flags, *ino;
	char what[32];
	unsigned int f_flags;

	snprintf(what, sizeof(what), "fdinfo/%d", k->fd);
	if (read_small(r, what, err) < 0)
		return -1;
	pos = field(r->buf, "pos");
	flags = field(r->buf, "flags");
	ino = field(r->buf, "ino");
	if (!pos || !flags || !ino)
		return tool_fail(err, 0, "malformed /proc/%d/%s", (int)r->pid, what);
	f_flags = (unsigned int)strtoul(flags, NULL, 8);
	k->pos = strtoll(pos, NULL, 10);
	k->ino = strtoull(ino, NULL, 10);
	k->cloexec = !!(f_flags & O_CLOEXEC);
	k->f_flags = f_flags & ~O_CLOEXEC;
	switch (f_flags & (O_ACCMODE | O_PATH)) {
	case O_RDONLY: k->f_mode = FMODE_READ; break;
	case O_WRONLY: k->f_mode = FMODE_WRITE; break;
	case O_RDWR: k->f_mode = FMODE_READ | FMODE_WRITE; break;
	default: k->f_mode = 0; break;
	}
	return 0;
}

static int read_file(struct procfs_reader *r, struct procfs_facts *f, int fd,
		     struct tool_error *err)
{
	char proc_path[64], path[PATH_MAX];
	struct dump_file_rec *k;
	struct stat st;
	ssize_t len;

	if (grow((void **)&f->files, &f->cap_files, f->n_files, sizeof(*f->files),
		 &f->file_path))
		return tool_fail(err, 0, "out of memory");
	snprintf(proc_path, sizeof(proc_path), "/proc/%d/fd/%d", (int)r->pid, fd);
	len = readlink(proc_path, path, sizeof(path) - 1);
	if (len < 0 || stat(proc_path, &st))
		return tool_fail(err, errno, "cannot resolve %s", proc_path);
	if (pool_add(&f->paths, path, (size_t)len, &f->file_path[f->n_files]))
		return tool_fail(err, 0, "out of memory");
	k = &f->files[f->n_files];
	*k = (struct dump_file_rec){
		.kind = DUMP_REC_FILE, .fd = fd, .size = (uint64_t)st.st_size,
		.dev = kernel_dev(st.st_dev), .i_mode = st.st_mode, .rdev = kernel_dev(st.st_rdev),
	};
	if (parse_fdinfo(r, k, err))
		return -1;
	f->n_files++;
	return 0;
}

static int read_files(struct procfs_reader *r, struct procfs_facts *f, struct tool_error *err)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)r->pid);
	dir = opendir(path);
	if (!dir)
		return tool_fail(err, errno, "cannot list %s", path);
	/* procfs lists descriptors in ascending order, as the iterator walks them. */
	while (!ret && (d = readdir(dir)))
		if (d->d_name[0] != '.')
			ret = read_file(r, f, atoi(d->d_name), err);
	closedir(dir);
	return ret;
}

int procfs_facts_read(struct procfs_reader *r, struct procfs_facts *f, struct tool_error *err)
{
	struct dump_task_rec *t = &f->task;

	memset(f, 0, sizeof(*f));
	t->kind = DUMP_REC_TASK;
	if (parse_stat(r, t, err) || parse_status(r, t, err) || parse_limits(r, t, err) ||
	    parse_small_values(r, f, err))
		return -1;
	if (resolve_link(r, "cwd", f->cwd, sizeof(f->cwd), &t->cwd, err) ||
	    resolve_link(r, "root", f->root, sizeof(f->root), &t->root, err) ||
	    resolve_link(r, "exe", f->exe, sizeof(f->exe), &t->exe, err))
		return -1;
	if (parse_vmas(r, f, err) || read_files(r, f, err))
		return -1;
	return 0;
}

void procfs_facts_free(struct procfs_facts *f)
{
	free(f->vmas);
	free(f->vma_path);
	free(f->files);
	free(f->file_path);
	free(f->paths.data);
	memset(f, 0, sizeof(*f));
}
