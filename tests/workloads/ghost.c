// SPDX-License-Identifier: GPL-2.0
/*
 * Files no path reaches, in a root and its child:
 *
 *   memfd "crib-shared": 3 pages, sealed against shrinking and growing,
 *     open at offset 1234 (fd MEMFD_FD) and mapped MAP_SHARED read-write
 *     before the fork, so the child has the descriptor and the mapping too;
 *   memfd "crib-mapped": 2 pages, mapped MAP_SHARED, its descriptor closed;
 *   memfd "crib-sealed": MFD_NOEXEC_SEAL, one page of text, sealed against
 *     writing and against more seals;
 *   LDIR/ghost.data: 64 KiB with a hole (a pattern in its first 5000 bytes,
 *     "tail" at 60000), open twice (fd UNLINKED_FD read-write at 100,
 *     fd UNLINKED_FD + 1 O_RDONLY | O_APPEND at 0) and mapped MAP_SHARED
 *     read-only, then unlinked;
 *   the root's working directory LDIR/cwd.root, removed;
 *   an O_PATH descriptor and a directory descriptor of LDIR/dir (where
 *     nothing changes: LDIR's size does as the test writes into it);
 *   in the root, the coredump filter COREDUMP_FILTER (on a kernel with core
 *   dumps) and PR_SET_THP_DISABLE.
 *
 *   ghost [--local LDIR] DIR
 *
 * Each writes DIR/pid.ROLE; the root DIR/ready.  SIGUSR1 to the root: it
 * writes a new token into the shared memfd through its mapping, tells the
 * child (SIGUSR1), which checks that it sees it through its mapping and its
 * descriptor; both check everything else (DIR/check.root, DIR/check.child).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "tree.h"

/* Linux 6.3; newer than some C libraries' headers */
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL	0x0008U
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC	0x0020
#endif

#define MEMFD_FD	20
#define UNLINKED_FD	22
#define OPATH_FD	24
#define DIR_FD		25
#define UNLINKED_SIZE	65536
#define PATTERN_LEN	5000
#define TAIL_AT		60000
#define SEALED_TEXT	"sealed and not writable"
#define COREDUMP_FILTER	0x5d

static size_t page;
static volatile uint64_t *shared;	/* crib-shared, 3 pages */
static unsigned char *mapped;		/* crib-mapped, 2 pages */
static const unsigned char *unlinked_map;	/* ghost.data, its first page */
static int sealed_fd;
static char ldir[900], data_path[1024], cwd_path[1024], dir_path[1024];

static void place(int fd, int at)
{
	if (fd != at && (dup2(fd, at) < 0 || close(fd)))
		tree_die("dup2 %d", at);
}

static void make_memfds(void)
{
	int fd = memfd_create("crib-shared", MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, 3 * page))
		tree_die("memfd crib-shared");
	shared = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shared == MAP_FAILED)
		tree_die("mmap crib-shared");
	tree_fill((unsigned char *)shared + page, 2 * page, "shared");
	shared[0] = 1;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) ||
	    lseek(fd, 1234, SEEK_SET) != 1234)
		tree_die("seal crib-shared");
	place(fd, MEMFD_FD);

	fd = memfd_create("crib-mapped", 0);
	if (fd < 0 || ftruncate(fd, 2 * page))
		tree_die("memfd crib-mapped");
	mapped = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mapped == MAP_FAILED)
		tree_die("mmap crib-mapped");
	close(fd);
	tree_fill(mapped, 2 * page, "mapped");

	sealed_fd = memfd_create("crib-sealed", MFD_NOEXEC_SEAL | MFD_ALLOW_SEALING);
	if (sealed_fd < 0 || write(sealed_fd, SEALED_TEXT, sizeof(SEALED_TEXT)) !=
	    sizeof(SEALED_TEXT) || fcntl(sealed_fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SEAL))
		tree_die("memfd crib-sealed");
}

static void make_unlinked(void)
{
	unsigned char buf[PATTERN_LEN];
	int fd, fd2;

	snprintf(data_path, sizeof(data_path), "%s/ghost.data", ldir);
	fd = open(data_path, O_RDWR | O_CREAT | O_TRUNC, 0640);
	tree_fill(buf, sizeof(buf), "unlinked");
	if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf) ||
	    pwrite(fd, "tail", 4, TAIL_AT) != 4 || ftruncate(fd, UNLINKED_SIZE) ||
	    lseek(fd, 100, SEEK_SET) != 100)
		tree_die("making %s", data_path);
	fd2 = open(data_path, O_RDONLY | O_APPEND);
	unlinked_map = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (fd2 < 0 || unlinked_map == MAP_FAILED || unlink(data_path))
		tree_die("opening %s again", data_path);
	place(fd, UNLINKED_FD);
	place(fd2, UNLINKED_FD + 1);
}

/* Without core dumps (CONFIG_ELF_CORE) the kernel has no filter to set. */
static bool have_coredump_filter(void)
{
	return !access("/proc/self/coredump_filter", F_OK);
}

static void set_mm_attributes(void)
{
	char text[16];
	int len = snprintf(text, sizeof(text), "%#x", COREDUMP_FILTER);
	int fd = have_coredump_filter() ? open("/proc/self/coredump_filter", O_WRONLY) : -2;

	if (fd == -1 || (fd >= 0 && (write(fd, text, len) != len || close(fd))))
		tree_die("setting the coredump filter");
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		tree_die("PR_SET_THP_DISABLE");
}

static void check_mm_attributes(void)
{
	unsigned int filter = 0;
	FILE *f = have_coredump_filter() ? fopen("/proc/self/coredump_filter", "r") : NULL;

	if (have_coredump_filter() &&
	    (!f || fscanf(f, "%x", &filter) != 1 || filter != COREDUMP_FILTER))
		tree_fail("the coredump filter is %#x, not %#x", filter, COREDUMP_FILTER);
	if (f)
		fclose(f);
	if (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) != 1)
		tree_fail("transparent huge pages are not disabled");
}

static void make_dirs(void)
{
	snprintf(dir_path, sizeof(dir_path), "%s/dir", ldir);
	if (mkdir(dir_path, 0755))
		tree_die("mkdir %s", dir_path);
	place(open(dir_path, O_PATH), OPATH_FD);
	place(open(dir_path, O_RDONLY | O_DIRECTORY), DIR_FD);
	snprintf(cwd_path, sizeof(cwd_path), "%s/cwd.root", ldir);
	if (mkdir(cwd_path, 0750) || chdir(cwd_path) || rmdir(cwd_path))
		tree_die("making and removing %s", cwd_path);
}

/* What /proc/self/fd/@fd names, or "". */
static const char *fd_path(int fd, char *buf, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void check_name(int fd, const char *want)
{
	char buf[1100];

	if (strcmp(fd_path(fd, buf, sizeof(buf)), want))
		tree_fail("fd %d is %s, not %s", fd, buf, want);
}

static void check_memfds(bool root)
{
	uint64_t word = 0;
	int seals = fcntl(MEMFD_FD, F_GET_SEALS);
	struct stat st;

	check_name(MEMFD_FD, "/memfd:crib-shared (deleted)");
	if (seals != (F_SEAL_SHRINK | F_SEAL_GROW))
		tree_fail("crib-shared: seals %#x, not shrink and grow", seals);
	if (fstat(MEMFD_FD, &st) || st.st_size != (off_t)(3 * page))
		tree_fail("crib-shared: %lld bytes, not %zu", (long long)st.st_size, 3 * page);
	if (lseek(MEMFD_FD, 0, SEEK_CUR) != 1234)
		tree_fail("crib-shared: at %lld, not 1234", (long long)lseek(MEMFD_FD, 0, SEEK_CUR));
	tree_check_fill((unsigned char *)shared + page, 2 * page, "shared", "crib-shared's mapping");
	if (pread(MEMFD_FD, &word, sizeof(word), 0) != sizeof(word) || word != shared[0])
		tree_fail("crib-shared: its descriptor reads %llu, its mapping %llu: not one file",
			  (unsigned long long)word, (unsigned long long)shared[0]);
	if (!root)
		return;
	tree_check_fill(mapped, 2 * page, "mapped", "crib-mapped's mapping");
	check_name(sealed_fd, "/memfd:crib-sealed (deleted)");
	seals = fcntl(sealed_fd, F_GET_SEALS);
	if (seals != (F_SEAL_WRITE | F_SEAL_SEAL | F_SEAL_EXEC))
		tree_fail("crib-sealed: seals %#x, not write, seal and exec", seals);
	if (fstat(sealed_fd, &st) || (st.st_mode & 0111))
		tree_fail("crib-sealed: mode %o is executable", st.st_mode);
	if (pwrite(sealed_fd, "x", 1, 0) != -1 || errno != EPERM)
		tree_fail("crib-sealed: a write was not refused");
}

/* The inode /proc/self/maps shows for the mapping at @addr, or 0. */
static unsigned long mapped_inode(const void *addr)
{
	unsigned long start, inode = 0, found = 0;
	char line[1200];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%*x %*s %*x %*s %lu", &start, &inode) == 2 &&
		    start == (unsigned long)addr)
			found = inode;
	if (f)
		fclose(f);
	return found;
}

static void check_unlinked(void)
{
	char want[1100], buf[PATTERN_LEN], tail[5] = "";
	struct stat st, st2;
	int flags = fcntl(UNLINKED_FD + 1, F_GETFL);

	snprintf(want, sizeof(want), "%s (deleted)", data_path);
	check_name(UNLINKED_FD, want);
	check_name(UNLINKED_FD + 1, want);
	if (fstat(UNLINKED_FD, &st) || fstat(UNLINKED_FD + 1, &st2) || st.st_ino != st2.st_ino ||
	    st.st_dev != st2.st_dev)
		tree_fail("ghost.data: its two descriptors open two files");
	if (mapped_inode(unlinked_map) != st.st_ino)
		tree_fail("ghost.data: mapped as inode %lu, open as inode %lu",
			  mapped_inode(unlinked_map), (unsigned long)st.st_ino);
	if (st.st_nlink || st.st_size != UNLINKED_SIZE || (st.st_mode & 07777) != 0640)
		tree_fail("ghost.data: %lu links, %lld bytes, mode %o", (unsigned long)st.st_nlink,
			  (long long)st.st_size, st.st_mode & 07777);
	if (lseek(UNLINKED_FD, 0, SEEK_CUR) != 100 || lseek(UNLINKED_FD + 1, 0, SEEK_CUR) != 0)
		tree_fail("ghost.data: at %lld and %lld, not 100 and 0",
			  (long long)lseek(UNLINKED_FD, 0, SEEK_CUR),
			  (long long)lseek(UNLINKED_FD + 1, 0, SEEK_CUR));
	if ((flags & O_ACCMODE) != O_RDONLY || !(flags & O_APPEND))
		tree_fail("ghost.data: the second descriptor's flags are %#x", flags);
	if (pread(UNLINKED_FD, buf, sizeof(buf), 0) != sizeof(buf))
		tree_fail("ghost.data: short read");
	tree_check_fill((unsigned char *)buf, sizeof(buf), "unlinked", "ghost.data");
	/* the mapping is a page: the pattern's first */
	tree_check_fill(unlinked_map, page < PATTERN_LEN ? page : PATTERN_LEN, "unlinked",
			"ghost.data's mapping");
	if (pread(UNLINKED_FD + 1, tail, 4, TAIL_AT) != 4 || strcmp(tail, "tail"))
		tree_fail("ghost.data: \"%s\" at %d, not \"tail\"", tail, TAIL_AT);
	if (pread(UNLINKED_FD, buf, 16, 30000) != 16 || buf[0] || memcmp(buf, buf + 1, 15))
		tree_fail("ghost.data: its hole is not zeros");
}

static void check_dirs(void)
{
	char want[1100], buf[1100];
	struct stat st;
	ssize_t n;

	check_name(OPATH_FD, dir_path);
	check_name(DIR_FD, dir_path);
	if (!(fcntl(OPATH_FD, F_GETFL) & O_PATH))
		tree_fail("fd %d is not O_PATH", OPATH_FD);
	if (fstat(DIR_FD, &st) || !S_ISDIR(st.st_mode))
		tree_fail("fd %d is not a directory", DIR_FD);
	snprintf(want, sizeof(want), "%s (deleted)", cwd_path);
	n = readlink("/proc/self/cwd", buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (strcmp(buf, want))
		tree_fail("the working directory is %s, not %s", buf, want);
	if (stat(".", &st) || st.st_nlink)
		tree_fail("the working directory has %lu links", (unsigned long)st.st_nlink);
}

static void __attribute__((noreturn)) child(void)
{
	char path[1024];
	uint64_t token;
	FILE *f;

	tree_become("child");
	tree_announce();
	for (;;) {
		tree_wait_signal();
		if (tree_usr1) {
			tree_usr1 = 0;
			tree_file(path, sizeof(path), "token", "root");
			f = fopen(path, "r");
			if (!f || fscanf(f, "%llu", (unsigned long long *)&token) != 1)
				tree_fail("no token from the root");
			else if (shared[0] != token)
				tree_fail("crib-shared: the child sees %llu, the root wrote %llu",
					  (unsigned long long)shared[0], (unsigned long long)token);
			if (f)
				fclose(f);
			check_memfds(false);
			check_unlinked();
			tree_report_to("check");
		}
		if (tree_term)
			exit(0);
		tree_usr2 = 0;
	}
}

int main(int argc, char **argv)
{
	char path[1024], text[32];
	pid_t pid;

	tree_take_local(&argc, &argv);
	if (argc != 2) {
		fprintf(stderr, "usage: ghost [--local LDIR] DIR\n");
		return 2;
	}
	tree_dir = argv[1];
	tree_become("root");
	tree_catch_signals();
	page = (size_t)sysconf(_SC_PAGESIZE);
	snprintf(ldir, sizeof(ldir), "%s", tree_local_dir ? tree_local_dir : tree_dir);
	make_memfds();
	make_unlinked();
	pid = fork();
	if (pid < 0)
		tree_die("fork");
	if (pid == 0)
		child();
	make_dirs();
	set_mm_attributes();
	tree_announce();
	if (tree_wait_file("pid", "child", 120))
		tree_die("the child did not start");
	tree_ready();
	for (uint64_t token = 100;; token += 100) {
		tree_wait_signal();
		if (tree_usr1) {
			tree_usr1 = 0;
			shared[0] = token;
			tree_file(path, sizeof(path), "token", "root");
			snprintf(text, sizeof(text), "%llu\n", (unsigned long long)token);
			write_ready(path, text);
			kill(pid, SIGUSR1);
			check_memfds(true);
			check_unlinked();
			check_dirs();
			check_mm_attributes();
			tree_report_to("check");
		}
		if (tree_term)
			exit(0);
		tree_usr2 = 0;
	}
}
