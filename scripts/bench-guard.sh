#!/usr/bin/env bash
# The regression guard: the process benchmark (`skwad bench procs`) with a base revision's
# binary and this tree's (or --head REV's), run alternately in one session, and the ratios of
# their medians. Every change to the engine, the node or the REPL's hot path cites its output.
#   scripts/bench-guard.sh BASE [--head REV] [--runs K] [--json] [-- bench procs flags]
#   --base-bin PATH / --head-bin PATH: a binary already built from that revision (not rebuilt)
# Example: scripts/bench-guard.sh 890d3ad --runs 3 -- --nodes 50 --idle 20
# GUARD_KEEP=1 keeps every run's report (the directory is named on stderr).
# Each revision is built once, static and in release mode, in a worktree under .build/guard/
# (kept for the next call); the working tree is built in place. The harness is always the
# head's `skwad bench procs`, starting the base's binary through `--binary`, so both sides are
# timed by the same code. Runs alternate base, head, head, base, ... so a drift of the
# machine during the session falls on both. Needs jq.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
base=""; head=""; runs=3; json=0; base_bin=""; head_bin=""
while [ $# -gt 0 ]; do
    case "$1" in
        --head) head=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --base-bin) base_bin=$2; shift 2 ;;
        --head-bin) head_bin=$2; shift 2 ;;
        --json) json=1; shift ;;
        --) shift; break ;;
        -*) echo "bench-guard: unknown flag $1" >&2; exit 2 ;;
        *) [ -z "$base" ] || { echo "bench-guard: one base revision only" >&2; exit 2; }; base=$1; shift ;;
    esac
done
[ -n "$base" ] || { echo "usage: scripts/bench-guard.sh BASE [--head REV] [--base-bin PATH] [--head-bin PATH] [--runs K] [--json] [-- bench procs flags]" >&2; exit 2; }
command -v jq >/dev/null 2>&1 || { echo "bench-guard: jq is required (apt-get install jq)" >&2; exit 2; }
[ "$runs" -ge 1 ] 2>/dev/null || { echo "bench-guard: --runs takes a positive count" >&2; exit 2; }

log() { printf 'bench-guard: %s\n' "$*" >&2; }

# Builds REV in a worktree under .build/guard/ (once) and prints its binary's path. With `lab`
# (the head, whose `skwad bench` is the harness) also `skwad-lab`, where the revision has it.
build_rev() {
    local sha dir
    sha=$(git rev-parse --verify "$1^{commit}") || { echo "bench-guard: no revision $1" >&2; exit 2; }
    dir="$top/.build/guard/${sha:0:12}"
    if [ ! -x "$dir/.build/release/skwad" ]; then
        [ -d "$dir" ] || git worktree add --detach -q "$dir" "$sha"
        log "building ${sha:0:12} (release, static) in $dir"
        (cd "$dir" && swift build -c release --static-swift-stdlib --product skwad >"$dir.build.log" 2>&1) \
            || { echo "bench-guard: the build of ${sha:0:12} failed; see $dir.build.log" >&2; exit 1; }
    fi
    if [ "${2:-}" = lab ] && grep -q '"skwad-lab"' "$dir/Package.swift" && [ ! -x "$dir/.build/release/skwad-lab" ]; then
        (cd "$dir" && swift build -c release --static-swift-stdlib --product skwad-lab >>"$dir.build.log" 2>&1) \
            || { echo "bench-guard: the build of ${sha:0:12}'s skwad-lab failed; see $dir.build.log" >&2; exit 1; }
    fi
    printf '%s\n' "$dir/.build/release/skwad"
}

[ -n "$base_bin" ] || base_bin=$(build_rev "$base")
if [ -n "$head_bin" ]; then
    head_name=$(git rev-parse --short "${head:-HEAD}")
elif [ -n "$head" ]; then
    head_bin=$(build_rev "$head" lab); head_name=$(git rev-parse --short "$head")
else
    log "building the working tree (release, static)"
    { swift build -c release --static-swift-stdlib --product skwad && swift build -c release --static-swift-stdlib --product skwad-lab; } \
        >"$top/.build/guard-head.build.log" 2>&1 \
        || { echo "bench-guard: the working tree's build failed; see .build/guard-head.build.log" >&2; exit 1; }
    head_bin="$top/.build/release/skwad"
    head_name="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift || echo +)"
fi
base_name=$(git rev-parse --short "$base")

# A binary just built or copied sits in the page cache in larger pieces than one read back
# from disk, and page faults map them whole: its idle RSS reads a few MiB higher. Where this
# process may, both binaries start from the disk (docs/BENCHMARKS.md, the guard of 3c84e01).
if [ -w /proc/sys/vm/drop_caches ]; then
    sync && echo 3 >/proc/sys/vm/drop_caches && log "page cache dropped: both binaries are read from disk"
fi
out=$(mktemp -d)
if [ -n "${GUARD_KEEP:-}" ]; then log "reports kept in $out"; else trap 'rm -rf "$out"' EXIT; fi
bench_args=("$@")
one() {
    local bin=$base_bin; [ "$1" = head ] && bin=$head_bin
    log "run $2 of $runs: $1"
    "$head_bin" bench procs --binary "$bin" "${bench_args[@]}" >"$out/$1.$2.json" 2>"$out/$1.$2.err" \
        || log "$1 run $2 exited non-zero; its report is kept"
}
for i in $(seq 1 "$runs"); do
    if [ $((i % 2)) -eq 1 ]; then one base "$i"; one head "$i"; else one head "$i"; one base "$i"; fi
done

# The figures compared: a jq path into each report, and its name.
figures=(
    "last_node_ms.p50" "last_node_ms.p90" "last_node_end_to_end_ms.p50" "every_node_ms.p50"
    "idle_ip_bytes_per_s_per_node.p50" "extra_ip_bytes_per_post_per_node.p50" "rss_idle_mib.p50"
    "rss_anon_idle_mib.p50" "idle_cpu_ms_per_s_per_node.mean" "extra_cpu_ms_per_post_per_node.mean"
    "herd_join_s" "pack_spread_s" "lost_posts"
    "idle_per_s_per_node_by_kind[\"sent.vicinity\"]" "idle_per_s_per_node_by_kind[\"sent.reconcile\"]"
    "idle_per_s_per_node_by_kind[\"sent.ping\"]" "idle_per_s_per_node_by_kind[\"sent.shuffle\"]"
)
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print "null"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
values() { # side, jq path
    for f in "$out/$1".*.json; do jq -r ".$2 // empty" "$f" 2>/dev/null; done | grep -v '^null$' || true
}
rows=()
for fig in "${figures[@]}"; do
    b=$(values base "$fig" | median); h=$(values head "$fig" | median)
    r=$(awk -v b="$b" -v h="$h" 'BEGIN { if (b == "null" || h == "null" || b + 0 == 0) print "null"; else printf "%.3f", h / b }')
    rows+=("$(jq -cn --arg f "$fig" --arg b "$b" --arg h "$h" --arg r "$r" \
        '{figure: $f, base: ($b | fromjson? // null), head: ($h | fromjson? // null), ratio: ($r | fromjson? // null)}')")
done
converged() { local n=0; for f in "$out/$1".*.json; do [ "$(jq -r .converged "$f" 2>/dev/null)" = true ] && n=$((n + 1)); done; echo "$n"; }
if [ "$json" = 1 ]; then
    printf '%s\n' "${rows[@]}" | jq -sc --arg b "$base_name" --arg h "$head_name" --argjson runs "$runs" \
        --argjson bc "$(converged base)" --argjson hc "$(converged head)" --arg args "${bench_args[*]}" \
        '{bench: "guard", base: $b, head: $h, runs: $runs, args: $args, converged: {base: $bc, head: $hc}, figures: .}'
else
    printf 'bench procs %s: %s runs each, base %s, head %s (medians of the runs; converged %s / %s)\n' \
        "${bench_args[*]}" "$runs" "$base_name" "$head_name" "$(converged base)" "$(converged head)"
    printf '%-52s %12s %12s %8s\n' figure base head ratio
    for row in "${rows[@]}"; do
        jq -r '[.figure, (.base // "-" | tostring), (.head // "-" | tostring), (.ratio // "-" | tostring)] | @tsv' <<<"$row" |
            awk -F'\t' '{ printf "%-52s %12s %12s %8s\n", $1, $2, $3, $4 }'
    done
fi
