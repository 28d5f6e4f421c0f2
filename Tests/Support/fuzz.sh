#!/usr/bin/env bash
# Fuzzes the CBOR decoder and the SessionEstablishment / SessionData / DeviceRequest /
# DeviceEngagement / DeviceResponse parsers with libFuzzer (from the Swift toolchain).
# Usage: Tests/Support/fuzz.sh [SECONDS]   (default 60). Corpus: fuzz-corpus/ (seeded from
# the standard's vectors and Tests/Support/fuzz-regressions/, inputs that once crashed);
# crashes are written as crash-* in the repository root.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
corpus=fuzz-corpus
mkdir -p "$corpus"
python3 - "$corpus" <<'PY'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
for name in ["iso18013-5-annex-d.json", "oid4vp-mdoc.json", "iso18013-7.json"]:
    for key, entry in json.load(open(f"Fixtures/vectors/{name}")).items():
        if isinstance(entry, dict) and isinstance(entry.get("hex"), str):
            (out / f"seed-{key}").write_bytes(bytes.fromhex(entry["hex"]))
PY
cp Tests/Support/fuzz-regressions/* "$corpus"/
swift build -c release --product cbor-fuzzer --scratch-path .build-fuzz \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
.build-fuzz/release/cbor-fuzzer "$corpus" -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 2>&1 | tail -25
