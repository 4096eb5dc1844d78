#!/usr/bin/env bash
# NAT routers for the testbed (sourced by scripts/testbed.sh; root, iproute2 and nftables).
#
# An "internet" bridge 198.18.0.0/15 (the benchmarking range, RFC 2544) in namespace TAG-net;
# two public nodes' namespaces, TAG-pub at 198.18.0.10 and TAG-pub2 at 198.19.0.10 (two
# network groups, as two independent witnesses of a reflexive address must be); four home
# routers, each a namespace TAG-rN with a WAN leg 198.18.N.1 and a LAN 192.168.N.0/24 holding
# one node namespace TAG-nN at
# 192.168.N.2 (default route through 192.168.N.1):
#   r1, r2: endpoint-independent mapping (nftables `masquerade`: the source port is kept
#           while free, one public port for every destination), endpoint-dependent filtering
#           (conntrack lets in only replies);
#   r3, r4: symmetric (nftables `masquerade random`: a new random public port per
#           destination), endpoint-dependent filtering.
# Every router drops unsolicited datagrams to its own WAN address before conntrack keeps a
# state for them (a home router's stance; a kept state would also steal the port a punched
# hole needs). Conntrack's UDP timeouts are the kernel's (`nat_timeouts` prints them) unless
# SKWAD_NAT_UDP_TIMEOUT (seconds) sets both, in the routers only.
#
# The testbed file lists one line per node: ROLE NAMESPACE ADDRESS [PUBLIC-ADDRESS-OF-ITS-ROUTER]
# with ROLE pub, pub2, eim1, eim2, sym3, sym4.

nat_routers=(1 2 3 4)

nat_kind() { if [ "$1" -le 2 ]; then echo eim; else echo sym; fi; }

nat_down() {
    local ns
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$tag-(net|pub|pub2|r[0-9]+|n[0-9]+)$" || true); do
        # Nodes a dead run left inside go first: a namespace deleted under a process lives on.
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
        ip netns del "$ns" 2>/dev/null || true
    done
    rm -f "$file"
}

# Removes the testbeds of runs that died without nat-down (a crashed test process): a tag of
# the form skwnPIDpN names the process that made it, and one whose process is gone is swept.
# Other tags are left alone.
nat_sweep() {
    local t pid
    for t in $(ip netns list 2>/dev/null | awk '{print $1}' | sed -nE 's/^(skwn[0-9]+p[0-9]+)-.*$/\1/p' | sort -u); do
        pid=${t#skwn}; pid=${pid%%p*}
        [ -d "/proc/$pid" ] && continue
        echo "swept $t"
        tag=$t file=${TMPDIR:-/tmp}/$t.testbed nat_down
    done
}

nat_up() {
    trap 'nat_down' ERR
    ip netns add "$tag-net"
    ip -n "$tag-net" link add br0 type bridge
    ip -n "$tag-net" link set br0 up
    : > "$file"
    # The public nodes.
    local pub addr
    for pub in pub:198.18.0.10 pub2:198.19.0.10; do
        addr=${pub#*:} pub=${pub%%:*}
        ip netns add "$tag-$pub"
        ip -n "$tag-net" link add "v$pub" type veth peer name eth0 netns "$tag-$pub"
        ip -n "$tag-net" link set "v$pub" master br0 up
        ip -n "$tag-$pub" link set lo up
        ip -n "$tag-$pub" addr add "$addr/15" dev eth0
        ip -n "$tag-$pub" link set eth0 up
        echo "$pub $tag-$pub $addr" >> "$file"
    done
    local n r h kind
    for n in "${nat_routers[@]}"; do
        r="$tag-r$n" h="$tag-n$n" kind=$(nat_kind "$n")
        ip netns add "$r"
        ip netns add "$h"
        ip -n "$tag-net" link add "vr$n" type veth peer name wan netns "$r"
        ip -n "$tag-net" link set "vr$n" master br0 up
        ip -n "$r" link add lan type veth peer name eth0 netns "$h"
        ip -n "$r" link set lo up
        ip -n "$r" addr add "198.18.$n.1/15" dev wan
        ip -n "$r" addr add "192.168.$n.1/24" dev lan
        ip -n "$r" link set wan up
        ip -n "$r" link set lan up
        ip netns exec "$r" sysctl -qw net.ipv4.ip_forward=1
        ip -n "$h" link set lo up
        ip -n "$h" addr add "192.168.$n.2/24" dev eth0
        ip -n "$h" link set eth0 up
        ip -n "$h" route add default via "192.168.$n.1"
        local masq="masquerade"
        [ "$kind" = sym ] && masq="masquerade random"
        ip netns exec "$r" nft -f - <<NFT
table ip skwadnat {
    chain outbound { type nat hook postrouting priority srcnat; oifname "wan" $masq; }
    chain inbound { type filter hook input priority filter; policy accept; iifname "wan" ct state new drop; }
    chain forwarding { type filter hook forward priority filter; policy accept; iifname "wan" ct state new drop; }
}
NFT
        if [ -n "${SKWAD_NAT_UDP_TIMEOUT:-}" ]; then
            ip netns exec "$r" sysctl -qw net.netfilter.nf_conntrack_udp_timeout="$SKWAD_NAT_UDP_TIMEOUT"
            ip netns exec "$r" sysctl -qw net.netfilter.nf_conntrack_udp_timeout_stream="$SKWAD_NAT_UDP_TIMEOUT"
        fi
        echo "$kind$n $h 192.168.$n.2 198.18.$n.1" >> "$file"
    done
    trap - ERR
}

# The UDP timeouts conntrack applies in a router: "udp S stream S" (seconds).
nat_timeouts() {
    local r="$tag-r1"
    echo "udp $(ip netns exec "$r" sysctl -n net.netfilter.nf_conntrack_udp_timeout)" \
        "stream $(ip netns exec "$r" sysctl -n net.netfilter.nf_conntrack_udp_timeout_stream)"
}

nat_check() {
    command -v nft >/dev/null || { echo "nat: no (nft not found; scripts/setup.sh installs nftables)"; return 1; }
    local probe=skwadnatprobe$$ ok=0
    ip netns add "$probe" 2>/dev/null || { echo "nat: no (ip netns add failed; root needed)"; return 1; }
    if ip netns exec "$probe" nft add table ip t \; add chain ip t p '{ type nat hook postrouting priority srcnat; }' \; \
        add rule ip t p masquerade random 2>/dev/null; then echo "nat: yes"; else echo "nat: no (nftables nat unavailable)"; ok=1; fi
    ip netns del "$probe" 2>/dev/null || true
    return $ok
}
