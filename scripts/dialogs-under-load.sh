#!/usr/bin/env bash
# Every real CLI's dialog tests beside a CPU burner on every core (issue 35:
# no key reaches a dialog under load). scripts/dialogs-under-load.sh [N [RUN]]
# runs the supervisor/realclis tests matching RUN (default TestRealCLIDialogDenied,
# TestRealCLIDialogWaits and TestRealCLIAnswer) N times each (-count, default 20)
# while one shell busy loop per core (`nproc`) runs, then stops the loops and
# prints, for each test and CLI set-up: runs, failures, skips, the main
# requests that reached the model while a dialog showed (the CLIs' own side
# calls, such as Codex's title, are not main requests) and the runs in which
# a command the dialog should have stopped ran (its file was written). The
# tests log both in a line "under the dialog: requests=N command_ran=B".
# BURNERS sets how many loops (default `nproc`). The test binary's JSON
# output is kept in $OUT (default ./dialogs-out).
# The real CLIs must be installed (scripts/install-clis.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20}
run=${2:-'^(TestRealCLIDialogDenied|TestRealCLIDialogWaits|TestRealCLIAnswer)$'}
out=${OUT:-dialogs-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin="$out/realclis.test"
go test -tags e2e -c -o "$bin" ./supervisor/realclis
json="$out/dialogs-$(date -u +%Y%m%dT%H%M%SZ).json"

burners=()
stop_burners() {
	for p in "${burners[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${burners[@]}"; do wait "$p" 2>/dev/null || true; done
	burners=()
}
trap stop_burners EXIT
for ((i = 0; i < ${BURNERS:-$(nproc)}; i++)); do
	sh -c 'while :; do :; done' &
	burners+=("$!")
done

echo "$(date -u +%FT%TZ) nproc $(nproc), ${#burners[@]} burners, load $(cut -d' ' -f1-3 /proc/loadavg); -count $n, -run '$run'"
start=$(date +%s)
status=0
(cd supervisor/realclis && go tool test2json -t -p realclis "$bin" -test.v=test2json \
	-test.run "$run" -test.count "$n" -test.timeout 6h) >"$json" 2>&1 || status=$?
load=$(cut -d' ' -f1-3 /proc/loadavg)
stop_burners
echo "$(date -u +%FT%TZ) done in $(($(date +%s) - start)) s, exit $status, load at the end $load (before the burners stopped); JSON in $json"

# One line per leaf subtest's pass, fail or skip, and per figure line.
jq -r 'select(.Test != null and (.Test | test("/")) and (.Test | test("/each$") | not))
	| select(.Action == "pass" or .Action == "fail" or .Action == "skip"
		or (.Action == "output" and (.Output | test("under the dialog: "))))
	| [.Test, .Action, (.Output // "" | gsub("[\\t\\n]"; " "))] | @tsv' "$json" |
	awk -F'\t' '
	{
		split($1, p, "/"); key = p[1] " " p[length(p)]
		if (!(key in runs)) { order[++k] = key; runs[key] = 0 }
		if ($2 == "pass" || $2 == "fail") runs[key]++
		if ($2 == "fail") fails[key]++
		if ($2 == "skip") skips[key]++
		if ($2 == "output") {
			match($3, /requests=[0-9]+/); req[key] += substr($3, RSTART + 9, RLENGTH - 9)
			if ($3 ~ /command_ran=true/) ran[key]++
			seen[key]++
		}
	}
	END {
		printf "%-26s %-16s %5s %8s %6s %17s %12s %14s\n", "test", "cli", "runs", "failures", "skips", "requests/dialog", "commands run", "figure lines"
		for (i = 1; i <= k; i++) {
			split(order[i], p, " ")
			printf "%-26s %-16s %5d %8d %6d %17d %12d %14d\n", p[1], p[2], runs[order[i]], fails[order[i]], skips[order[i]], req[order[i]], ran[order[i]], seen[order[i]]
			tr += runs[order[i]]; tf += fails[order[i]]; ts += skips[order[i]]; tq += req[order[i]]; tc += ran[order[i]]
		}
		printf "%-26s %-16s %5d %8d %6d %17d %12d\n", "all", "", tr, tf, ts, tq, tc
	}'
# A failure outside a CLI's subtest (a process left, the build) shows here.
jq -r 'select(.Action == "fail" and (.Test == null or (.Test | test("/") | not) or (.Test | test("/each$")))) | "failed: " + (.Test // "the package")' "$json" | sort | uniq -c
exit "$status"
