#!/usr/bin/env bash
# Runs every test, after checking the formatting (scripts/format.sh --check). One build (with the test targets and the `skwad` executable that the
# binary tests drive), then the tests without rebuilding, in two processes one after the
# other: first the tests that run in real time (node and REPL tests, over the in-memory
# datagram network but on wall-clock time: the engines' timeouts, the nodes' tick timers and
# the tests' deadlines; and the binary tests, child processes on real UDP), then the pure ones
# (crypto, model, replica, store, gossip engine, simulator). In one process, the long
# simulations of the second group hold every thread of Swift's cooperative pool (as many as
# cores: 2 here) for over a minute, and the real-time nodes of the first, starved of it, miss
# their timeouts and deadlines. Taking sockets out of the node tests did not change that;
# one process needs the node tests in virtual time (a clock the tests drive).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/format.sh --check
swift build --build-tests
realtime='^(SkwadNodeTests|SkwadREPLTests|skwadTests)\.'
swift test --skip-build --filter "$realtime"
swift test --skip-build --skip "$realtime"
