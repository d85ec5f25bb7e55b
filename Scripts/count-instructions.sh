#!/usr/bin/env bash
# Counts the instructions CRUD and raw sqlite3 execute per SQLite workload (lookups in one read
# transaction, the join as the same two queries), with valgrind's callgrind: repeatable where
# timings on a shared machine are not. Prints CRUD's count as a multiple of raw's, for the first
# run of each workload in a process ("cold": with the one-time costs of a first use, such as the
# Swift runtime instantiating generic types) and for a run after it ("warm": one run of two minus
# one run alone, what every later query costs).
# Usage: Scripts/count-instructions.sh [rows] [implementation]   (default 20000 rows and crud; needs
# valgrind and binutils' objcopy). The implementation crud-any counts CRUD through AnyDatabase instead of Database<SQLite…>.
set -euo pipefail
rows=${1:-20000}
implementation=${2:-crud}
case "$implementation" in
  crud) symbol=BenchCRUD18CRUDImplementationC ;;
  crud-any) symbol=BenchCRUD21CRUDAnyImplementationC ;;
  *) echo "unknown implementation $implementation: crud or crud-any" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
swift build -c release --disable-build-manifest-caching --package-path "$root/Benchmarks" >&2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Counted without its debug information, which callgrind reads by symbol names alone: valgrind's
# reader gives up on the DWARF 5 that the C parts of the PostgreSQL benchmark's packages carry.
bench="$out/crud-bench"
objcopy --strip-debug "$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/crud-bench" "$bench"
# Each workload runs in a process of its own: the optimizer merges protocol witnesses that look
# alike (the lookup's and the chain lookup's, say) into one function, whose inclusive count would
# hold every workload that calls it.
profile() {
  valgrind --tool=callgrind --callgrind-out-file="$out/$1" "$bench" --n "$rows" --rounds "$3" --backends sqlite \
    --implementations "$implementation" --only "$2" >/dev/null 2>&1
  callgrind_annotate --inclusive=yes --threshold=100 "$out/$1" > "$out/$1.txt" 2>/dev/null
}
for rounds in 1 2; do
  for workload in insert fetch lookup chain-lookup filtered join json pages; do
    profile "$workload$rounds" "$workload" "$rounds"
  done
done
count() { grep -E "$2" "$out/$1.txt" | head -1 | awk '{gsub(",", "", $1); print $1}'; }
ratio() { echo "$1 / $2" | bc -l; }
printf '%-10s %15s %15s %8s %15s %15s %8s\n' workload "raw, cold" "CRUD, cold" ratio "raw, warm" "CRUD, warm" ratio
# Each implementation's protocol entry point (its witness), so that what an implementation does
# around the workload (the lookups' read transaction) is counted on both sides.
for workload in insert:insert:6insert fetch:fetch:8fetchAll lookup:lookup:6lookup chain-lookup:chain:11chainLookup \
                filtered:filtered:8filtered join:join:19parentsWithChildren json:json:9documents pages:pages:5pages; do
  IFS=: read -r file name method <<< "$workload"
  raw="BenchRaw0B14ImplementationC.*EP${method}.*TW"
  crud="${symbol}.*EP${method}.*TW"
  raw1=$(count "${file}1" "$raw"); crud1=$(count "${file}1" "$crud")
  raw2=$(( $(count "${file}2" "$raw") - raw1 )); crud2=$(( $(count "${file}2" "$crud") - crud1 ))
  printf '%-10s %15s %15s %7.2fx %15s %15s %7.2fx\n' "$name" "$raw1" "$crud1" "$(ratio "$crud1" "$raw1")" \
    "$raw2" "$crud2" "$(ratio "$crud2" "$raw2")"
done
