# Shared by ./crib-dev, the dev/ scripts and the kernel/ scripts: the
# paths of the checkout, the build directory and the cache, and messages.
# Sourced, not run.
#
# The cache ($CRIB_CACHE) is laid out here and nowhere else:
#   linux/src                   the kernel source tree, a git repository:
#                               the pristine tree, then one commit per patch
#   linux/src-check             its worktree for building patch by patch
#   linux/build-FLAVOUR         a flavour's O= build directory (release,
#                               debug): bzImage, and vmlinux.h for release
#   linux/build-check-FLAVOUR   the same, patch by patch
#   linux/build-check-nonet, build-check-noinet
#                               patch by patch, kernels without networking
#                               and without IPv4 (CRIB's dependencies)
#   linux/.lock, .lock-check    one kernel build at a time
#   image/base-HASH/crib-base.cpio
#                               the mkosi base image, by a hash of its inputs
#   image/base                  a link to the current base-HASH
#   image/pkgcache              mkosi's package cache
#   image/mkosi.log             the last mkosi run's log
# Kernel functions take "check" last for the patch-by-patch variant.
# shellcheck shell=bash

CRIB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CRIB_CACHE=${CRIB_CACHE:-/var/cache/crib}
CRIB_BUILD=${CRIB_BUILD:-$CRIB_ROOT/build}
CRIB_KERNEL_DIR=$CRIB_CACHE/linux
CRIB_IMAGE_DIR=$CRIB_CACHE/image

die() { echo "crib-dev: $*" >&2; exit 1; }
log() { echo "crib-dev: $*" >&2; }

kernel_src() { echo "$CRIB_KERNEL_DIR/src${1:+-$1}"; }
kernel_build_dir() { echo "$CRIB_KERNEL_DIR/build-${2:+$2-}${1:-release}"; }
kernel_lock() { echo "$CRIB_KERNEL_DIR/.lock${1:+-$1}"; }
# Every flavour's build directory goes when the source tree is extracted anew.
remove_kernel_builds() { rm -rf "$CRIB_KERNEL_DIR"/build-*; }
# bzImage of a kernel flavour (release or debug).
kernel_image() { echo "$(kernel_build_dir "$@")/arch/x86/boot/bzImage"; }
vmlinux_h() { echo "$(kernel_build_dir release "$@")/vmlinux.h"; }

image_base_dir() { echo "$CRIB_IMAGE_DIR/base-$1"; }
image_base_link() { echo "$CRIB_IMAGE_DIR/base"; }
image_base_cpio() { echo "$(image_base_link)/crib-base.cpio"; }
image_pkgcache() { echo "$CRIB_IMAGE_DIR/pkgcache"; }
image_log() { echo "$CRIB_IMAGE_DIR/mkosi.log"; }
# Base images of other inputs than HASH are dead weight.
remove_other_bases() {
	find "$CRIB_IMAGE_DIR" -maxdepth 1 -name 'base-*' ! -name "base-$1" -exec rm -rf {} +
}

# The guest's initrd: the cached base image plus this build's binaries, so
# two build directories never boot each other's programs.
guest_initrd() { echo "$CRIB_BUILD/image/initrd.cpio"; }
