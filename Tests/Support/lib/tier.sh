# The shell library of the test tiers (Tests/Support/*.sh), sourced after the tier has changed to
# the repository root:
#
#   cd "$(dirname "$0")/../.."
#   . Tests/Support/lib/tier.sh
#   tier_begin NAME            # counters, a work dir in $tmp, the exit trap; NAME labels the summary
#   ...checks...
#   tier_summary               # "NAME: P passed, F failed"; its status is the tier's
#
# Counting: `ok [WHAT]` counts a pass (printing "ok: WHAT" when WHAT is given), `ko WHAT [LOG
# [LINES]]` counts a failure and prints "FAIL: WHAT" and the tail of LOG, `check WHAT COMMAND...`
# and `fails WHAT EXIT COMMAND...` run COMMAND with its output in $tmp/out and $tmp/err (where the
# next command may read it) and count. `die WHAT [LOG]` stops the tier.
# Cleanup at exit: the processes of `tier_track PID...` and `tier_track_variables NAME...` killed,
# `tier_at_exit COMMAND`s run, every BlueZoo bus started in $tmp (`tier_bus_start DIR`) stopped,
# $tmp removed (kept with KEEP_TMP=1).
# Waiting: `wait_file FILE [SECONDS]`, `wait_line FILE TEXT [SECONDS]`.
# Fixtures: `import_test_mdl STORE`, `write_policy FILE READER DOCTYPE ELEMENT...`.

tier_name="" tier_started="" tmp=""
passed=0 failed=0
tier_pids=() tier_pid_variables=() tier_exit_commands=()
tier_tail=15    # how many lines of a log a failure shows
tier_verbose="" # set: check and fails print "ok: WHAT" for each pass too

# tier_begin NAME [MKTEMP_ARGS...]: starts the counters, makes the work dir $tmp and sets the trap.
tier_begin() {
  tier_name=$1
  shift
  tier_started=$(date +%s.%N)
  passed=0 failed=0
  tmp=$(mktemp -d "$@")
  trap tier_cleanup EXIT
}

ok() {
  passed=$((passed + 1))
  if [ -n "${1:-}" ]; then echo "ok: $1"; fi
  return 0
}

# ko WHAT [LOG [LINES]]: a failure, with the last LINES (default $tier_tail) lines of LOG when it exists.
ko() {
  failed=$((failed + 1))
  echo "FAIL: $1"
  if [ -n "${2:-}" ] && [ -f "$2" ]; then sed 's/^/  /' "$2" | tail -"${3:-$tier_tail}"; fi
  return 0
}

# check WHAT COMMAND...: passes when COMMAND succeeds; its output is left in $tmp/out and $tmp/err
# (written only when it is done, so COMMAND may read the previous check's).
check() {
  local what=$1
  shift
  if "$@" >"$tmp/cur.out" 2>"$tmp/cur.err"; then
    ok "${tier_verbose:+$what}"
  else
    ko "$what" "$tmp/cur.err" 8
  fi
  mv "$tmp/cur.out" "$tmp/out"
  mv "$tmp/cur.err" "$tmp/err"
}

# fails WHAT EXIT COMMAND...: passes when COMMAND exits with EXIT; output as for check.
fails() {
  local what=$1 want=$2 got
  shift 2
  "$@" >"$tmp/cur.out" 2>"$tmp/cur.err"
  got=$?
  if [ "$got" = "$want" ]; then
    ok "${tier_verbose:+$what}"
  else
    ko "$what (exit $got, wanted $want)" "$tmp/cur.err" 8
  fi
  mv "$tmp/cur.out" "$tmp/out"
  mv "$tmp/cur.err" "$tmp/err"
}

# die WHAT [LOG]: the tier cannot go on; counts a failure, prints the summary and exits 1.
die() {
  ko "$1" "${2:-}" 20
  tier_summary
  exit 1
}

# tier_summary [EXTRA]: prints "NAME: P passed, F failed[ EXTRA]"; succeeds when nothing failed.
tier_summary() {
  echo "$tier_name: $passed passed, $failed failed${1:+ $1}"
  [ "$failed" -eq 0 ]
}

# tier_elapsed: seconds since tier_begin, one decimal.
tier_elapsed() {
  printf '%.1f' "$(echo "$(date +%s.%N) - $tier_started" | bc)"
}

# need_bin COMMAND [HINT]: stops the tier when COMMAND is not installed.
need_bin() {
  command -v "$1" >/dev/null && return 0
  echo "$1 missing: ${2:-run Tests/Support/install-deps.sh test}"
  exit 1
}

# tier_track PID...: processes killed at exit. tier_track_variables NAME...: the processes whose
# ids those variables hold at exit (a tier empties one when it has ended that process itself).
tier_track() { tier_pids+=("$@"); }
tier_track_variables() { tier_pid_variables+=("$@"); }
tier_at_exit() { tier_exit_commands+=("$1"); }

# Runs also under `set -e`: nothing here may stop it early.
tier_cleanup() {
  local command pid bus live=() watchdog
  for command in "${tier_pid_variables[@]}"; do tier_pids+=("${!command:-}"); done
  for pid in "${tier_pids[@]}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null && live+=("$pid"); done
  if [ "${#live[@]}" -gt 0 ]; then
    # Waited for (a service writes its last lines on SIGTERM), killed outright after 10 s.
    (sleep 10 && kill -9 "${live[@]}") </dev/null >/dev/null 2>&1 &
    watchdog=$!
    for pid in "${live[@]}"; do wait "$pid" 2>/dev/null || true; done # not a child: at once
    kill "$watchdog" 2>/dev/null || true
  fi
  for command in "${tier_exit_commands[@]}"; do eval "$command" || true; done
  [ -n "$tmp" ] || return 0
  for bus in "$tmp"/address "$tmp"/*/address; do
    if [ -f "$bus" ]; then Tests/Support/bluezoo-bus.sh stop "$(dirname "$bus")" >/dev/null 2>&1 || true; fi
  done
  if [ -n "${KEEP_TMP:-}" ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
  return 0
}

# tier_bus_start DIR: a private bus with BlueZoo in DIR (under $tmp, stopped at exit); prints its
# address. tier_bus_stop DIR stops it now.
tier_bus_start() { Tests/Support/bluezoo-bus.sh start "$1"; }
tier_bus_stop() { Tests/Support/bluezoo-bus.sh stop "$1" >/dev/null 2>&1; }

# wait_file FILE [SECONDS]: up to SECONDS (default 10) for FILE to be non-empty.
wait_file() {
  local _
  for _ in $(seq 1 $((${2:-10} * 10))); do
    [ -s "$1" ] && return 0
    sleep 0.1
  done
  return 1
}

# wait_line FILE TEXT [SECONDS]: up to SECONDS (default 10) for TEXT in FILE.
wait_line() {
  local _
  for _ in $(seq 1 $((${3:-10} * 10))); do
    grep -qF -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# import_test_mdl STORE: the committed test mDL (Fixtures/mdl.cbor), trusted, into STORE.
import_test_mdl() {
  "$bin/mdoc-holder" credentials import Fixtures/mdl.cbor --device-key Fixtures/mdl-device-key.pem \
    --trust-anchor Fixtures/pki/iaca.pem --store "$1" >/dev/null
}

# write_policy FILE READER DOCTYPE ELEMENT...: a consent policy of one rule.
write_policy() {
  local file=$1 reader=$2 doctype=$3 list="" element
  shift 3
  for element in "$@"; do list+="${list:+, }\"$element\""; done
  printf '[[rule]]\nreader = "%s"\ndoctype = "%s"\nallow = [%s]\n' "$reader" "$doctype" "$list" >"$file"
}
