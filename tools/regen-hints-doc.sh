#!/usr/bin/env bash
# Rewrite the generated hint table of docs/HINTS.md from colio's hint table
# (what the hints_doc_up_to_date test compares). Usage: tools/regen-hints-doc.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/.."
tool=${1:-build/mpich}/tools/colio-hints-doc
python3 - "$tool" <<'PY'
import re, subprocess, sys
table = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout
doc = open("docs/HINTS.md").read()
new = re.sub(r"(<!-- BEGIN HINTS TABLE -->\n).*(<!-- END HINTS TABLE -->)", lambda m: m.group(1) + table + m.group(2),
             doc, flags=re.S)
open("docs/HINTS.md", "w").write(new)
PY
