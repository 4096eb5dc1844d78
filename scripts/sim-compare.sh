#!/usr/bin/env bash
# Two simulator binaries on the same scenario, side by side: whether their reports are the
# same byte for byte, and the CPU each took. A change meant to leave the simulation as it was
# (a refactor, a speed-up) cites this. The two runs of a pair start together, so a drift of
# the machine's speed during the session falls on both (docs/BENCHMARKS.md, "The metro's CPU
# did not grow"); with --runs K, K pairs, and the ratio of the medians.
#   scripts/sim-compare.sh --base-bin A --head-bin B [--runs K] [--jemalloc] -- SCENARIO [simulate flags]
# Example (the 10,000-node metro, about 9 minutes a pair on the 2-core machine):
#   scripts/sim-compare.sh --base-bin /tmp/a/skwad-lab --head-bin .build/release/skwad-lab --jemalloc -- \
#       simulations/metro.toml --quiet --set nodes.count=10000 --set workload.max_ops=1000 --threads 1
# A binary is a `skwad-lab` (or an older `skwad` with `simulate`). Exits 1 when a pair's
# reports differ.
set -euo pipefail
base_bin=""; head_bin=""; runs=1; jemalloc=0
while [ $# -gt 0 ]; do
    case "$1" in
        --base-bin) base_bin=$2; shift 2 ;;
        --head-bin) head_bin=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --jemalloc) jemalloc=1; shift ;;
        --) shift; break ;;
        *) echo "sim-compare: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -x "$base_bin" ] && [ -x "$head_bin" ] && [ $# -ge 1 ] || {
    echo "usage: scripts/sim-compare.sh --base-bin A --head-bin B [--runs K] [--jemalloc] -- SCENARIO [simulate flags]" >&2
    exit 2
}
[ "$runs" -ge 1 ] 2>/dev/null || { echo "sim-compare: --runs takes a positive count" >&2; exit 2; }
preload=""
if [ "$jemalloc" = 1 ]; then
    preload=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
    [ -f "$preload" ] || { echo "sim-compare: no $preload (apt-get install libjemalloc2)" >&2; exit 2; }
fi
# A binary just built or copied sits in the page cache in larger pieces than one read back from
# disk, and its peak RSS reads about 3 MB higher (the same binary under two names, one copied
# just before, on the push-pull city). Where this process may, both start from the disk.
if [ -w /proc/sys/vm/drop_caches ]; then
    sync && echo 3 >/proc/sys/vm/drop_caches && echo "sim-compare: page cache dropped: both binaries are read from disk" >&2
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One run: its report in $out/NAME/, what it printed in $out/NAME.txt, its CPU in $out/NAME.time.
one() {
    local bin=$1 name=$2; shift 2
    env ${preload:+LD_PRELOAD=$preload} /usr/bin/time -f "%U %S %M" -o "$out/$name.time" \
        "$bin" simulate "$@" --out "$out/$name" >"$out/$name.txt" 2>&1
}

base_cpu=(); head_cpu=(); differ=0
for k in $(seq 1 "$runs"); do
    one "$base_bin" "base$k" "$@" & pb=$!
    one "$head_bin" "head$k" "$@" & ph=$!
    wait "$pb" || { echo "sim-compare: the base run failed: $(tail -n 1 "$out/base$k.txt")" >&2; exit 1; }
    wait "$ph" || { echo "sim-compare: the head run failed: $(tail -n 1 "$out/head$k.txt")" >&2; exit 1; }
    # The reports, and what each printed but its timing lines (the summary's, and the progress
    # lines each tenth of the way, which carry the wall time and resident memory so far).
    same=yes
    diff -rq "$out/base$k" "$out/head$k" >/dev/null || same=no
    cmp -s <(grep -v -e ' s wall' -e 'peak RSS' -e "nodes' own work" "$out/base$k.txt") \
        <(grep -v -e ' s wall' -e 'peak RSS' -e "nodes' own work" "$out/head$k.txt") || same=no
    [ "$same" = yes ] || differ=1
    read -r bu bs bm <"$out/base$k.time"; read -r hu hs hm <"$out/head$k.time"
    base_cpu+=("$(echo "$bu + $bs" | bc)"); head_cpu+=("$(echo "$hu + $hs" | bc)")
    printf 'pair %d: reports identical: %s; CPU base %s s, head %s s; peak RSS base %s KB, head %s KB\n' \
        "$k" "$same" "${base_cpu[-1]}" "${head_cpu[-1]}" "$bm" "$hm"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
mb=$(median "${base_cpu[@]}"); mh=$(median "${head_cpu[@]}")
printf 'CPU (median of %d): base %s s, head %s s, ratio head / base %s\n' "$runs" "$mb" "$mh" "$(echo "scale=4; $mh / $mb" | bc)"
exit "$differ"
