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

mkdir -p -- "$out"
# Only this run's files: a stale binary must not be listed or shipped.
rm -f -- "$out"/latgate_* "$out"/SHA256SUMS

ldflags="-s -w -buildid= -X github.com/latgate/latgate/internal/cli.Version=$version"
for target in $targets; do
	goos=${target%/*}
	goarch=${target#*/}
	name="latgate_${goos}_${goarch}"
	if [[ "$goos" == windows ]]; then
		name+=".exe"
	fi
	echo "building $name"
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch GOFLAGS='' \
		go build -trimpath -buildvcs=auto -ldflags="$ldflags" -o "$out/$name" ./cmd/latgate
done

(cd "$out" && sha256sum -- latgate_* | LC_ALL=C sort -k 2 > SHA256SUMS)
echo "wrote $out/SHA256SUMS:"
cat "$out/SHA256SUMS"
