#!/usr/bin/env bash
# Lints latgate's GitHub Actions files:
#
#   bash scripts/lint-actions.sh
#
# 1. actionlint (pinned, built from the Go module proxy) on every workflow in
#    .github/workflows. ci.yml uses the action with `uses: ./`, which is how
#    actionlint checks action.yml: its metadata (required keys, runs:, branding)
#    and the inputs each workflow passes to it. actionlint does not lint the
#    steps inside action.yml (rhysd/actionlint#46).
# 2. actionlint on examples/github-workflow.yml (what `latgate init` writes),
#    copied into a scratch .github/workflows beside a copy of action.yml, with
#    latgate/latgate@v1 pointed at that copy, so the example's inputs are
#    checked against this action.yml too.
# 3. actionlint on examples/app/github-workflow.yml (docs/your-app.md).
# 4. shellcheck on every run: script of action.yml (extracted by the Go test
#    TestRunScriptsShellcheck). actionlint also runs shellcheck on the
#    workflows' run: scripts when shellcheck is on PATH, which this script
#    makes sure of.
set -euo pipefail
cd "$(dirname "$0")/.."

readonly ACTIONLINT=github.com/rhysd/actionlint/cmd/actionlint@v1.7.12

if ! command -v shellcheck >/dev/null; then
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
		echo "installing shellcheck"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >/dev/null
	else
		echo "lint-actions: shellcheck is not installed (apt-get install shellcheck)" >&2
		exit 1
	fi
fi

# actionlint resolves `uses: ./` only inside a Git work tree (.git beside
# .github/workflows); without one it skips action.yml without a word.
if [[ ! -e .git ]]; then
	echo "lint-actions: run from a Git checkout (actionlint needs .git to check action.yml)" >&2
	exit 1
fi

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
GOBIN=$bin go install "$ACTIONLINT"
actionlint=$bin/actionlint

echo "actionlint: .github/workflows/*.yml (and action.yml through uses: ./)"
"$actionlint" -shellcheck shellcheck .github/workflows/*.yml

echo "actionlint: examples/github-workflow.yml (inputs checked against action.yml)"
scratch=$bin/example
mkdir -p "$scratch/.github/workflows"
touch "$scratch/.git"
cp action.yml "$scratch/action.yml"
# A canary first: a wrong input must fail, or action.yml is not being read.
printf '%s\n' 'on: push' 'jobs:' '  canary:' '    runs-on: ubuntu-latest' '    steps:' \
	'      - uses: ./' '        with:' '          no-such-input: x' >"$scratch/.github/workflows/canary.yml"
if canary=$(cd "$scratch" && "$actionlint" .github/workflows/canary.yml 2>&1) ||
	[[ $canary != *'input "no-such-input" is not defined in action "latgate"'* ]]; then
	echo "lint-actions: actionlint did not check a workflow's inputs against action.yml:" >&2
	echo "$canary" >&2
	exit 1
fi
rm "$scratch/.github/workflows/canary.yml"
sed 's#uses: latgate/latgate@v1$#uses: ./#' examples/github-workflow.yml >"$scratch/.github/workflows/latgate.yml"
if ! grep -q 'uses: \./$' "$scratch/.github/workflows/latgate.yml"; then
	echo "lint-actions: examples/github-workflow.yml no longer uses latgate/latgate@v1; update this script" >&2
	exit 1
fi
(cd "$scratch" && "$actionlint" -shellcheck shellcheck .github/workflows/latgate.yml)

echo "actionlint: examples/app/github-workflow.yml (your own app's recipe)"
cp examples/app/github-workflow.yml "$scratch/.github/workflows/app-latency.yml"   # = internal/workflow/app-workflow.yml (TestAppExampleInSync)
(cd "$scratch" && "$actionlint" -shellcheck shellcheck .github/workflows/app-latency.yml)

echo "shellcheck: the run: scripts of action.yml"
LATGATE_REQUIRE_SHELLCHECK=1 go test -count=1 -run 'TestRunScriptsShellcheck' ./test/action/

echo "lint-actions: ok"
