#!/usr/bin/env bash
# Build the guest image: the mkosi base (Debian packages, /init), cached
# in $CRIB_CACHE (dev/lib.sh) by a hash of its inputs, plus an overlay
# cpio of our installed binaries kept in the build directory; the initrd
# QEMU boots is the two archives back to back, which the kernel unpacks in
# turn.
#
#   dev/image.sh base       the mkosi part only
#   dev/image.sh            both (the overlay needs ./crib-dev build first)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

base_inputs_hash() {
	{
		mkosi --version
		cd "$CRIB_ROOT" && find mkosi.conf image -type f -print0 | sort -z |
			xargs -0 sha256sum
	} | sha256sum | cut -c1-16
}

build_base() {
	local hash dir
	hash=$(base_inputs_hash)
	dir=$(image_base_dir "$hash")
	if [ -f "$dir/crib-base.cpio" ]; then
		ln -sfn "$dir" "$(image_base_link)"
		return
	fi
	log "building the base image with mkosi (log: $(image_log))"
	mkdir -p "$(image_pkgcache)" "$dir.tmp"
	rm -rf "$dir.tmp"/*
	# mkosi runs systemd-nspawn, which wants /run/systemd/nspawn on a
	# tmpfs; a private mount namespace keeps the host untouched.
	if ! unshare -m bash -c '
		set -e
		mkdir -p /run/systemd/nspawn
		mount -t tmpfs tmpfs /run/systemd/nspawn
		cd "$1"
		mkosi --force --output-dir "$2" --cache "$3" build
	' _ "$CRIB_ROOT" "$dir.tmp" "$(image_pkgcache)" >"$(image_log)" 2>&1; then
		tail -n 30 "$(image_log)" >&2
		die "mkosi failed"
	fi
	local out
	out=$(find "$dir.tmp" -maxdepth 2 -name '*.cpio' -type f | head -n 1)
	[ -n "$out" ] || die "mkosi produced no cpio in $dir.tmp"
	mv "$out" "$dir.tmp/crib-base.cpio"
	find "$dir.tmp" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	ln -sfn "$dir" "$(image_base_link)"
	remove_other_bases "$hash"
	log "base image ready: $dir/crib-base.cpio ($(du -h "$dir/crib-base.cpio" | cut -f1))"
}

# Our binaries, installed by meson under /usr/local, as a cpio archive.
build_overlay() {
	local stage=$CRIB_BUILD/image/overlay
	[ -f "$CRIB_BUILD/build.ninja" ] || die "no build in $CRIB_BUILD: run ./crib-dev build"
	rm -rf "$stage"
	mkdir -p "$stage"
	meson install -C "$CRIB_BUILD" --quiet --destdir "$stage" >/dev/null
	# The kernel series' selftests run with the other kernel tests.
	local t kdir=$stage/usr/local/libexec/crib/tests/kernel
	mkdir -p "$kdir"
	for t in "$CRIB_BUILD"/kernel-selftests/test_*; do
		[ -x "$t" ] && cp "$t" "$kdir/"
	done
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
		cpio --quiet -o -H newc --owner=0:0) >"$CRIB_BUILD/image/overlay.cpio"
	cat "$(image_base_cpio)" "$CRIB_BUILD/image/overlay.cpio" \
		>"$(guest_initrd).tmp"
	mv "$(guest_initrd).tmp" "$(guest_initrd)"
}

command -v mkosi >/dev/null || die "mkosi missing (./crib-dev setup)"
mkdir -p "$CRIB_IMAGE_DIR"
build_base
[ "${1:-}" = base ] || build_overlay
