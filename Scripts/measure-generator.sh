#!/usr/bin/env bash
# Times the release build of crud-gen on 1,000 model files of ten stored properties each
# (10,000 properties), made from Scripts/scale-model.swift.template, end to end: reading, lexing, parsing, analysis, emission, writing.
# Usage: Scripts/measure-generator.sh [runs]    (default 7 runs; prints each and the median)
set -euo pipefail
runs=${1:-7}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

swift build -c release --product crud-gen --package-path "$root" >&2
bin="$(swift build -c release --product crud-gen --package-path "$root" --show-bin-path)/crud-gen"

mkdir -p "$work/Models"
template=$(cat "$root/Scripts/scale-model.swift.template")
for i in $(seq 0 999); do
  previous=$(( i == 0 ? 0 : i - 1 ))
  model=${template//__INDEX__/$i}
  printf '%s\n' "${model//__PREVIOUS__/$previous}" > "$work/Models/Model$i.swift"
done

times=()
for run in $(seq 1 "$runs"); do
  rm -f "$work/Generated.swift"
  start=$(date +%s%N)
  "$bin" --output "$work/Generated.swift" --root "$work" "$work/Models"
  end=$(date +%s%N)
  ms=$(( (end - start) / 1000000 ))
  times+=("$ms")
  echo "run $run: ${ms} ms"
done
models=$(grep -c '^extension Model[0-9]* {' "$work/Generated.swift")
[ "$models" -eq 1000 ] || { echo "expected 1000 generated models, found $models" >&2; exit 1; }
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
echo "crud-gen, 1,000 files / 10,000 properties, release: median ${median} ms over $runs runs ($models models generated)"
