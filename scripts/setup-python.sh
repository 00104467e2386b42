#!/usr/bin/env bash
# Creates .venv with the workflow's pinned Python packages (workflows/requirements.txt) and
# the tests' (tests/requirements.txt); does nothing if it is already up to date.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
venv="$top/.venv"
req="$top/tests/requirements.txt"  # which includes workflows/requirements.txt
stamp="$venv/.requirements"
if [ -x "$venv/bin/python" ] && cat "$top/workflows/requirements.txt" "$req" | cmp -s - "$stamp"; then
  exit 0
fi
echo "setup-python: installing the workflow's and the tests' Python packages into $venv"
python3 -m venv "$venv"
# --use-pep517: sdists (connection_pool) built as wheels, without pip's deprecation notice
"$venv/bin/pip" install --quiet --disable-pip-version-check --use-pep517 -r "$req"
cat "$top/workflows/requirements.txt" "$req" > "$stamp"
