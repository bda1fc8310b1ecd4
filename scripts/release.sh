#!/usr/bin/env bash
# Builds latgate's release binaries and their checksums:
#
#   bash scripts/release.sh v1.2.3 [OUTDIR]       # OUTDIR defaults to dist
#
# For linux, darwin and windows on amd64 and arm64 it writes
# OUTDIR/latgate_OS_ARCH (.exe on windows) and OUTDIR/SHA256SUMS (the format of
# `sha256sum`, so `sha256sum --check SHA256SUMS` verifies them). The asset
# names carry no version, so the action finds them under any tag of a
# release (v1.2.3, or the moving v1).
#
# The builds are reproducible: CGO off, -trimpath (no local paths), no build
# ID, the version set at link time; the same commit and Go version give the
# same bytes. In a Git checkout (.git a directory) Go also stamps the commit,
# which `latgate version` prints.
#
# RELEASE_TARGETS="linux/amd64 darwin/arm64" builds a subset (the tests do).
# RELEASE_JOBS=N builds N targets at once (default 2): one go build leaves
# cores idle on its dependency chain and while it links, and the targets
# share no compiled package. The output does not depend on it.
set -euo pipefail
cd "$(dirname "$0")/.."

version=${1:-}
out=${2:-dist}
if [[ ! "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
	echo "release: want a version like v1.2.3 (or v1.2.3-rc.1), got '$version'" >&2
	echo "usage: bash scripts/release.sh VERSION [OUTDIR]" >&2
	exit 2
fi
targets=${RELEASE_TARGETS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"}
jobs=${RELEASE_JOBS:-2}
if [[ ! "$jobs" =~ ^[1-9][0-9]*$ ]]; then
	echo "release: RELEASE_JOBS must be a positive number, got '$jobs'" >&2
	exit 2
fi

mkdir -p -- "$out"
# Only this run's files: a stale binary must not be listed or shipped.
rm -f -- "$out"/latgate_* "$out"/SHA256SUMS

ldflags="-s -w -buildid= -X github.com/latgate/latgate/internal/cli.Version=$version"
logs=$(mktemp -d)
trap 'rm -rf -- "$logs"' EXIT

# build TARGET NAME: one binary; its output goes to a log, shown on failure.
build() {
	CGO_ENABLED=0 GOOS=${1%/*} GOARCH=${1#*/} GOFLAGS='' \
		go build -trimpath -buildvcs=auto -ldflags="$ldflags" -o "$out/$2" ./cmd/latgate >"$logs/$2" 2>&1
}

names=()
running=() # "PID NAME" of the builds in flight, oldest first
failed=()
# reap_oldest: wait for the oldest build in flight, and remember it if it
# failed. (Waiting for a given PID, not wait -n: bash 3.2 on macOS has it.)
reap_oldest() {
	local pid=${running[0]%% *} name=${running[0]#* }
	running=("${running[@]:1}")
	if ! wait "$pid"; then
		failed+=("$name")
	fi
}
for target in $targets; do
	goos=${target%/*}
	goarch=${target#*/}
	name="latgate_${goos}_${goarch}"
	if [[ "$goos" == windows ]]; then
		name+=".exe"
	fi
	names+=("$name")
	while ((${#running[@]} >= jobs)); do
		reap_oldest
	done
	echo "building $name"
	build "$target" "$name" &
	running+=("$! $name")
done
while ((${#running[@]} > 0)); do
	reap_oldest
done
if ((${#failed[@]} > 0)); then
	for name in "${failed[@]}"; do
		echo "release: building $name failed:" >&2
		cat -- "$logs/$name" >&2
	done
	exit 1
fi
for name in "${names[@]}"; do
	cat -- "$logs/$name" # go build's warnings, if any
done

(cd "$out" && sha256sum -- latgate_* | LC_ALL=C sort -k 2 > SHA256SUMS)
echo "wrote $out/SHA256SUMS:"
cat "$out/SHA256SUMS"
