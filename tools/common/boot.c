// SPDX-License-Identifier: GPL-2.0
/* The boot id and time namespace offsets (boot.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"

#define BOOT_ID_PATH	"/proc/sys/kernel/random/boot_id"

int boot_id_read(char *id, size_t size, struct tool_error *err)
{
	int fd = open(BOOT_ID_PATH, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return tool_fail(err, errno, "cannot open %s", BOOT_ID_PATH);
	n = read(fd, id, size - 1);
	close(fd);
	if (n <= 0)
		return tool_fail(err, n ? errno : 0, "cannot read %s", BOOT_ID_PATH);
	id[n] = '\0';
	id[strcspn(id, "\n")] = '\0';
	return 0;
}

#define NSEC_PER_SEC	1000000000LL

/* The clock named by a line of timens_offsets: a name or a clock id. */
static clockid_t offset_clock(const char *name)
{
	if (!strcmp(name, "monotonic") || !strcmp(name, "1"))
		return CLOCK_MONOTONIC;
	if (!strcmp(name, "boottime") || !strcmp(name, "7"))
		return CLOCK_BOOTTIME;
	return -1;
}

int timens_offsets_read(const char *pid, struct timens_offsets *off, struct tool_error *err)
{
	char path[64], name[16];
	long long sec;
	long nsec;
	FILE *f;

	*off = (struct timens_offsets){ 0 };
	snprintf(path, sizeof(path), "/proc/%s/timens_offsets", pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : tool_fail(err, errno, "cannot open %s", path);
	while (fscanf(f, "%15s %lld %ld", name, &sec, &nsec) == 3) {
		int64_t ns = (int64_t)sec * NSEC_PER_SEC + nsec;

		switch (offset_clock(name)) {
		case CLOCK_MONOTONIC:
			off->monotonic_ns = ns;
			break;
		case CLOCK_BOOTTIME:
			off->boottime_ns = ns;
			break;
		default:
			break;
		}
	}
	fclose(f);
	return 0;
}
