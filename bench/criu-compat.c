// SPDX-License-Identifier: GPL-2.0
/*
 * criu-compat: run a command (CRIU) with memfd_create(MFD_HUGETLB) failing
 * with EINVAL instead of ENOSYS, and madvise(MADV_DONTDUMP) succeeding.
 *
 *   criu-compat COMMAND [ARGS...]
 *
 * CRIU 3.17 probes hugetlb memfds when it starts and takes ENOSYS, which a
 * kernel without HUGETLBFS returns, for a fatal error; later CRIU releases
 * read it as "no hugetlb memfds", as they do EINVAL.
 *
 * CRIU's restore gives every VMA back its madvise() flags, and fails on
 * the ENOSYS of a kernel without ADVISE_SYSCALLS.  Without that system
 * call only the kernel sets these flags, on special mappings such as the
 * vvar pages (VM_DONTDUMP), and it sets them again on the mappings the
 * restore gets from it; without COREDUMP, VM_DONTDUMP changes nothing.
 * So MADV_DONTDUMP is answered "done"; any other advice still fails.
 *
 * A seccomp filter gives these calls the answers CRIU understands; every
 * other system call goes through untouched.  The filter stays on whatever
 * the command starts, processes CRIU restores included.
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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define ARG1_LO offsetof(struct seccomp_data, args[1])
#define ARG2_LO offsetof(struct seccomp_data, args[2])

static int install_filter(void)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_memfd_create, 0, 4),
		/* flags is an unsigned int: its low 32 bits are all there is */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG1_LO),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MFD_HUGETLB, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_madvise, 0, 3),
		/* advice is an int, likewise */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG2_LO),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MADV_DONTDUMP, 0, 1),
		/* errno 0: the call returns 0 without running */
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
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
