#!/usr/bin/env bash
# Screenshot of a gcnemu HTML report in headless Chromium (Debian's chromium package):
#   tools/report_screenshot.sh report.html shot.png [WIDTHxHEIGHT]
set -euo pipefail
html=$(realpath "$1"); png=$(realpath -m "$2"); size=${3:-1280,2400}
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
    --window-size="${size/x/,}" --screenshot="$png" "file://$html" 2>/dev/null
echo "$png"
