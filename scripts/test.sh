#!/usr/bin/env bash
# Runs every test. One build (with the test targets and the `skwad` executable that the
# binary tests drive), then the tests without rebuilding.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests
swift test --skip-build
