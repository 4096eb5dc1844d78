#!/usr/bin/env bash
# Builds (release, Swift runtime and Foundation linked statically: an idle node holds ≈ 2 MiB
# less, docs/BENCHMARKS.md "Memory") and starts a Skwad node with its REPL. Arguments go to `skwad`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --static-swift-stdlib --product skwad >&2 || { echo "skwad: build failed" >&2; exit 1; }
# `skwad simulate` and `skwad bench` run the lab's executable from beside `skwad`.
case "${1:-}" in
    simulate | bench)
        swift build -c release --static-swift-stdlib --product skwad-lab >&2 || { echo "skwad-lab: build failed" >&2; exit 1; } ;;
esac
exec .build/release/skwad "$@"
