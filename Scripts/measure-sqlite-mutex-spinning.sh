#!/usr/bin/env bash
# What SQLite's own mutex costs concurrent lookups from Swift's cooperative pool: runs crud-bench's
# task-lookups with 4 and 16 workers (raw sqlite3 on a thread each, CRUD from tasks) with SQLite's
# mutexes as it ships them, and with them spinning before they sleep (--spinning-mutexes, that is
# SQLiteProcess.useSpinningMutexes(), which holds for the whole process: raw sqlite3's runs too).
# Prints each run's line; --rounds R repeats them (default 3).
# Usage: Scripts/measure-sqlite-mutex-spinning.sh [--rounds R]
set -euo pipefail
rounds=3
if [ "${1:-}" = "--rounds" ]; then rounds=$2; fi
root=$(cd "$(dirname "$0")/.." && pwd)
swift build -c release --package-path "$root/Benchmarks" >&2
bench="$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/crud-bench"
for workers in 4 16; do
  for round in $(seq "$rounds"); do
    for of in raw crud; do
      for mutexes in "" --spinning-mutexes; do
        line=$("$bench" --only task-lookups --n 100000 --repeats 5 --workers "$workers" --of "$of" $mutexes | head -1)
        printf '%2d workers, round %d, %-4s %-18s %s\n' "$workers" "$round" "$of" "${mutexes:+spinning mutexes}" "$line"
      done
    done
  done
done
