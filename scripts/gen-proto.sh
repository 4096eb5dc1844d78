#!/usr/bin/env bash
# Regenerates the committed Swift code for proto/*.proto.
# Needs protoc (Debian: protobuf-compiler) and protoc-gen-swift from swift-protobuf 1.39.0
# (build once: `swift build -c release --product protoc-gen-swift` in a checkout of it,
# then pass its path as PROTOC_GEN_SWIFT).
set -euo pipefail
cd "$(dirname "$0")/.."
plugin="${PROTOC_GEN_SWIFT:-$(command -v protoc-gen-swift || true)}"
[ -x "$plugin" ] || { echo "protoc-gen-swift not found: set PROTOC_GEN_SWIFT" >&2; exit 1; }
protoc --plugin=protoc-gen-swift="$plugin" --swift_opt=Visibility=Internal \
  --swift_out=Sources/SkwadModel/Wire -I proto proto/skwad_ops.proto
if [ -f proto/skwad_gossip.proto ]; then
  protoc --plugin=protoc-gen-swift="$plugin" --swift_opt=Visibility=Internal \
    --swift_out=Sources/SkwadGossip/Wire -I proto proto/skwad_gossip.proto
fi
echo "generated"
