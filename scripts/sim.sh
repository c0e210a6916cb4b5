#!/usr/bin/env bash
# The team core's simulation over many nights (docs/testing.md, "The team
# core's simulation"): scripts/sim.sh [NIGHTS [FIRST]] runs NIGHTS seeds
# (default 100,000) from FIRST (default 1,000,001: past the 2,000 that
# `go test ./...` runs), CHUNK at a time (default 10,000), and prints for
# each chunk its nights, wall time and failing seeds, then the whole run's.
# Each failing seed's report (what broke, the night, the trace, the replay
# command) is kept in $OUT (default ./sim-out).
set -euo pipefail
cd "$(dirname "$0")/.."
nights=${1:-100000}
first=${2:-1000001}
chunk=${CHUNK:-10000}
out=${OUT:-sim-out}
mkdir -p "$out"
bin="$out/sim.test"
go test -c -o "$bin" ./supervisor/sim
start=$(date +%s)
failed=0
for ((f = first; f < first + nights; f += chunk)); do
	c=$((first + nights - f < chunk ? first + nights - f : chunk))
	t0=$(date +%s)
	log="$out/nights-$f.log"
	status=ok
	"$bin" -test.run 'TestSimulation$' -test.timeout 0 -sim.seeds="$c" -sim.first="$f" >"$log" 2>&1 || status=failed
	seeds=$(grep -o "seed [0-9]* broke\|^seed [0-9]*: simulated time stopped" "$log" | grep -o "[0-9]*" | sort -un | tr '\n' ' ' || true)
	n=$(echo "$seeds" | wc -w)
	failed=$((failed + n))
	echo "nights $f-$((f + c - 1)): $c in $(($(date +%s) - t0)) s, $status, failing seeds: ${seeds:-none}"
done
echo "all: $nights nights in $(($(date +%s) - start)) s, $failed failing seeds (logs in $out)"
