#!/usr/bin/env bash
# Runs every test, after checking the formatting (scripts/format.sh --check): one build (with
# the test targets and the `skwad` executable that the binary tests drive), then every test in
# one process without rebuilding. The suites that compute for seconds (simulations, property
# runs) are `@Suite(.heavy)`: they run on low-priority threads of their own, so the tests on
# wall-clock time (nodes, the REPL, child processes) keep Swift's cooperative pool and the
# cores they need for their timeouts (docs/ARCHITECTURE.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/format.sh --check
swift build --build-tests
swift test --skip-build
