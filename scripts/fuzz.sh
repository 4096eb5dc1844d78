#!/usr/bin/env bash
# Fuzzes one libFuzzer target for SECONDS: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]
# Targets: FuzzDatagram (sealed and raw datagrams into an engine with a session),
# FuzzAdmission (an envelope into admission), FuzzREPL (REPL lines into a node),
# FuzzConfig (a config text into the parser). Recipe: libFuzzer through `swift build --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address`, run with SWIFT_BACKTRACE=enable=no.
# The targets exist only when SKWAD_FUZZ=1 (Package.swift) and build in their own scratch
# directory, so the normal build is untouched. Seeds: fuzz/corpus/TARGET (committed); what
# the fuzzer finds grows in .build/fuzz-corpus/TARGET; crashes land in fuzz/crashes/.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags]}
seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags]}
shift 2
export SKWAD_FUZZ=1
scratch=.build/fuzz
swift build -c debug --scratch-path "$scratch" --product "$target" --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address
mkdir -p ".build/fuzz-corpus/$target" "fuzz/corpus/$target" fuzz/crashes
# FuzzREPL and FuzzConfig leave leak checking off unless given -detect_leaks=1 (a later flag
# wins): FuzzConfig's TOMLKit leaks ~100 bytes per bad config upstream, and FuzzREPL's node
# (Swift runtime caches, GRDB) makes LeakSanitizer scan the heap after most inputs, which
# took three quarters of its time (perf).
defaults=()
case "$target" in FuzzREPL|FuzzConfig) defaults=(-detect_leaks=0) ;; esac
SWIFT_BACKTRACE=enable=no "$scratch/debug/$target" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="fuzz/crashes/$target-" -timeout=10 -rss_limit_mb=3072 "${defaults[@]}" "$@" \
    ".build/fuzz-corpus/$target" "fuzz/corpus/$target"
