#!/usr/bin/env bash
# What SQLite's own mutex costs CRUD's concurrent lookups from Swift's cooperative pool: runs
# crud-bench's task-lookups with 4 and 16 workers (raw sqlite3 on a thread each, CRUD from tasks)
# as SQLite ships, and again with the mutexes that libsqlite3 makes without attributes (its
# non-recursive ones, the WAL index's among them) made adaptive, spinning briefly before they sleep,
# by a preloaded library. An experiment, not a setting: SQLite's mutexes can be replaced only for
# the whole process. Prints each run's line; --rounds R repeats them.
# Usage: Scripts/measure-sqlite-mutex-spinning.sh [--rounds R]   (default 3; needs gcc)
set -euo pipefail
rounds=3
if [ "${1:-}" = "--rounds" ]; then rounds=$2; fi
root=$(cd "$(dirname "$0")/.." && pwd)
swift build -c release --package-path "$root/Benchmarks" >&2
bench="$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/crud-bench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat > "$out/adaptive.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>

#include <string.h>

/* A mutex libsqlite3 makes without attributes is made adaptive; every other stays as asked. */
int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attributes) {
    static int (*next)(pthread_mutex_t *, const pthread_mutexattr_t *);
    if (!next) next = (int (*)(pthread_mutex_t *, const pthread_mutexattr_t *))dlsym(RTLD_NEXT, "pthread_mutex_init");
    Dl_info caller;
    if (attributes || !dladdr(__builtin_return_address(0), &caller) || !caller.dli_fname
        || !strstr(caller.dli_fname, "libsqlite3")) return next(mutex, attributes);
    pthread_mutexattr_t adaptive;
    pthread_mutexattr_init(&adaptive);
    pthread_mutexattr_settype(&adaptive, PTHREAD_MUTEX_ADAPTIVE_NP);
    int result = next(mutex, &adaptive);
    pthread_mutexattr_destroy(&adaptive);
    return result;
}
EOF
gcc -O2 -shared -fPIC -o "$out/adaptive.so" "$out/adaptive.c" -ldl
for workers in 4 16; do
  for round in $(seq "$rounds"); do
    for of in raw crud; do
      for preload in "" "$out/adaptive.so"; do
        line=$(LD_PRELOAD=$preload "$bench" --only task-lookups --n 100000 --repeats 5 --workers "$workers" --of "$of" | head -1)
        printf '%2d workers, round %d, %-4s %-18s %s\n' "$workers" "$round" "$of" "${preload:+adaptive mutexes}" "$line"
      done
    done
  done
done
