# Shared by the dev/ scripts: paths and messages.  Sourced, not run.

CRIB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CRIB_CACHE=${CRIB_CACHE:-/var/cache/crib}
CRIB_BUILD=${CRIB_BUILD:-$CRIB_ROOT/build}
CRIB_KERNEL_DIR=$CRIB_CACHE/linux
CRIB_IMAGE_DIR=$CRIB_CACHE/image

die() { echo "crib-dev: $*" >&2; exit 1; }
log() { echo "crib-dev: $*" >&2; }

# bzImage of a kernel flavour (release or debug).
kernel_image() { echo "$CRIB_KERNEL_DIR/build-${1:-release}/arch/x86/boot/bzImage"; }
# The guest's initrd: the cached base image plus this build's binaries, so
# two build directories never boot each other's programs.
guest_initrd() { echo "$CRIB_BUILD/image/initrd.cpio"; }
vmlinux_h() { echo "$CRIB_KERNEL_DIR/build-release/vmlinux.h"; }
