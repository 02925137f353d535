// SPDX-License-Identifier: GPL-2.0
/*
 * criu-compat: run a command (CRIU) with memfd_create(MFD_HUGETLB) failing
 * with EINVAL instead of ENOSYS.
 *
 *   criu-compat COMMAND [ARGS...]
 *
 * CRIU 3.17 probes hugetlb memfds when it starts and takes ENOSYS, which a
 * kernel without HUGETLBFS returns, for a fatal error; later CRIU releases
 * read it as "no hugetlb memfds", as they do EINVAL.  A seccomp filter
 * gives that one probe the answer CRIU understands; every other system
 * call goes through untouched.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/memfd.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define ARG1_LO offsetof(struct seccomp_data, args[1])

static int install_filter(void)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_memfd_create, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* flags is an unsigned int: its low 32 bits are all there is */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG1_LO),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MFD_HUGETLB, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(insns) / sizeof(insns[0]), .filter = insns };

	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: criu-compat COMMAND [ARGS...]\n");
		return 2;
	}
	if (install_filter()) {
		fprintf(stderr, "criu-compat: cannot install the seccomp filter: %s\n",
			strerror(errno));
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "criu-compat: cannot run %s: %s\n", argv[1], strerror(errno));
	return 127;
}
