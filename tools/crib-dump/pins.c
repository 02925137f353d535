// SPDX-License-Identifier: GPL-2.0
/*
 * Pins: the dump programs of one build, kept loaded in bpffs between
 * dumps, so that only the first dump of a boot pays for the verifier.
 *
 *   /sys/fs/bpf/crib/            0700, root's
 *     KEY/                       a hash of the program objects
 *       prog-NAME                each program
 *       map-NAME                 each map, the internal ones too (a
 *                                dot in the name, as in .bss, made a -)
 *
 * A build whose objects differ has another KEY, so it never runs stale
 * programs; its first dump loads them and removes the pins of other
 * builds.  A directory is only ever published whole: it is filled under
 * a temporary name and renamed.
 *
 * The programs share their maps, so one dump at a time uses a directory:
 * it holds an flock on it for the whole dump, and a second dump that
 * finds it taken loads programs of its own.  What a dump left in the
 * maps (records of a dump killed in the middle, the descriptor numbers of
 * dump_files, the programs' globals) is emptied by the next that takes
 * them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "crib-dump.h"

/* bpffs reserves names with a dot: none is used. */
#define PROG_PREFIX	"prog-"
#define MAP_PREFIX	"map-"

/* Why the pins were not used, with errno's word on it when there is one. */
static void why(struct dump_programs *progs, const char *what, int err)
{
	if (err)
		snprintf(progs->why, sizeof(progs->why), "%s: %s", what, strerror(err));
	else
		snprintf(progs->why, sizeof(progs->why), "%s", what);
}

/* DIR/PREFIXNAME into @buf, the dots of NAME made dashes; -1 if it does not fit. */
static int pin_path(char *buf, size_t size, const char *dir, const char *prefix,
		    const char *name)
{
	int n = snprintf(buf, size, "%s/%s", dir, prefix);
	char *p;

	if (n < 0 || (size_t)n >= size)
		return -1;
	p = buf + n;
	n = snprintf(p, size - (size_t)n, "%s", name);
	if (n < 0 || (size_t)n >= size - (size_t)(p - buf))
		return -1;
	for (; *p; p++)
		if (*p == '.')
			*p = '-';
	return 0;
}

static int discard_record(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

/* Records an earlier dump never read. */
static int drain_ring(int fd)
{
	struct ring_buffer *rb = ring_buffer__new(fd, discard_record, NULL, NULL);
	int ret;

	if (!rb)
		return -1;
	ret = ring_buffer__consume(rb);
	ring_buffer__free(rb);
	return ret < 0 ? -1 : 0;
}

static int clear_hash(int fd, const struct bpf_map_info *info)
{
	char key[256];

	if (info->key_size > sizeof(key))
		return -1;
	while (!bpf_map_get_next_key(fd, NULL, key))
		if (bpf_map_delete_elem(fd, key))
			return -1;
	return errno == ENOENT ? 0 : -1;
}

/* The programs' globals (.bss), as a fresh load has them: zero. */
static int zero_array(int fd, const struct bpf_map_info *info)
{
	void *zero = calloc(1, info->value_size ? info->value_size : 1);
	__u32 i;
	int ret = 0;

	if (!zero)
		return -1;
	for (i = 0; i < info->max_entries && !ret; i++)
		ret = bpf_map_update_elem(fd, &i, zero, BPF_ANY);
	free(zero);
	return ret;
}

/* A pinned map as a fresh load has it. */
static int reset_map(int fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -1;
	switch (info.type) {
	case BPF_MAP_TYPE_RINGBUF:
		return drain_ring(fd);
	case BPF_MAP_TYPE_HASH:
		return clear_hash(fd, &info);
	case BPF_MAP_TYPE_ARRAY:
		return zero_array(fd, &info);
	default:
		return -1;	/* a kind of map this code does not know to empty */
	}
}

/*
 * One entry of the pin directory @dir: a program's descriptor into its
 * slot; a map emptied, and into its slot if it is a ring buffer read.
 */
static int take_entry(struct dump_programs *progs, const char *dir, const char *name)
{
	struct crib_prog *prog = NULL;
	int *map = NULL, fd, ret;
	char path[PATH_MAX];

	if (!strncmp(name, PROG_PREFIX, strlen(PROG_PREFIX))) {
		prog = slots_prog(progs, name + strlen(PROG_PREFIX));
		if (!prog)
			return 0;	/* a program this crib-dump does not run */
	} else if (!strncmp(name, MAP_PREFIX, strlen(MAP_PREFIX))) {
		map = slots_map(progs, name + strlen(MAP_PREFIX));
	} else {
		return -1;
	}
	if (pin_path(path, sizeof(path), dir, "", name))
		return -1;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -1;
	if (prog) {
		prog->fd = fd;
		return 0;
	}
	ret = reset_map(fd);
	if (map && !ret)
		*map = fd;
	else
		close(fd);
	return ret;
}

/*
 * @fn(@dir, name, @arg) for every entry of directory @dir but . and ..,
 * until one returns non-zero: returns that, or -1 if @dir cannot be read.
 */
static int for_each_entry(const char *dir, int (*fn)(const char *dir, const char *name,
						     void *arg), void *arg)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return -1;
	while (!ret && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			ret = fn(dir, e->d_name, arg);
	closedir(d);
	return ret;
}

static int take_one(const char *dir, const char *name, void *progs)
{
	return take_entry(progs, dir, name);
}

static void remove_pins(const char *path);

/* The root of the pins: a directory of root's that nobody else may write. */
static bool root_safe(struct dump_programs *progs)
{
	struct stat st;

	if (stat(PINS_ROOT, &st)) {
		why(progs, errno == ENOENT ? "no pins yet" : "cannot look at " PINS_ROOT,
		    errno == ENOENT ? 0 : errno);
		return false;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 077)) {
		why(progs, PINS_ROOT " is not a directory of root's closed to others", 0);
		return false;
	}
	return true;
}

int pins_take(struct dump_programs *progs, const char *key)
{
	char path[PATH_MAX];
	int fd;

	if (!root_safe(progs))
		return -1;
	snprintf(path, sizeof(path), PINS_ROOT "/%s", key);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		why(progs, "no pins of this build", errno == ENOENT ? 0 : errno);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		why(progs, "another dump uses the pins", 0);
		goto fail;
	}
	errno = 0;	/* a stray entry fails with none */
	if (for_each_entry(path, take_one, progs)) {
		why(progs, "the pins cannot be taken or emptied", errno);
		goto replace;
	}
	if (!slots_complete(progs)) {
		why(progs, "the pins are incomplete", 0);
		goto replace;
	}
	progs->pins_fd = fd;
	return 0;
replace:
	/* Locked, so nobody uses them: they go, and the programs are pinned again. */
	slots_close(progs);
	remove_pins(path);
fail:
	close(fd);
	return -1;
}

static int unlink_pin(const char *dir, const char *name, void *unused)
{
	char path[PATH_MAX];

	(void)unused;
	if (!pin_path(path, sizeof(path), dir, "", name))
		unlink(path);
	return 0;
}

/* Remove the pins in directory @path and the directory. */
static void remove_pins(const char *path)
{
	for_each_entry(path, unlink_pin, NULL);
	rmdir(path);
}

/* A directory of pins of another build, or left by a publishing that died, unless in use. */
static int remove_unused(const char *root, const char *name, void *key)
{
	char path[PATH_MAX];
	int fd;

	if (!strcmp(name, key) || pin_path(path, sizeof(path), root, "", name))
		return 0;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (!flock(fd, LOCK_EX | LOCK_NB))
		remove_pins(path);
	close(fd);
	return 0;
}

/* Pins of other builds, and leftovers of a publishing that died, that nobody uses. */
static void remove_others(const char *key)
{
	for_each_entry(PINS_ROOT, remove_unused, (void *)key);
}

static int pin_objects(struct dump_programs *progs, const char *dir)
{
	char path[PATH_MAX];
	struct bpf_program *prog;
	struct bpf_map *map;
	size_t i;

	for (i = 0; i < DUMP_OBJECTS; i++) {
		bpf_object__for_each_program(prog, progs->objects[i]) {
			if (pin_path(path, sizeof(path), dir, PROG_PREFIX,
				     bpf_program__name(prog)) ||
			    bpf_obj_pin(bpf_program__fd(prog), path))
				return -1;
		}
		bpf_object__for_each_map(map, progs->objects[i]) {
			if (pin_path(path, sizeof(path), dir, MAP_PREFIX, bpf_map__name(map)) ||
			    bpf_obj_pin(bpf_map__fd(map), path))
				return -1;
		}
	}
	return 0;
}

int pins_publish(struct dump_programs *progs, const char *key)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	int fd = -1;

	if (mkdir(PINS_ROOT, 0700) && errno != EEXIST) {
		why(progs, "cannot make " PINS_ROOT, errno);
		return -1;
	}
	if (!root_safe(progs))
		return -1;
	snprintf(tmp, sizeof(tmp), PINS_ROOT "/new-%d", (int)getpid());
	snprintf(path, sizeof(path), PINS_ROOT "/%s", key);
	if (!access(path, F_OK))
		return -1;	/* there, in use by another dump: progs->why says */
	remove_pins(tmp);
	/*
	 * Locked from the start: no other dump removes it while it fills, or
	 * takes it first once it has its name.
	 */
	if (mkdir(tmp, 0700)) {
		why(progs, "cannot pin the programs", errno);
		return -1;
	}
	fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) || pin_objects(progs, tmp)) {
		why(progs, "cannot pin the programs", errno);
		goto fail;
	}
	if (rename(tmp, path)) {
		why(progs, "another dump pinned the programs first", errno);
		goto fail;
	}
	progs->pins_fd = fd;
	remove_others(key);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	remove_pins(tmp);
	return -1;
}

void pins_release(struct dump_programs *progs)
{
	if (progs->pins_fd >= 0)
		close(progs->pins_fd);
	progs->pins_fd = -1;
}
