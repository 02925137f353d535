#!/usr/bin/env bash
# Build the CRIB kernel: Debian's linux-source-6.12 with kernel/patches/
# applied, configured from tinyconfig plus kernel/config/*.config.
#
#   kernel/build.sh [--flavour release|debug] [--check-series]
#
# Everything heavy lives in $CRIB_CACHE (default /var/cache/crib), laid
# out by dev/lib.sh: the source tree, a git repository whose commits are
# the pristine tree and then one per patch, and an O= build directory per
# flavour.  A build whose inputs (source package, patches, fragments) hash
# to the stamp left by the last successful build is a no-op; a changed
# patch rewinds the tree only to the first patch that differs, so make
# rebuilds just what the change touches.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../dev/lib.sh"
src_pkg=linux-source-6.12
src_tar=/usr/src/linux-source-6.12.tar.xz
jobs=${CRIB_JOBS:-$(nproc)}
flavour=release
check_series=0

die() { echo "kernel/build.sh: $*" >&2; exit 1; }
log() { echo "kernel: $*" >&2; }

while [ $# -gt 0 ]; do
	case "$1" in
	--flavour) flavour=${2:?}; shift 2 ;;
	--check-series) check_series=1; shift ;;
	*) die "unknown argument '$1'" ;;
	esac
done

fragments() {
	echo "$here/config/base.config" "$here/config/crib.config" "$here/config/criu.config"
	[ "$flavour" = debug ] && echo "$here/config/debug.config"
	return 0
}

case "$flavour" in
release|debug) ;;
*) die "unknown flavour '$flavour' (release or debug)" ;;
esac
# Building patch by patch must leave the flavour's tree and kernel alone
# meanwhile: it uses a worktree and a build directory of its own.
mode=
[ "$check_series" = 1 ] && mode=check
main_src=$(kernel_src)
src=$(kernel_src $mode)
build=$(kernel_build_dir "$flavour" $mode)

ensure_source_package() {
	if ! dpkg-query -W -f='${Status}' "$src_pkg" 2>/dev/null | grep -q 'ok installed'; then
		log "installing $src_pkg"
		apt-get install -y -qq "$src_pkg" >/dev/null
	fi
	[ -f "$src_tar" ] || die "$src_tar missing after installing $src_pkg"
}

pkg_version() { dpkg-query -W -f='${Version}' "$src_pkg"; }

git_src() { git -C "$src" -c user.name=crib -c user.email=crib@localhost "$@"; }

# The pristine tree, committed once, tagged 'pristine'.
ensure_pristine_tree() {
	local want src=$main_src
	want=$(pkg_version)
	if [ -f "$src/.crib-pkg-version" ] && [ "$(cat "$src/.crib-pkg-version")" = "$want" ]; then
		return
	fi
	log "extracting $src_pkg $want into $src"
	rm -rf "$src"
	remove_kernel_builds
	mkdir -p "$src"
	tar -xf "$src_tar" -C "$src" --strip-components=1
	# Debian's top-level .gitignore ignores everything ('/*'); the tree
	# is ours to track here.
	git_src init -q
	git_src add -f -A
	git_src commit -q -m "$src_pkg $want"
	git_src tag pristine
	echo "$want" >"$src/.crib-pkg-version"
}

# Apply kernel/patches/*.patch, reusing the applied prefix that matches.
apply_series() {
	local applied base=pristine i=0 line hash
	applied=$(git_src rev-parse --path-format=absolute --git-path crib-applied)
	local -a patches=("$here"/patches/*.patch)
	[ -e "${patches[0]}" ] || patches=()
	touch "$applied"
	local -a old=()
	mapfile -t old <"$applied"
	for ((i = 0; i < ${#patches[@]}; i++)); do
		hash=$(sha256sum "${patches[$i]}" | cut -d' ' -f1)
		line=${old[$i]:-}
		[ "${line%% *}" = "$hash" ] || break
		base=${line##* }
	done
	local keep=$i
	if [ "$keep" -eq "${#patches[@]}" ] && [ "${#old[@]}" -eq "$keep" ] &&
	   [ "$(git_src rev-parse HEAD)" = "$(git_src rev-parse "$base")" ]; then
		return
	fi
	if [ "$keep" -lt "${#patches[@]}" ]; then
		log "applying patches $((keep + 1))..${#patches[@]} on $(git_src log -1 --format=%s "$base")"
	else
		log "putting the tree back to the applied series"
	fi
	git_src am --abort >/dev/null 2>&1 || true
	git_src reset -q --hard "$base"
	head -n "$keep" "$applied" >"$applied.new" || true
	for ((i = keep; i < ${#patches[@]}; i++)); do
		git_src am -q --keep-cr "${patches[$i]}" ||
			{ git_src am --abort >/dev/null 2>&1 || true
			  die "patch ${patches[$i]##*/} does not apply"; }
		if [ "$check_series" = 1 ]; then
			[ "$i" -eq 0 ] && configure
			build_kernel "after ${patches[$i]##*/} "
		fi
		echo "$(sha256sum "${patches[$i]}" | cut -d' ' -f1) $(git_src rev-parse HEAD)" >>"$applied.new"
	done
	mv "$applied.new" "$applied"
}

# tinyconfig + fragments; every option a fragment asks for must survive.
configure() {
	log "configuring $flavour"
	mkdir -p "$build"
	make -s -C "$src" O="$build" tinyconfig >/dev/null
	# merge_config.sh leaves its temporary files in the current directory.
	# shellcheck disable=SC2046
	(cd "$build" && "$src/scripts/kconfig/merge_config.sh" -m -O "$build" .config $(fragments)) >/dev/null
	make -s -C "$src" O="$build" olddefconfig >/dev/null
	local frag opt want got bad=0
	for frag in $(fragments); do
		while IFS= read -r opt; do
			case "$opt" in
			CONFIG_*=*) ;;
			"# CONFIG_"*" is not set")
				opt=${opt#\# }
				opt="${opt%% *}=n"
				;;
			*) continue ;;
			esac
			want=${opt#*=}
			got=$(grep -E "^${opt%%=*}=" "$build/.config" | cut -d= -f2- || true)
			[ "$want" = n ] && [ -z "$got" ] && got=n
			if [ "$want" != "$got" ]; then
				echo "  ${opt%%=*}: wanted $want, got ${got:-unset} (${frag##*/})" >&2
				bad=1
			fi
		done <"$frag"
	done
	[ "$bad" = 0 ] || die "config options did not survive olddefconfig"
}

build_kernel() {
	local what=${1:-}
	log "building $flavour bzImage ${what}(log: $build/build.log)"
	if ! make -C "$src" O="$build" -j"$jobs" bzImage >"$build/build.log" 2>&1; then
		tail -n 40 "$build/build.log" >&2
		die "kernel build failed ${what}"
	fi
	if grep -E 'warning:' "$build/build.log" | grep -E 'kernel/bpf/crib|bpf_crib' >&2; then
		die "the CRIB code builds with warnings ${what}"
	fi
}

inputs_hash() {
	{
		echo "$src_pkg $(pkg_version) $flavour"
		cat "$here"/patches/*.patch 2>/dev/null || true
		# shellcheck disable=SC2046
		cat $(fragments) "$here/build.sh"
	} | sha256sum | cut -d' ' -f1
}

main() {
	mkdir -p "$CRIB_KERNEL_DIR"
	# One build at a time per cache: flavours share the source tree.
	exec 9>"$(kernel_lock $mode)"
	flock 9
	command -v pahole >/dev/null || die "pahole missing (apt-get install dwarves)"
	ensure_source_package
	local hash stamp=$build/.crib-inputs
	hash=$(inputs_hash)
	if [ "$check_series" = 0 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ] &&
	   [ -f "$(kernel_image "$flavour" $mode)" ]; then
		log "$flavour kernel up to date ($build)"
		return
	fi
	ensure_pristine_tree
	mkdir -p "$build"
	if [ "$check_series" = 1 ]; then
		[ -d "$src" ] || git -C "$main_src" worktree add -q --detach "$src" pristine
		git_src reset -q --hard pristine
		: >"$(git_src rev-parse --path-format=absolute --git-path crib-applied)"
		rm -f "$build/.crib-config"
	fi
	apply_series
	local frag_hash
	frag_hash=$(cat $(fragments) | sha256sum | cut -d' ' -f1)
	if [ ! -f "$build/.config" ] || [ "$(cat "$build/.crib-config" 2>/dev/null)" != "$frag_hash" ]; then
		configure
		echo "$frag_hash" >"$build/.crib-config"
	fi
	build_kernel
	if [ "$flavour" = release ]; then
		bpftool btf dump file "$build/vmlinux" format c >"$(vmlinux_h $mode).tmp"
		mv "$(vmlinux_h $mode).tmp" "$(vmlinux_h $mode)"
	fi
	echo "$hash" >"$stamp"
	log "$flavour kernel ready: $(kernel_image "$flavour" $mode)"
}

main
