#!/usr/bin/env bash
# Runs the release crud-gen over a directory of real Swift files, one target per package folder, and
# reports CPU time and peak memory (GNU time). Without an argument it gathers the Swift files of the
# packages in the machine's package mirror (/opt/swift-packages, one bare git repository each).
# Usage: Scripts/measure-generator-real.sh [directory]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

swift build -c release --product crud-gen --package-path "$root" >&2
bin="$(swift build -c release --product crud-gen --package-path "$root" --show-bin-path)/crud-gen"

corpus=${1:-}
if [ -z "$corpus" ]; then
  corpus="$work/corpus"
  mkdir -p "$corpus"
  for repository in /opt/swift-packages/*/*.git; do
    name=$(basename "$(dirname "$repository")")-$(basename "$repository" .git)
    mkdir -p "$corpus/$name"
    git -C "$repository" archive HEAD 2>/dev/null | tar -x -C "$corpus/$name" --wildcards '*.swift' 2>/dev/null || true
  done
fi
files=$(find "$corpus" -type f -name '*.swift' | wc -l)
lines=$(find "$corpus" -type f -name '*.swift' -print0 | xargs -0 cat | wc -l)

# GNU time's CPU seconds (user + system) and peak memory (KB) of one crud-gen run.
measure() {
  /usr/bin/time -f 'measured %U %S %M' -o "$work/time" "$bin" --output "$work/Generated.swift" --root "$corpus" "$@" \
    >/dev/null 2>>"$work/diagnostics" || true
  grep '^measured' "$work/time" | cut -d' ' -f2-
}

# One run per package folder, as the plugin runs once per target.
cpu=0
peak=0
runs=0
for package in "$corpus"/*/; do
  read -r user system kilobytes <<< "$(measure "$package")"
  cpu=$(echo "$cpu + $user + $system" | bc)
  [ "$kilobytes" -gt "$peak" ] && peak=$kilobytes
  runs=$((runs + 1))
done
echo "crud-gen over $files files ($lines lines), one run per package ($runs runs): $cpu s CPU in all," \
  "$(echo "scale=3; $cpu * 1000 / $files" | bc) s per 1,000 files, largest peak memory $((peak / 1024)) MB"

# The first 5,000 files in one run: the memory one target of that size needs.
find "$corpus" -type f -name '*.swift' | sort > "$work/all"
head -n 5000 "$work/all" > "$work/first5000"
mapfile -t first < "$work/first5000"
read -r user system kilobytes <<< "$(measure "${first[@]}")"
echo "crud-gen over ${#first[@]} files in one run: $(echo "$user + $system" | bc) s CPU, peak memory $((kilobytes / 1024)) MB"
echo "($(grep -c ': error:' "$work/diagnostics" || true) error diagnostics in all runs)"
