// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <string.h>
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
