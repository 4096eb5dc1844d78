#!/usr/bin/env bash
# Runs every test. One build (with the test targets and the `skwad` executable that the
# binary tests drive), then the tests without rebuilding, in two processes one after the
# other: first the tests of real nodes on real sockets, clocks and child processes (node,
# REPL, binary), then the pure ones (crypto, model, replica, store, gossip engine,
# simulator). In one process, the long simulations of the second group held every thread of
# Swift's cooperative pool (as many as cores: 2 here) for over a minute, and the real nodes
# of the first, starved of it, lost their links and failed their deadlines.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests
realtime='^(SkwadNodeTests|SkwadREPLTests|skwadTests)\.'
swift test --skip-build --filter "$realtime"
swift test --skip-build --skip "$realtime"
