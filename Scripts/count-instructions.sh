#!/usr/bin/env bash
# Counts the instructions CRUD and raw sqlite3 execute per SQLite workload (lookups in one read
# transaction, the join as the same two queries), with valgrind's
# callgrind: repeatable where timings on a shared machine are not. Prints CRUD's count as a
# multiple of raw's. Usage: Scripts/count-instructions.sh [rows]   (default 20000; needs valgrind)
set -euo pipefail
rows=${1:-20000}
root=$(cd "$(dirname "$0")/.." && pwd)
swift build -c release --disable-build-manifest-caching --package-path "$root/Benchmarks" >&2
bench="$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/crud-bench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Inserts run alone: the read workloads first fill their database with raw inserts.
profile() {
  valgrind --tool=callgrind --callgrind-out-file="$out/$1" "$bench" --n "$rows" --rounds 1 --backends sqlite \
    --implementations crud --only "$2" >/dev/null 2>&1
  callgrind_annotate --inclusive=yes --threshold=100 "$out/$1" > "$out/$1.txt" 2>/dev/null
}
profile writes insert
profile reads fetch,lookup,filtered,join
count() { grep -E "$2" "$out/$1.txt" | head -1 | awk '{gsub(",", "", $1); print $1}'; }
printf '%-10s %15s %15s %8s\n' workload "raw sqlite3" CRUD ratio
# Each implementation's protocol entry point (its witness), so that what an implementation does
# around the workload (the lookups' read transaction) is counted on both sides.
for workload in writes:insert:6insert reads:fetch:8fetchAll reads:lookup:6lookup reads:filtered:8filtered \
                reads:join:19parentsWithChildren; do
  IFS=: read -r file name method <<< "$workload"
  raw=$(count "$file" "BenchRaw0B14ImplementationC.*EP${method}.*TW")
  crud=$(count "$file" "BenchCRUD18CRUDImplementationC.*EP${method}.*TW")
  printf '%-10s %15s %15s %7.2fx\n' "$name" "$raw" "$crud" "$(echo "$crud / $raw" | bc -l)"
done
