#!/usr/bin/env bash
# Checks the alert rules with promtool (Debian's prometheus package, installed
# by scripts/setup.sh): syntax and templates, then the unit tests.
set -euo pipefail
cd "$(dirname "$0")"
promtool check rules alerts.yml
promtool test rules alerts_test.yml
