#!/usr/bin/env bash
# Replays the committed fuzz corpus (Tests/Support/fuzz-corpus/TARGET/) and the crash
# regressions (Tests/Support/fuzz-regressions/TARGET/) through every fuzz target, with the
# normal (not instrumented) build of cbor-fuzzer. Fails when a target has no corpus or an
# input crashes. Usage: Tests/Support/fuzz-replay.sh [BIN_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
for target in cbor session-establishment session-data device-request ble-chunks l2cap-framing jose dcql \
  authorization-request toml credential-offer vical status-list; do
  [ -n "$(ls -A "Tests/Support/fuzz-corpus/$target" 2>/dev/null)" ] || { echo "fuzz replay: no corpus for $target"; exit 1; }
done
"$bin/cbor-fuzzer" --all Tests/Support/fuzz-corpus
"$bin/cbor-fuzzer" --all Tests/Support/fuzz-regressions
echo "fuzz replay: passed"
