#!/usr/bin/env bash
# The code a command maps: starts one node (`skwad run --json`, alone on 127.0.0.1), waits
# past its start-up trim (10 s), prints the resident text, data and anonymous memory, sends
# COMMAND twice and prints them after each.
#   scripts/command-rss.sh [--binary PATH] [COMMAND]      (default: stats)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=.build/release/skwad
if [ "${1:-}" = --binary ]; then binary=$2; shift 2; fi
cmd=${1:-stats}
[ -x "$binary" ] || { echo "command-rss: no binary at $binary (swift build -c release first)" >&2; exit 2; }
tmp=$(mktemp -d)
pid=""
cleanup() { exec 3>&- 2>/dev/null || true; [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
mkfifo "$tmp/in"
printf 'location = "40.44,-79.94"\nlisten = "127.0.0.1:0"\n' >"$tmp/c.toml"
"$binary" run --json --config "$tmp/c.toml" --data "$tmp/data" <"$tmp/in" >"$tmp/out" 2>&1 &
pid=$!
exec 3>"$tmp/in"
echo whoami >&3
sleep 12
show() {
    local name
    name=$(readlink "/proc/$pid/exe")
    awk -v bin="$name" -v when="$1" '
        /^[0-9a-f]+-[0-9a-f]+ / { perm = $2; path = $6 }
        /^Rss:/ { if (path == bin) kb[perm] += $2 }
        END { printf "%s: text %d kB, data %d kB, read-only %d kB", when, kb["r-xp"], kb["rw-p"], kb["r--p"] }' "/proc/$pid/smaps"
    awk '$1 == "RssAnon:" { printf ", anonymous %d kB\n", $2 }' "/proc/$pid/status"
}
show "after the trim"
for i in 1 2; do
    echo "$cmd" >&3
    sleep 1
    show "after $cmd ($i)"
done
