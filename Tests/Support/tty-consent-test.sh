#!/usr/bin/env bash
# The terminal consent prompt on a real controlling terminal (tmux): the demo's output goes
# to a file while the prompt talks to the TTY; the user chooses two elements; the reader
# must get exactly those, verified. Usage: Tests/Support/tty-consent-test.sh [BIN_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
. Tests/Support/lib/tier.sh
tier_begin tty
session="mdoc-tty-$$"
tier_at_exit 'tmux kill-session -t "$session" 2>/dev/null'
wait_for() {  # wait_for TEXT: up to 20 s for TEXT on the terminal
  for _ in $(seq 1 100); do
    tmux capture-pane -p -t "$session" 2>/dev/null | grep -qF "$1" && return 0
    sleep 0.2
  done
  return 1
}
tmux new-session -d -s "$session" -x 220 -y 60 \
  "'$bin/mdoc-demo' Fixtures --consent tty > '$tmp/out' 2>&1; echo \$? > '$tmp/exit'; sleep 30"
if wait_for "Share? [a]ll, [c]hoose, [d]ecline:"; then ok; else ko "the prompt appears on the terminal"; fi
if tmux capture-pane -p -t "$session" | grep -qF '"org.iso.18013.5.1:document_number"  (the requester will keep it)'; then ok; else ko "intent to retain is shown"; fi
if tmux capture-pane -p -t "$session" | grep -qF "trusted by CN=mdoc-holder Test Reader CA"; then ok; else ko "the requester's trust is shown"; fi
tmux send-keys -t "$session" "c" Enter
if wait_for "Numbers to share"; then ok; else ko "choose asks for numbers"; fi
tmux send-keys -t "$session" "1 2" Enter
for _ in $(seq 1 100); do [ -f "$tmp/exit" ] && break; sleep 0.2; done
if [ "$(cat "$tmp/exit" 2>/dev/null)" = 0 ]; then ok; else ko "the demo exits 0"; fi
if grep -qF "you approved: org.iso.18013.5.1:family_name, org.iso.18013.5.1:given_name" "$tmp/out"; then ok; else ko "the choice is what was sent"; fi
if grep -qF "decrypted and verified: VALID" "$tmp/out"; then ok; else ko "the reader verifies the response"; fi
if ! grep -qF "age_over_18 =" "$tmp/out"; then ok; else ko "an element not chosen is not sent"; fi
if ! grep -qF "Share?" "$tmp/out"; then ok; else ko "the prompt went to the terminal, not standard output"; fi
tier_summary
