#!/usr/bin/env bash
# The --uri-command of the conformance tier: ends the previous case's holder, starts the next
# one on the next adapter (BlueZoo allows one connection per adapter pair and mock), and prints
# its mdoc: URI. The holder's command line is in $STATE/holder.cmd with @ADAPTER@ for the
# adapter; its output goes to $STATE/holder-N.{out,err} (N counts from 1, adapter hciN).
#   Tests/Support/conformance-holder.sh STATE
set -uo pipefail
state=$1
n=$(( $(cat "$state/next" 2>/dev/null || echo 0) + 1 ))
echo "$n" >"$state/next"
if [ -s "$state/pid" ]; then
  old=$(cat "$state/pid")
  kill "$old" 2>/dev/null
  for _ in $(seq 1 50); do kill -0 "$old" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$old" 2>/dev/null
fi
command=$(sed "s/@ADAPTER@/hci$n/g" "$state/holder.cmd")
echo "${MDOC_CONFORMANCE_CASE:-?} hci$n" >>"$state/cases"
bash -c "exec $command" >"$state/holder-$n.out" 2>"$state/holder-$n.err" </dev/null &
echo $! >"$state/pid"
for _ in $(seq 1 150); do
  uri=$(grep -m1 '^mdoc:' "$state/holder-$n.out" 2>/dev/null) && [ -n "$uri" ] && { echo "$uri"; exit 0; }
  sleep 0.1
done
echo "the holder on hci$n printed no mdoc: URI" >&2
exit 1
