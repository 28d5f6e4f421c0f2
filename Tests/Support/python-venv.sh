#!/usr/bin/env bash
# Creates .venv-test with the Python peers the tests use (pymdoccbor, ...), when missing or
# when requirements.txt changed.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.venv-test
stamp=$venv/.requirements
if [ -x "$venv/bin/python3" ] && cmp -s Tests/Support/requirements.txt "$stamp"; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r Tests/Support/requirements.txt
cp Tests/Support/requirements.txt "$stamp"
echo "test venv ready: $("$venv/bin/python3" -c 'import pymdoccbor, importlib.metadata as m; print("pymdoccbor", m.version("pymdoccbor"))')"
