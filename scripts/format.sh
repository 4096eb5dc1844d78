#!/usr/bin/env bash
# Formats the Swift sources with the toolchain's swift-format and the checked-in .swift-format
# (4-space indents, lines up to 140 columns, existing line breaks respected; no lint rules).
# Generated protobuf code (*.pb.swift) is left as protoc-gen-swift wrote it.
#   scripts/format.sh          rewrites the files in place
#   scripts/format.sh --check  changes nothing; lists what is not formatted and fails (CI)
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files 'Sources/*.swift' 'Tests/*.swift' 'Package.swift' | grep -v '\.pb\.swift$')
if [ "${1:-}" = "--check" ]; then
    swift format lint --strict --parallel "${files[@]}" || { echo "format: run scripts/format.sh" >&2; exit 1; }
else
    swift format format --in-place --parallel "${files[@]}"
fi
