#!/usr/bin/env bash
# The memory of one idle node: starts `skwad run --json` on a fresh data directory (offline,
# or online alone with --listen), waits, reads /proc/PID/status and smaps_rollup, ends the
# node, and prints one JSON line per run, then the median RSS.
#   scripts/idle-rss.sh [--runs N] [--wait S] [--binary PATH] [-- extra skwad run flags]
# Example: scripts/idle-rss.sh --runs 3 -- --listen 127.0.0.1:0
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3; wait_s=3; binary=.build/release/skwad
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        --wait) wait_s=$2; shift 2 ;;
        --binary) binary=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "idle-rss: unknown flag $1" >&2; exit 2 ;;
    esac
done
[ -x "$binary" ] || { echo "idle-rss: no binary at $binary (swift build -c release first)" >&2; exit 2; }
tmp=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
field() { awk -v k="$1:" '$1 == k { print $2 }' "$2"; }
rss_list=()
for i in $(seq 1 "$runs"); do
    # stdin is a FIFO held open by sleep, so the REPL waits for input instead of exiting.
    mkfifo "$tmp/in$i"
    sleep $((wait_s + 5)) > "$tmp/in$i" &
    holder=$!
    "$binary" run --json --data "$tmp/d$i" "$@" < "$tmp/in$i" > "$tmp/out$i" 2>&1 &
    pid=$!
    sleep "$wait_s"
    cp "/proc/$pid/status" "$tmp/status"; cp "/proc/$pid/smaps_rollup" "$tmp/rollup"
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; pid=""
    kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null || true
    rss=$(field VmRSS "$tmp/status")
    rss_list+=("$rss")
    printf '{"run":%d,"rss_kib":%d,"rss_anon_kib":%d,"rss_file_kib":%d,"pss_kib":%d,"private_dirty_kib":%d,"threads":%d}\n' \
        "$i" "$rss" "$(field RssAnon "$tmp/status")" "$(field RssFile "$tmp/status")" \
        "$(field Pss "$tmp/rollup")" "$(field Private_Dirty "$tmp/rollup")" "$(field Threads "$tmp/status")"
done
median=$(printf '%s\n' "${rss_list[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
printf '{"runs":%d,"median_rss_kib":%d,"median_rss_mib":%.1f}\n' "$runs" "$median" "$(awk -v m="$median" 'BEGIN { print m / 1024 }')"
