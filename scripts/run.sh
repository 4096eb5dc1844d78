#!/usr/bin/env bash
# Builds (release, Swift runtime and Foundation linked statically: an idle node holds ≈ 2 MiB
# less, docs/BENCHMARKS.md "Memory") and starts a Skwad node with its REPL. Arguments go to `skwad`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --static-swift-stdlib --product skwad >&2 || { echo "skwad: build failed" >&2; exit 1; }
exec .build/release/skwad "$@"
