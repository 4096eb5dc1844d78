#!/usr/bin/env bash
# A real network on one machine: each node in its own network namespace, joined by veth pairs
# to a bridge (which lives in a namespace of its own, so the host's interfaces are untouched),
# every node's egress shaped with `tc netem` (delay, jitter, loss). Needs root and iproute2.
#
#   scripts/testbed.sh check
#       says whether this kernel allows namespaces, veth, bridges and netem.
#   scripts/testbed.sh run --nodes N [--delay 10ms] [--jitter 5ms] [--loss 1%] [--no-netem] -- [bench procs options]
#       (--no-netem, for kernels without sch_netem: no delay or jitter; the loss is still
#       applied, with an nftables rule per namespace, when `nft` is installed)
#       builds the testbed, runs `skwad bench procs --nodes N --testbed FILE [options]` on it,
#       and takes it down again (on every exit path, Ctrl-C included).
#   scripts/testbed.sh up --nodes N [shaping options] [--tag T]   /   scripts/testbed.sh down --tag T
#       the same in two steps (up prints the tag and the testbed file).
#   scripts/testbed.sh nat-up [--tag T]   /   nat-down --tag T   /   nat-check   /   nat-timeouts --tag T
#   scripts/testbed.sh nat-sweep: removes the NAT testbeds of test runs that died (tags skwnPIDpN)
#       a public node and nodes behind NAT routers, endpoint-independent and symmetric
#       (scripts/testbed-nat.sh says how they are built); nat-up prints the tag and the file.
#   scripts/testbed.sh nat-run -- [bench nat options]
#       builds the NAT testbed, runs `skwad bench nat --testbed FILE [options]` on it, and takes
#       it down again (on every exit path, Ctrl-C included).
#
# Addresses: node i is 10.77.(i/250).(i%250+2)/16 inside namespace TAG-i (its interface eth0);
# the bridge br0 lives in namespace TAG-hub. Traffic never leaves these namespaces.
# The binary is $SKWAD (default .build/release/skwad).
set -euo pipefail

cmd=${1:-help}; shift || true
nodes=20 delay=10ms jitter=5ms loss=1% netem=1 tag=${SKWAD_TESTBED_TAG:-skwadtb$$}
bench_args=()
while [ $# -gt 0 ]; do
    case $1 in
        --nodes) nodes=$2; shift 2 ;;
        --delay) delay=$2; shift 2 ;;
        --jitter) jitter=$2; shift 2 ;;
        --loss) loss=$2; shift 2 ;;
        --no-netem) netem=0; shift ;;
        --tag) tag=$2; shift 2 ;;
        --) shift; bench_args=("$@"); break ;;
        *) echo "testbed: unknown option $1" >&2; exit 2 ;;
    esac
done
[[ $nodes =~ ^[0-9]+$ ]] && [ "$nodes" -ge 2 ] && [ "$nodes" -le 1000 ] || { echo "testbed: --nodes must be 2..1000" >&2; exit 2; }
[[ $tag =~ ^[a-zA-Z0-9]+$ ]] || { echo "testbed: --tag must be letters and digits" >&2; exit 2; }
file=${TMPDIR:-/tmp}/$tag.testbed
SKWAD=${SKWAD:-.build/release/skwad}

# The loss as a count per thousand for nftables (e.g. 1% -> 10), when netem is off.
per_mille() { awk -v l="${1%\%}" 'BEGIN { v = int(l * 10 + 0.5); if (v < 0 || v > 1000) exit 1; print v }'; }
nft_loss=""
if [ "$netem" = 0 ] && command -v nft >/dev/null && [ "$(per_mille "$loss")" != 0 ]; then nft_loss=$(per_mille "$loss"); fi

# shellcheck source=scripts/testbed-nat.sh
. "$(dirname "$0")/testbed-nat.sh"

address() { echo "10.77.$(( $1 / 250 )).$(( $1 % 250 + 2 ))"; }

# Whether this kernel has what the testbed needs; prints one line per part.
check() {
    local probe=skwadprobe$$ ok=0
    if ! ip netns add "$probe" 2>/dev/null; then echo "netns: no (ip netns add failed; root needed)"; return 1; fi
    echo "netns: yes"
    if ip -n "$probe" link add br0 type bridge 2>/dev/null; then echo "bridge: yes"; else echo "bridge: no"; ok=1; fi
    if ip -n "$probe" link add v0 type veth peer name v1 2>/dev/null; then echo "veth: yes"; else echo "veth: no"; ok=1; fi
    if ip netns exec "$probe" tc qdisc add dev v1 root netem delay 10ms 5ms loss 1% 2>/dev/null; then
        echo "netem: yes"
    else
        echo "netem: no (this kernel lacks sch_netem: no delay, jitter or loss can be emulated)"; ok=2
    fi
    ip netns del "$probe" 2>/dev/null || true
    return $ok
}

down() {
    local ns
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$tag-(hub|[0-9]+)$" || true); do
        ip netns del "$ns" 2>/dev/null || true
    done
    rm -f "$file"
}

up() {
    trap 'down' ERR
    ip netns add "$tag-hub"
    ip -n "$tag-hub" link add br0 type bridge
    ip -n "$tag-hub" link set br0 up
    : > "$file"
    for ((i = 0; i < nodes; i++)); do
        local ns="$tag-$i"
        ip netns add "$ns"
        ip -n "$tag-hub" link add "v$i" type veth peer name eth0 netns "$ns"
        ip -n "$tag-hub" link set "v$i" master br0 up
        ip -n "$ns" link set lo up
        ip -n "$ns" addr add "$(address "$i")/16" dev eth0
        ip -n "$ns" link set eth0 up
        if [ "$netem" = 1 ]; then
            ip netns exec "$ns" tc qdisc add dev eth0 root netem delay "$delay" "$jitter" loss "$loss"
        elif [ -n "$nft_loss" ]; then
            ip netns exec "$ns" nft add table inet skwadtb
            ip netns exec "$ns" nft add chain inet skwadtb out '{ type filter hook output priority 0; }'
            ip netns exec "$ns" nft add rule inet skwadtb out meta l4proto udp numgen random mod 1000 '<' "$nft_loss" counter drop
        fi
        echo "$ns $(address "$i")" >> "$file"
    done
    trap - ERR
}

require_netem() {
    if [ "$netem" = 1 ] && ! check >/dev/null; then
        check >&2 || true
        echo "testbed: netem is unavailable here; pass --no-netem to run on the namespaces without delay or loss" >&2
        exit 3
    fi
}

case $cmd in
    check) check ;;
    up)
        require_netem
        up
        echo "tag $tag"; echo "file $file" ;;
    down) down ;;
    nat-check) nat_check ;;
    nat-up)
        nat_check >/dev/null || { nat_check >&2; exit 3; }
        nat_up
        echo "tag $tag"; echo "file $file" ;;
    nat-down) nat_down ;;
    nat-sweep) nat_sweep ;;
    nat-timeouts) nat_timeouts ;;
    nat-run)
        [ -x "$SKWAD" ] || { echo "testbed: no binary at $SKWAD (swift build -c release, or set SKWAD)" >&2; exit 2; }
        nat_check >/dev/null || { nat_check >&2; exit 3; }
        trap 'nat_down' EXIT
        trap 'exit 130' INT
        trap 'exit 143' TERM
        nat_up
        echo "testbed: NAT routers $tag ($(nat_timeouts))" >&2
        "$SKWAD" bench nat --testbed "$file" ${bench_args[@]+"${bench_args[@]}"} ;;
    run)
        require_netem
        [ -x "$SKWAD" ] || { echo "testbed: no binary at $SKWAD (swift build -c release, or set SKWAD)" >&2; exit 2; }
        trap 'down' EXIT
        trap 'exit 130' INT
        trap 'exit 143' TERM
        up
        if [ "$netem" = 1 ]; then shaping="netem delay $delay jitter $jitter loss $loss"
        elif [ -n "$nft_loss" ]; then shaping="no netem (no delay or jitter); UDP loss $nft_loss/1000 by nftables"
        else shaping="no shaping"; fi
        echo "testbed: $nodes namespaces, $shaping" >&2
        "$SKWAD" bench procs --nodes "$nodes" --testbed "$file" ${bench_args[@]+"${bench_args[@]}"} ;;
    *) sed -n '2,23p' "$0"; [ "$cmd" = help ] ;;
esac
