# shellcheck shell=bash
# Helpers for the VM cases (sourced by each Tests/Support/vm/case-*.sh, which guest-tests.sh
# runs inside the VM). The environment from guest-tests.sh:
#   BIN       the directory with mdoc-holder / mdoc-reader
#   FIXTURES  the repository's Fixtures/
#   DATA      what prepare.sh made: wallet.sqlite, big-100000.sqlite, big-400000.sqlite,
#             portrait-*.jpg, policy.toml (read-only: copy a store with fresh_store)
#   CASE_TMP  this case's own empty directory
# A case prints `ok: ...` per check and exits non-zero at the first failing one (fail).
set -euo pipefail
: "${BIN:?}" "${FIXTURES:?}" "${DATA:?}" "${CASE_TMP:?}"
T=$CASE_TMP
PIDS=()

elapsed() { awk '{printf "%.2f", $1}' /proc/uptime; }
say() { echo "[$(elapsed)] $*"; }
ok() { echo "ok: $*"; }

# fail MESSAGE [FILE...]: reports the failure with the tail of each file, and exits.
# (To stderr too when called in a $(...) capture, which would swallow stdout.)
fail() {
  local captured=$BASH_SUBSHELL
  {
    echo "FAIL: $1"
    shift
    local f
    for f in "$@"; do
      [ -f "$f" ] || continue
      echo "--- $(basename "$f") (last 25 lines)"
      tail -n 25 "$f" | sed 's/^/  /'
    done
  } | if [ "$captured" -gt 0 ]; then tee /dev/stderr; else cat; fi
  exit 1
}

track() { PIDS+=("$1"); }
cleanup_case() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup_case EXIT

# fresh_store NAME: a private copy of $DATA/NAME.sqlite; prints its path.
fresh_store() {
  local f
  for f in "$DATA/$1.sqlite"*; do cp "$f" "$T/"; done
  echo "$T/$1.sqlite"
}

# start_holder NAME STORE [ARGS...]: `mdoc-holder present` on hci0 in the background
# (consent by policy, the test reader CA trusted, untrusted readers refused, URI on stdout).
# Output in $T/NAME.out / $T/NAME.err; its pid in HOLDER_PID.
start_holder() {
  local name=$1 store=$2
  shift 2
  "$BIN/mdoc-holder" present --adapter "${HOLDER_ADAPTER:-hci0}" --qr uri --consent "policy:$DATA/policy.toml" \
    --reader-trust "$FIXTURES/pki/reader-ca.pem" --untrusted-readers refuse --store "$store" "$@" \
    >"$T/$name.out" 2>"$T/$name.err" &
  HOLDER_PID=$!
  track "$HOLDER_PID"
}

# wait_line FILE REGEX SECONDS [NTH]: waits until FILE has NTH (default 1) lines matching
# REGEX (grep -E) and prints that line; returns 1 after SECONDS.
wait_line() {
  local file=$1 regex=$2 seconds=$3 nth=${4:-1} line
  local deadline=$((SECONDS + seconds))
  while :; do
    line=$(grep -E "$regex" "$file" 2>/dev/null | sed -n "${nth}p" || true)
    if [ -n "$line" ]; then
      echo "$line"
      return 0
    fi
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}

# holder_uri NAME [NTH]: the NTH mdoc: URI the holder printed (waits up to 30 s).
holder_uri() {
  wait_line "$T/$1.out" '^mdoc:' 30 "${2:-1}" || fail "the holder printed no mdoc: URI (number ${2:-1})" "$T/$1.err"
}

# The reader's fixed arguments: hci1, the test IACA, JSON result, steps on stderr.
READER_ARGS=(--adapter "${READER_ADAPTER:-hci1}" --trust-anchor "$FIXTURES/pki/iaca.pem" --json --verbose --timeout 60)
TRUSTED_READER=(--reader-key "$FIXTURES/pki/reader.key.pem" --reader-cert "$FIXTURES/pki/reader.pem")

# start_reader NAME URI [ARGS...]: `mdoc-reader request` in the background; pid in READER_PID.
start_reader() {
  local name=$1 uri=$2
  shift 2
  "$BIN/mdoc-reader" request "$uri" "${READER_ARGS[@]}" "$@" >"$T/$name.out" 2>"$T/$name.err" &
  READER_PID=$!
  track "$READER_PID"
}

# run_reader NAME URI [ARGS...]: the same in the foreground (bounded); exit status in READER_EXIT.
run_reader() {
  local t0
  t0=$(elapsed)
  start_reader "$@"
  wait_exit "$READER_PID" 120
  READER_EXIT=$EXIT_STATUS
  READER_SECONDS=$(awk -v a="$t0" -v b="$(elapsed)" 'BEGIN {printf "%.2f", b - a}')
}

# wait_exit PID SECONDS: waits for a child of this shell (not in a subshell: `wait` only
# sees its own children); its exit status in EXIT_STATUS (124 after SECONDS: it is killed).
wait_exit() {
  local pid=$1 deadline=$((SECONDS + $2))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      kill -9 "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      EXIT_STATUS=124
      return 0
    fi
    sleep 0.1
  done
  EXIT_STATUS=0
  wait "$pid" 2>/dev/null || EXIT_STATUS=$?
}

# check_json FILE PYTHON: runs PYTHON with `r` = the JSON in FILE; an assert failing fails.
check_json() {
  python3 -c "import json, sys
r = json.load(open(sys.argv[1]))
$2" "$1"
}

# history_json STORE: the store's history as JSON.
history_json() { "$BIN/mdoc-holder" history --json --store "$1"; }

# shellcheck source=bluez.sh
. "$(dirname "${BASH_SOURCE[0]}")/bluez.sh"
