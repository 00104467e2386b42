#!/usr/bin/env bash
# Creates .venv with the workflow's pinned Python packages (workflows/requirements.txt);
# does nothing if it is already up to date.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
venv="$top/.venv"
req="$top/workflows/requirements.txt"
stamp="$venv/.requirements"
if [ -x "$venv/bin/python" ] && cmp -s "$req" "$stamp"; then
  exit 0
fi
echo "setup-python: installing the workflow's Python packages into $venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
cp "$req" "$stamp"
