#!/usr/bin/env bash
# Rehearse the nightly job on the built-in simulator: bless, then 24 "nights"
# of `latgate check --history` whose latency scale carries ±5% noise and
# steps up 30% from night 15, then `latgate trend`. Prints trend's report and
# writes its Markdown (with the charts) to $OUT (default: nightly-demo.md) and
# its HTML page to $HTML (default: nightly-demo.html), and tune's proposal
# to $TUNE (default: nightly-demo-tune.yaml).
# Loopback only; about five minutes. Usage: bash scripts/nightly-demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-nightly-demo.md}
HTML=${HTML:-nightly-demo.html}
TUNE=${TUNE:-nightly-demo-tune.yaml}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/latgate" ./cmd/latgate
cp examples/latgate.yaml "$tmp/latgate.yaml"
lg() { "$tmp/latgate" "$@"; }
flags=(--config "$tmp/latgate.yaml" --quiet)
lg bless "${flags[@]}" --base-url 'sim:default?seed=1000' >/dev/null
for night in $(seq 1 24); do
	# the night's scale: ×1.3 from night 15, times lognormal noise σ 5% (seeded)
	# (the n-th draw of one seeded stream: awk's first draws of nearby seeds correlate)
	scale=$(awk -v n="$night" 'BEGIN { srand(42); for (i = 0; i < n; i++) { u1 = rand(); u2 = rand() }
		z = sqrt(-2 * log(1 - u1)) * cos(6.283185307 * u2);
		printf "%.4f", (n >= 15 ? 1.3 : 1) * exp(0.05 * z) }')
	code=0
	lg check "${flags[@]}" --history "$tmp/history.jsonl" --base-url "sim:default?slowdown=$scale&seed=$night" >/dev/null 2>&1 || code=$?
	echo "night $night: scale $scale, check exit $code"
done
code=0
lg trend --config "$tmp/latgate.yaml" --history "$tmp/history.jsonl" --markdown "$OUT" --html "$HTML" || code=$?
echo "trend exit $code; Markdown in $OUT, HTML in $HTML"
lg tune --config "$tmp/latgate.yaml" --history "$tmp/history.jsonl" > "$TUNE" && echo "tune's proposal in $TUNE"
