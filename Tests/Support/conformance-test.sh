#!/usr/bin/env bash
# The conformance tier on BlueZoo: `mdoc-reader conformance` on hci0 against
#  - our holder (`mdoc-holder present --once`) in mdoc peripheral-server and central-client
#    mode: every case passes (or skips where its mode cannot run it);
#  - our service (`mdoc-holder serve`, one process per run, a StartProximity per case from
#    Tests/Support/service_client.py) in both modes: the same;
#  - the fault holder (mdoc-fault-holder, the real holder loop with MDOC_FAULT): each fault
#    fails exactly its cases.
# Each case gets a fresh holder (or service session) on the next adapter
# (Tests/Support/conformance-holder.sh).
# Usage: Tests/Support/conformance-test.sh [BIN_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
. Tests/Support/lib/tier.sh
tier_begin "conformance tier"
tier_tail=40
serve_pid=""
tier_track_variables serve_pid
# The holder of each case (Tests/Support/conformance-holder.sh) leaves its id in state-*/pid.
tier_at_exit 'for s in "$tmp"/state-*; do [ -s "$s/pid" ] && kill "$(cat "$s/pid")" 2>/dev/null; done'

import_test_mdl "$tmp/wallet.sqlite" || die "import"
write_policy "$tmp/policy.toml" trusted org.iso.18013.5.1.mDL org.iso.18013.5.1:family_name \
  org.iso.18013.5.1:given_name org.iso.18013.5.1:portrait org.iso.18013.5.1:age_over_18

# conformance NAME MODE HOLDER_COMMAND [READER_ARGS...]: one run on a fresh bus; the holder of
# each case runs HOLDER_COMMAND (@ADAPTER@: its adapter). With $SERVE set, that command line
# (`mdoc-holder serve ...`) runs on the bus for the whole run, started before the reader and
# stopped after it. The report is in $tmp/NAME.json.
conformance() {
  local name=$1 mode=$2 holder=$3; shift 3
  local state="$tmp/state-$name" bus="$tmp/bus-$name" address
  mkdir -p "$state"
  echo "$holder" >"$state/holder.cmd"
  exit_code=none
  address=$(BLUEZOO_ADAPTERS=${ADAPTERS:-12} tier_bus_start "$bus") \
    || { ko "$name: BlueZoo did not start"; return 1; }
  if [ -n "${SERVE:-}" ]; then
    DBUS_SYSTEM_BUS_ADDRESS="$address" bash -c "exec $SERVE" 2>"$tmp/$name.serve.err" &
    serve_pid=$!
    for _ in $(seq 1 100); do
      dbus-send --bus="$address" --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.mdocholder 2>/dev/null | grep -c 'boolean true' >/dev/null && break
      sleep 0.1
    done
  fi
  DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 600 "$bin/mdoc-reader" conformance \
    --uri-command "Tests/Support/conformance-holder.sh $state" \
    --adapter hci0 --mode "$mode" --reader-key Fixtures/pki/reader.key.pem --reader-cert Fixtures/pki/reader.pem \
    --trust-anchor Fixtures/pki/iaca.pem --timeout 20 --json --junit "$tmp/$name.xml" "$@" \
    >"$tmp/$name.json" 2>"$tmp/$name.err"
  exit_code=$?
  local summary
  summary=$(tail -1 "$tmp/$name.err")
  [ -s "$state/pid" ] && kill "$(cat "$state/pid")" 2>/dev/null
  if [ -n "$serve_pid" ]; then
    kill "$serve_pid" 2>/dev/null
    wait "$serve_pid" 2>/dev/null
    serve_pid=""
    cat "$tmp/$name.serve.err" >>"$tmp/$name.err"
  fi
  tier_bus_stop "$bus"
  echo "conformance tier, $name: $summary"
}

# expect NAME EXIT FAILING SKIPPED: the run's exit code, and exactly these failing and skipped
# case ids (space-separated); every other case passed.
expect() {
  local name=$1 exit_wanted=$2 failing=$3 skipped=$4 total=${5:-}
  if [ "$exit_code" = "$exit_wanted" ] && python3 - "$tmp/$name.json" "$failing" "$skipped" $total <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
by = lambda v: sorted(c["id"] for c in report["cases"] if c["verdict"] == v)
assert by("FAIL") == sorted(sys.argv[2].split()), ("failed", by("FAIL"))
assert by("SKIP") == sorted(sys.argv[3].split()), ("skipped", by("SKIP"))
assert report["passed"] == len(by("PASS")) and report["failed"] == len(by("FAIL"))
if len(sys.argv) > 4:
    assert len(report["cases"]) == int(sys.argv[4]), ("cases run", len(report["cases"]))
for c in report["cases"]:
    if c["verdict"] == "FAIL":
        assert c["evidence"], c["id"] + " failed without evidence"
PY
  then ok; else ko "$name: exit $exit_code (wanted $exit_wanted), failing [$failing], skipped [$skipped]" "$tmp/$name.err"; fi
}

# conformance_all NAME MODE HOLDER_COMMAND GROUP...: every case, one run (a fresh bus) per GROUP of
# --cases patterns; the reports are merged into $tmp/NAME.json, the JUnit XML of the first run
# kept as $tmp/NAME.xml.
conformance_all() {
  local name=$1 mode=$2 holder=$3 worst=0 i=0 group args; shift 3
  for group in "$@"; do
    args=()
    for c in $group; do args+=(--cases "$c"); done
    conformance "$name-$i" "$mode" "$holder" "${args[@]}"
    [ "$exit_code" = 0 ] || worst=$exit_code
    i=$((i + 1))
  done
  exit_code=$worst
  python3 - "$tmp/$name.json" "$tmp/$name"-[0-9]*.json <<'PY'
import json, sys
cases = []
for path in sys.argv[2:]:
    try:
        cases += json.load(open(path))["cases"]
    except (OSError, ValueError):
        pass
count = lambda v: sum(c["verdict"] == v for c in cases)
json.dump({"cases": cases, "passed": count("PASS"), "failed": count("FAIL"), "skipped": count("SKIP")},
          open(sys.argv[1], "w"))
PY
  cat "$tmp/$name"-[0-9]*.err >"$tmp/$name.err"
  cp "$tmp/$name-0.xml" "$tmp/$name.xml" 2>/dev/null
}

present="$bin/mdoc-holder present --adapter @ADAPTER@ --once --qr uri --consent policy:$tmp/policy.toml \
--reader-trust Fixtures/pki/reader-ca.pem --untrusted-readers refuse --store $tmp/wallet.sqlite"

# 1. Our holder passes every case in both modes (all of them: the count from the docs' table).
all_cases=$(grep -cE '^\| (mDL|BLE)_' docs/conformance.md)
# Peripheral-server mode: five runs of at most 10 cases (BlueZoo gets slow to start with many
# more adapters than that), each case's holder on the next adapter.
groups=("mDL_MS_DE_* BLE_DE_* BLE_Session_* BLE_Term_* BLE_L2CAP_*" "mDL_SM_mdocRAuth_UF_* mDL_SM_mdocRAuthAll_*"
  "mDL_SM_SEnc_* BLE_Chunk_* BLE_Ident_*" "mDL_MS_DR_UF_* BLE_State_* BLE_Disconnect_*"
  "mDL_MS_DR_Ver_* mDL_MS_DR_Alt_* mDL_MS_DR_MaxSize_*")
conformance_all peripheral peripheral "$present --mode peripheral" "${groups[@]}"
expect peripheral 0 "" "BLE_L2CAP_01 BLE_Ident_01" "$all_cases"
if grep -q 'testsuite name="mdoc-reader conformance"' "$tmp/peripheral.xml" \
  && grep -q 'failures="0"' "$tmp/peripheral.xml"; then ok; else ko "peripheral: JUnit XML written" "$tmp/peripheral.xml"; fi
# Central-client mode: the same runs (the reader serves each case's session on its own GATT
# server and unregisters it when the session ends; the chunk-level cases serve it raw).
conformance_all central central "$present --mode central" "${groups[@]}"
expect central 0 "" "BLE_L2CAP_01" "$all_cases"

# 1a. The same through `serve` (policy consent, the same trust): one service per run, each
# case a StartProximity on the next adapter by a D-Bus client that prints the URI.
SERVE="$bin/mdoc-holder serve --consent policy:$tmp/policy.toml --reader-trust Fixtures/pki/reader-ca.pem \
--untrusted-readers refuse --store $tmp/wallet.sqlite"
start="/usr/bin/python3 Tests/Support/service_client.py start /dev/null --adapter @ADAPTER@"
conformance_all serve-peripheral peripheral "$start --mode peripheral" "${groups[@]}"
expect serve-peripheral 0 "" "BLE_L2CAP_01 BLE_Ident_01" "$all_cases"
conformance_all serve-central central "$start --mode central" "${groups[@]}"
expect serve-central 0 "" "BLE_L2CAP_01" "$all_cases"
SERVE=""

# 1b. Interactive: without --uri-command the tool names each case on standard error and reads the
# next URI from standard input; --cases selects; no match is bad input (exit 2).
bus="$tmp/bus-interactive"
if address=$(tier_bus_start "$bus"); then
  uri1=$("$bin/mdoc-holder" engagement --qr uri 2>/dev/null) && uri2=$("$bin/mdoc-holder" engagement --qr uri 2>/dev/null)
  printf '%s\n%s\n' "$uri1" "$uri2" | DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 60 "$bin/mdoc-reader" conformance \
    --cases 'mDL_MS_DE_*_01' --cases BLE_DE_01 >"$tmp/interactive.out" 2>"$tmp/interactive.err"
  exit_code=$?
  if [ "$exit_code" = 0 ] && grep -q '^PASS mDL_MS_DE_Gen_01 ' "$tmp/interactive.out" \
    && grep -q '^PASS BLE_DE_01 ' "$tmp/interactive.out" \
    && grep -q '^conformance: 2 passed, 0 failed, 0 skipped$' "$tmp/interactive.out" \
    && grep -q 'case BLE_DE_01: the engagement offers BLE' "$tmp/interactive.err"; then ok
  else ko "interactive: two URIs on standard input, two cases (exit $exit_code)" "$tmp/interactive.err"; fi
  DBUS_SYSTEM_BUS_ADDRESS="$address" "$bin/mdoc-reader" conformance --cases nothing </dev/null >/dev/null 2>"$tmp/none.err"
  exit_code=$?
  if [ "$exit_code" = 2 ] && grep -q "no case matches" "$tmp/none.err"; then ok
  else ko "interactive: --cases matching nothing exits 2 (exit $exit_code)" "$tmp/none.err"; fi
  tier_bus_stop "$bus"
else ko "interactive: BlueZoo did not start"; fi

# 2. Each fault fails exactly its cases among those near it.
fault_run() {
  local fault=$1 cases=$2 failing=$3 skipped=${4:-}
  local args=()
  for c in $cases; do args+=(--cases "$c"); done
  conformance "fault-$fault" peripheral "env MDOC_FAULT=$fault $bin/mdoc-fault-holder @ADAPTER@ \
Fixtures/mdl.cbor Fixtures/mdl-device-key.pem Fixtures/pki/reader-ca.pem" "${args[@]}"
  expect "fault-$fault" 1 "$failing" "$skipped"
}
fault_run status-11-for-10 "mDL_SM_SEnc_SEst_UF_* BLE_Session_02" \
  "mDL_SM_SEnc_SEst_UF_01 mDL_SM_SEnc_SEst_UF_02 mDL_SM_SEnc_SEst_UF_03 mDL_SM_SEnc_SEst_UF_04 mDL_SM_SEnc_SEst_UF_06
BLE_Session_02"
fault_run ignore-status-20 "BLE_Session_01 BLE_Term_01 mDL_MS_DR_UF_07" "BLE_Term_01"
fault_run chunk-header "BLE_Chunk_* mDL_MS_DR_UF_07 mDL_SM_SEnc_SEst_UF_03" "BLE_Chunk_01 BLE_Chunk_02"
fault_run release-to-untrusted "mDL_SM_mdocRAuth_UF_* mDL_SM_mdocRAuthAll_UF_* mDL_MS_DR_Ver_01 BLE_Session_01" \
  "mDL_SM_mdocRAuth_UF_01 mDL_SM_mdocRAuth_UF_02 mDL_SM_mdocRAuth_UF_03 mDL_SM_mdocRAuth_UF_04
mDL_SM_mdocRAuthAll_UF_01 mDL_SM_mdocRAuthAll_UF_02 mDL_SM_mdocRAuthAll_UF_03 mDL_SM_mdocRAuthAll_UF_04 mDL_MS_DR_Ver_01"
fault_run no-ble-option "mDL_MS_DE_Gen_01 BLE_DE_01 BLE_Session_01 mDL_SM_SEnc_SEst_UF_03" "BLE_DE_01" \
  "BLE_Session_01 mDL_SM_SEnc_SEst_UF_03"
fault_run padded-uri "mDL_MS_DE_Gen_01 BLE_DE_01 BLE_Session_01" "mDL_MS_DE_Gen_01"
fault_run engagement-1.0-keys "mDL_MS_DE_* BLE_DE_01" "mDL_MS_DE_Gen_02"
# The engine faults (HolderConfiguration.testFaults): the decrypted request read wrongly.
fault_run trust-readerauthall-1.0 "mDL_MS_DR_Ver_* mDL_SM_mdocRAuthAll_01 BLE_Session_01" \
  "mDL_MS_DR_Ver_01 mDL_MS_DR_Ver_02"
fault_run readerauthall-any-transcript "mDL_SM_mdocRAuthAll_*" "mDL_SM_mdocRAuthAll_UF_02"
fault_run ignore-max-size "mDL_MS_DR_MaxSize_01 mDL_MS_DR_Alt_01" "mDL_MS_DR_MaxSize_01"
fault_run no-alternatives "mDL_MS_DR_Alt_01 mDL_MS_DR_MaxSize_01" "mDL_MS_DR_Alt_01"

tier_summary
