#!/usr/bin/env bash
# Build the CRIB kernel: Debian's linux-source-6.12 with kernel/patches/
# applied, configured from tinyconfig plus kernel/config/*.config.
#
#   kernel/build.sh [--flavour release|debug] [--check-series]
#
# kernel/patches/0000-cover-letter.patch is the series' cover letter, not
# a patch: it is never applied.
#
# --check-series applies the patches one by one in a tree of its own and
# builds after each: the flavour's kernel, and two small kernels without
# networking (config/check-nonet.config) and without IPv4
# (config/check-noinet.config), with CONFIG_BPF_CRIB asked for, to show
# that every patch builds and that CRIB's dependencies are right.  A run
# that stops resumes after the last patch that built everywhere.
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

# The series: every patch but the cover letter, in order.
series() {
	local p
	for p in "$here"/patches/[0-9][0-9][0-9][0-9]-*.patch; do
		[ -e "$p" ] || continue
		[ "${p##*/}" = 0000-cover-letter.patch ] && continue
		echo "$p"
	done
}

# The configurations --check-series builds besides the flavour's.
check_variants() { echo nonet noinet; }

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

# What identifies a patch for the build: its diff.  A new subject, message
# or date (renumbering the series) rebuilds nothing.
patch_key() { sed -n '/^diff --git /,$p' "$1" | sha256sum | cut -d' ' -f1; }

# Apply kernel/patches/*.patch, reusing the applied prefix that matches.
apply_series() {
	local applied base=pristine i=0 line hash
	applied=$(git_src rev-parse --path-format=absolute --git-path crib-applied)
	local -a patches=()
	mapfile -t patches < <(series)
	touch "$applied"
	local -a old=()
	mapfile -t old <"$applied"
	for ((i = 0; i < ${#patches[@]}; i++)); do
		hash=$(patch_key "${patches[$i]}")
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
	# A tree copied or touched behind git's back has stale stat data in
	# the index, and reset would rewrite every such file: all of them.
	git_src update-index -q --refresh >/dev/null || true
	save_times "$base" "$applied.times"
	git_src reset -q --hard "$base"
	head -n "$keep" "$applied" >"$applied.new" || true
	for ((i = keep; i < ${#patches[@]}; i++)); do
		git_src am -q --keep-cr "${patches[$i]}" ||
			{ git_src am --abort >/dev/null 2>&1 || true
			  die "patch ${patches[$i]##*/} does not apply"; }
		if [ "$check_series" = 1 ]; then
			[ "$i" -eq 0 ] && configure_all_checks
			build_checks "after ${patches[$i]##*/} "
		fi
		echo "$(patch_key "${patches[$i]}") $(git_src rev-parse HEAD)" >>"$applied.new"
		# A checked patch stays checked if the run stops later.
		[ "$check_series" = 1 ] && cp "$applied.new" "$applied"
	done
	restore_times "$applied.times"
	mv "$applied.new" "$applied"
}

# Rewinding the tree and applying the patches again rewrites every file
# the later patches touch, and make would rebuild whatever includes them
# (security.h, btf.h: most of the kernel).  A file that comes back with
# the content it had gets its modification time back.
# save_times BASE LIST: the files changed since BASE, with time and blob.
save_times() {
	local f
	git_src diff --name-only "$1" HEAD | while IFS= read -r f; do
		[ -f "$src/$f" ] || continue
		printf '%s %s %s\n' "$(stat -c %.9Y "$src/$f")" \
			"$(git_src hash-object "$src/$f")" "$f"
	done >"$2"
}

# restore_times LIST: put back the time of each file whose content is unchanged.
restore_times() {
	local mtime blob f
	while read -r mtime blob f; do
		if [ -f "$src/$f" ] && [ "$(git_src hash-object "$src/$f")" = "$blob" ]; then
			touch -d "@$mtime" "$src/$f"
		fi
	done <"$1"
	rm -f "$1"
}

# tinyconfig + fragments; every option a fragment asks for must survive.
configure() {
	log "configuring $flavour"
	# shellcheck disable=SC2046
	merge_config "$build" $(fragments)
	# shellcheck disable=SC2046
	check_config "$build" $(fragments)
}

# tinyconfig + fragments in build directory DIR.  merge_config DIR FRAGMENT...
merge_config() {
	local dir=$1
	shift
	mkdir -p "$dir"
	make -s -C "$src" O="$dir" tinyconfig >/dev/null
	# merge_config.sh leaves its temporary files in the current directory.
	(cd "$dir" && "$src/scripts/kconfig/merge_config.sh" -m -O "$dir" .config "$@") >/dev/null
	make -s -C "$src" O="$dir" olddefconfig >/dev/null
}

# Every option the fragments ask for survived.  check_config DIR FRAGMENT...
check_config() {
	local dir=$1 frag opt want got bad=0
	shift
	for frag in "$@"; do
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
			got=$(grep -E "^${opt%%=*}=" "$dir/.config" | cut -d= -f2- || true)
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
	build_dir "$build" "$flavour bzImage" bzImage "${1:-}"
}

# make TARGET in DIR, quietly; warnings in the CRIB code fail it.
# build_dir DIR WHAT TARGET [WHEN]
build_dir() {
	local dir=$1 what=$2 target=$3 when=${4:-}
	log "building $what ${when}(log: $dir/build.log)"
	if ! make -C "$src" O="$dir" -j"$jobs" "$target" >"$dir/build.log" 2>&1; then
		tail -n 40 "$dir/build.log" >&2
		die "$what build failed ${when}"
	fi
	if grep -E 'warning:' "$dir/build.log" | grep -E 'kernel/bpf/crib|bpf_crib' >&2; then
		die "the CRIB code builds with warnings ${when}"
	fi
}

# --check-series: the flavour's configuration and the variants, each in a
# build directory of its own.  A variant asks for CONFIG_BPF_CRIB with
# networking or IPv4 off: what matters is that the kernel builds, and
# says whether CRIB was left in.
configure_all_checks() {
	local v dir
	configure
	for v in $(check_variants); do
		log "configuring check-$v"
		dir=$(kernel_build_dir "$v" check)
		merge_config "$dir" "$here/config/check-$v.config"
		# all it asks for but CRIB itself must hold
		grep -v BPF_CRIB "$here/config/check-$v.config" >"$dir/.crib-required"
		check_config "$dir" "$dir/.crib-required"
	done
}

build_checks() {
	local v dir crib
	build_kernel "$1"
	for v in $(check_variants); do
		dir=$(kernel_build_dir "$v" check)
		make -s -C "$src" O="$dir" olddefconfig >/dev/null
		grep -q '^CONFIG_BPF_CRIB=y' "$dir/.config" && crib=with || crib=without
		build_dir "$dir" "check-$v vmlinux ($crib CRIB)" vmlinux "$1"
	done
}

# What the check builds are configured from.
check_config_hash() {
	local v
	{
		echo "$src_pkg $(pkg_version) $flavour"
		# shellcheck disable=SC2046
		cat $(fragments)
		for v in $(check_variants); do cat "$here/config/check-$v.config"; done
	} | sha256sum | cut -d' ' -f1
}

# The check tree resumes after the last patch that built in every
# configuration, unless the configurations changed or a build directory
# went: then it starts again from the pristine tree.
prepare_check_tree() {
	local applied stamp want v fresh=0
	[ -d "$src" ] || git -C "$main_src" worktree add -q --detach "$src" pristine
	applied=$(git_src rev-parse --path-format=absolute --git-path crib-applied)
	stamp=$(git_src rev-parse --path-format=absolute --git-path crib-check-config)
	want=$(check_config_hash)
	[ "$(cat "$stamp" 2>/dev/null)" = "$want" ] || fresh=1
	[ -f "$build/.config" ] || fresh=1
	for v in $(check_variants); do
		[ -f "$(kernel_build_dir "$v" check)/.config" ] || fresh=1
	done
	if [ "$fresh" = 1 ]; then
		git_src reset -q --hard pristine
		: >"$applied"
		echo "$want" >"$stamp"
		rm -f "$build/.crib-config"
	else
		log "check: resuming after $(wc -l <"$applied") checked patches"
	fi
}

inputs_hash() {
	{
		echo "$src_pkg $(pkg_version) $flavour"
		# shellcheck disable=SC2046
		cat $(series) /dev/null
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
	[ "$check_series" = 1 ] && prepare_check_tree

	apply_series
	local frag_hash
	# shellcheck disable=SC2046
	frag_hash=$(cat $(fragments) /dev/null | sha256sum | cut -d' ' -f1)
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
