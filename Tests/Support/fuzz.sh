#!/usr/bin/env bash
# Fuzzes every decoder of outside bytes with libFuzzer (from the Swift toolchain), one target
# after the other (docs/fuzzing.md lists them): cbor, session-establishment, session-data,
# device-request, ble-chunks, l2cap-framing, jose, dcql, authorization-request, toml.
#
# Usage: Tests/Support/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 60 s, every target)
#        FUZZ_RUNS=N Tests/Support/fuzz.sh 0 TARGET...            (N executions instead of a time)
#        FUZZ_JOBS=N ...                          (N fuzzing processes at once: libFuzzer fork mode)
#
# Each target's work corpus is fuzz-corpus/TARGET/ (ignored by git), seeded from
# Tests/Support/fuzz-seeds.py, the committed corpus Tests/Support/fuzz-corpus/TARGET/ and the
# crash regressions Tests/Support/fuzz-regressions/TARGET/. After the run the work corpus is
# merged (libFuzzer -merge=1: the smallest set keeping its coverage) back into the committed
# corpus, which `make test` replays. A crash stops the run; libFuzzer leaves it as crash-* in
# the repository root: add it to Tests/Support/fuzz-regressions/TARGET/ with the fix.
# Per target the executions and coverage (cov: edges, ft: features) go to fuzz-results.tsv.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(cbor session-establishment session-data device-request ble-chunks l2cap-framing
  jose dcql authorization-request toml)
swift build -c release --product cbor-fuzzer --scratch-path .build-fuzz \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
fuzzer=.build-fuzz/release/cbor-fuzzer
python3 Tests/Support/fuzz-seeds.py fuzz-corpus
for target in "${targets[@]}"; do
  work=fuzz-corpus/$target kept=Tests/Support/fuzz-corpus/$target
  mkdir -p "$work" "$kept"
  cp -r "$kept"/. "$work"/ 2>/dev/null || true
  [ -d "Tests/Support/fuzz-regressions/$target" ] && cp -r "Tests/Support/fuzz-regressions/$target"/. "$work"/
  limit=(-max_total_time="$seconds")
  [ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
  extra=(-detect_leaks=1)
  export ASAN_OPTIONS=detect_leaks=1
  # Fork mode: short child processes on one shared corpus, FUZZ_JOBS of them at once, still
  # stopping at the first crash, timeout or out-of-memory.
  jobs=${FUZZ_JOBS:-1}
  if [ "$jobs" -gt 1 ]; then
    extra+=(-fork="$jobs" -ignore_crashes=0 -ignore_timeouts=0 -ignore_ooms=0)
  fi
  log=fuzz-corpus/$target.log
  FUZZ_TARGET=$target "$fuzzer" "$work" "${limit[@]}" "${extra[@]}" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 >"$log" 2>&1 || { tail -40 "$log"; echo "fuzz: $target FAILED (see crash-* above)"; exit 1; }
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  runs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
  rate=$(awk '/stat::average_exec_per_sec/ {rate=$2} END {print rate}' "$log")
  # Fork mode prints no final stats: its last status line counts every child's executions,
  # and its last line gives the time.
  if [ -z "$runs" ]; then
    runs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
    took=$(sed -n 's/^INFO: exiting: [0-9]* time: \([0-9]*\)s.*/\1/p' "$log" | tail -1)
    runs=${runs:-0} took=${took:-0}
    rate=$((runs / (took > 0 ? took : 1)))
  fi
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  merged=$(mktemp -d)
  FUZZ_TARGET=$target "$fuzzer" -merge=1 "$merged" "$work" >/dev/null 2>&1
  rm -rf "$kept" && mkdir -p "$kept" && cp "$merged"/* "$kept"/ 2>/dev/null || true
  rm -rf "$merged"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "$runs" "$rate" "$cov" "$ft" "$(ls "$kept" | wc -l)" \
    | tee -a fuzz-results.tsv
done
echo "fuzz: columns: target, executions, executions/s, cov (edges), ft (features), corpus files kept"
