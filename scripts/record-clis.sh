#!/usr/bin/env bash
# record-clis.sh — re-record the raw pty streams of the real agent CLIs in
# protocol/testdata/cli-{claude,codex,gemini,opencode,qwen,copilot}/ (see
# protocol/testdata/README.md).
#
#   scripts/record-clis.sh [CLI...]      default: claude codex gemini opencode qwen copilot
#
# RECORD_ONLY="dialog-auto dialog-default" records only those scenarios
# (the limit scenarios wait for a reset: limit-subscriber about 2.5 min).
#
# Installs the pinned CLIs with scripts/install-clis.sh (cache dir from
# $WARDEN_CLIS_DIR, default ~/.cache/warden-clis), builds
# testrig/record, and runs each scenario against the fake provider
# in testrig/fakeprovider. Needs no network beyond the npm registry (and
# none at all once the CLIs are installed); no real credential is used.
set -euo pipefail

top="$(cd "$(dirname "$0")/.." && pwd -P)"
cd "$top"
clis=("$@")
[ "${#clis[@]}" -gt 0 ] || clis=(claude codex gemini opencode qwen copilot)

bin_dir="$(scripts/install-clis.sh "${WARDEN_CLIS_DIR:-$HOME/.cache/warden-clis}" | tail -n 1)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go build -o "$work/record" ./testrig/record

status=0
for cli in "${clis[@]}"; do
	out="protocol/testdata/cli-$cli"
	mkdir -p "$out"
	runs=("checkpoint 200" "checkpoint 80" "repeat 200" "usage-limit 200")
	case "$cli" in
	claude) runs+=("dialog-auto 200" "dialog-default 200" "limit-subscriber 200") ;;
	codex) runs+=("dialog 200" "near-limit 200" "limit-reset 200") ;;
	gemini) runs+=("dialog 200" "limit-reset 200") ;;
	*) runs+=("dialog 200") ;;
	esac
	for run in "${runs[@]}"; do
		set -- $run
		if [ -n "${RECORD_ONLY:-}" ] && ! [[ " $RECORD_ONLY " == *" $1 "* ]]; then
			continue
		fi
		echo "record-clis: $cli $1 at $2 columns" >&2
		if ! "$work/record" -cli "$cli" -bin "$bin_dir" -out "$out" -scenario "$1" -cols "$2" -rows 50; then
			echo "record-clis: $cli $1 $2 failed" >&2
			status=1
		fi
	done
done

# Nothing of this machine's user may leak into a recording.
if grep -l -a -e "$HOME/" -e "$bin_dir" protocol/testdata/cli-*/*.raw protocol/testdata/cli-*/*.json 2>/dev/null; then
	echo "record-clis: the files above mention the home directory" >&2
	status=1
fi
# No CLI process may outlive its recording (Codex's daemon, Gemini's children).
if ps -eo pid,args | grep -F /var/tmp/warden-record- | grep -v -e grep -e "ps -eo"; then
	echo "record-clis: the processes above were left running" >&2
	status=1
fi
ls -l protocol/testdata/cli-*/ >&2
exit "$status"
