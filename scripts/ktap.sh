#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Read the results a guest wrote on its results channel: see scripts/ktap.py
# (results, report, json, times, trouble, grep SECTION: the lines a section of
# kernel-trouble.re matches).
set -eu
exec python3 "$(dirname "$0")/ktap.py" "$@"
