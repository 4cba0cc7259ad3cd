#!/usr/bin/env bash
# Read the results a guest wrote on its results channel: see scripts/ktap.py
# (results, report, json, trouble).
set -eu
exec python3 "$(dirname "$0")/ktap.py" "$@"
