#!/usr/bin/env bash
# The figures a restructuring must not worsen — the build, the nameserver, the write path, the
# ~1 MiB zone-file import —
# for an earlier tree and this one, in interleaved rounds of one run, so that both see the same
# machine (adjacent runs of one tree differ by up to 30 % on a shared machine; compare within a
# run only). Each run gets a fresh scratch database.
#
#   bench/beforeAfter.sh <earlier-rev> [rounds=3]
#
# Needs PostgreSQL at 127.0.0.1:5432 (createdb/dropdb), dnsperf and wrk. Prints each run's output
# under a header naming the tree and the round.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: bench/beforeAfter.sh <earlier-rev> [rounds]}
rounds=${2:-3}
pg=postgres://postgres@127.0.0.1:5432

before=$(mktemp -d /tmp/bench-before.XXXXXX)
trap 'rm -rf "$before"' EXIT
git archive "$base" | tar -x -C "$before"
ln -s "$PWD/node_modules" "$before/node_modules"
cp bench/handlerLoop.ts "$before/bench/"

scratch() { dropdb --if-exists -h 127.0.0.1 -U postgres "$1"; createdb -h 127.0.0.1 -U postgres "$1"; }

run() {
  local label=$1 dir=$2 round=$3
  echo "=== $label ($(git -C "$PWD" rev-parse --short "${4:-HEAD}")), round $round, $(date -u +%H:%M:%S) ==="
  scratch mdns_bench_pair
  (cd "$dir" && DATABASE_URL=$pg/mdns_bench_pair node --import tsx bench/publishBuild.ts 100) 2>&1 | grep 'p50' || true
  (cd "$dir" && node --import tsx bench/nameserverQps.ts 5 4) 2>&1 | grep 'q/s' || true
  (cd "$dir" && node --import tsx bench/handlerLoop.ts cache && node --import tsx bench/handlerLoop.ts nocache) 2>&1 | grep 'per handleQuery' || true
  scratch mdns_bench_pair
  (cd "$dir" && ROLES=api ONLY_10x10=1 DATABASE_URL=$pg/mdns_bench_pair node --import tsx bench/recordWritesWrk.ts 10) 2>&1 | grep '^| 10 ' || true
  (cd "$dir" && DATABASE_URL=$pg/postgres node --import tsx bench/zoneImport.ts 3) 2>&1 | grep -E '^\| (dry|applied)' || true
  dropdb --if-exists -h 127.0.0.1 -U postgres mdns_bench_pair
}

echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), node $(node --version), load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$rounds"); do
  run before "$before" "$round" "$base"
  run after "$PWD" "$round" HEAD
done
