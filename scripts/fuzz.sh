#!/usr/bin/env bash
# Fuzzes every Go fuzz target of latgate briefly:
#
#   bash scripts/fuzz.sh            # 5 s per target
#   FUZZTIME=2m bash scripts/fuzz.sh
#
# The targets (found with go test -list, so a new one is fuzzed without
# editing this script) cover the config loader (FuzzParse), the baseline
# loader (FuzzDecode), and the stream frame handling (FuzzParseFrame*, and
# FuzzLineReader for the SSE lines split across reads) and the sanitiser of
# endpoint text (FuzzSanitize). Their seed corpora
# already run in every `go test`; this explores beyond them.
#
# go test fuzzes one target per invocation. A new interesting input is
# minimized for at most FUZZMINIMIZETIME (Go's default of 60 s would stall a
# short run). A failing input is written to the package's
# testdata/fuzz/FuzzX/ directory: commit it with the fix, and it becomes a
# regular test case.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-5s}
minimizetime=${FUZZMINIMIZETIME:-2s}
n=0
for pkg in $(go list ./...); do
	targets=$(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true)
	for target in $targets; do
		echo "=== fuzz $pkg $target ($fuzztime)"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimizetime" "$pkg"
		n=$((n + 1))
	done
done
if [ "$n" -eq 0 ]; then
	echo "no fuzz targets found" >&2
	exit 1
fi
echo "fuzzed $n targets"
