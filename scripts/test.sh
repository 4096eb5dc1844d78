#!/usr/bin/env bash
# Runs every test. The binary tests drive the real `skwad` executable, so build it first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build
swift test
