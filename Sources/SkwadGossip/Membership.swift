import SkwadModel

/// HyParView (Leitão, Pereira, Rodrigues 2007) views with SWIM-style failure detection
/// (Das, Gupta, Motivala 2002). Peers are identified by their address.
extension GossipEngine {
    /// Longest walk of a low-priority `Neighbor` (longer ones from the wire are clamped).
    static let neighborWalk: UInt32 = 3

    func joinMessage() -> WireMessage { var m = WireMessage(); var j = Skwad_Gossip_V1_Join(); j.info = info.wire; m.join = j; return m }

    mutating func pingMessage(for peer: PeerAddress) -> WireMessage {
        var m = WireMessage(); var p = Skwad_Gossip_V1_Ping()
        p.seq = nextPingSeq; nextPingSeq += 1; p.info = info.wire
        m.ping = p
        return m
    }

    func peerWire(_ a: PeerAddress, cell: String?) -> Skwad_Gossip_V1_Peer {
        var p = Skwad_Gossip_V1_Peer(); p.address = a.value; p.cell = cell ?? ""; return p
    }

    /// Adds a peer to the active view, evicting a random one (to the passive view) if full.
    mutating func addActive(_ peer: PeerAddress, info peerInfo: NodeInfo?, nowMs: UInt64, into out: inout [GossipDirective]) {
        guard peer != selfAddress else { return }
        if let peerInfo { offerVicinity(peer, info: peerInfo, heard: true, nowMs: nowMs) }
        if var st = active[peer] {
            if let peerInfo { st.info = peerInfo }
            st.lastHeardMs = nowMs
            active[peer] = st
            return
        }
        if active.count >= config.activeSize, let victim = active.keys.sorted().randomElement(using: &rng) {
            var m = WireMessage(); m.disconnect = Skwad_Gossip_V1_Disconnect()
            send(m, to: victim, nowMs: nowMs, into: &out)
            demote(victim, nowMs: nowMs, into: &out)
        }
        passive[peer] = nil
        active[peer] = PeerState(info: peerInfo ?? NodeInfo(), lastHeardMs: nowMs)
        if pendingNeighbor?.address == peer { pendingNeighbor = nil }
        directoryOnNewLink(peer)
        out.append(.peerUp(peer))
    }

    /// Why a node gives up on a peer.
    enum GiveUp: Sendable { case dead, unreachable, silent }

    /// The one way to give up on a peer: a dead active member (SWIM), an address whose
    /// handshake or neighbour request was never answered, a vicinity entry that stopped
    /// answering. It goes to the
    /// dead list (revived now and then, §9) and out of every view, with its session and its
    /// Plumtree mark — except that a `silent` vicinity entry that is still an active member
    /// loses only its vicinity and remote roles.
    mutating func giveUp(_ peer: PeerAddress, _ why: GiveUp, cell: String?, nowMs: UInt64, into out: inout [GossipDirective]) {
        markDead(peer, cell: cell, nowMs: nowMs)
        vicinity[peer] = nil
        remote[peer] = nil
        if why == .silent && active[peer] != nil { return }
        if why == .unreachable { stats.drop(.unreachable) }
        if active.removeValue(forKey: peer) != nil { out.append(.peerDown(peer)) }
        passive[peer] = nil
        sessions[peer] = nil
        handshaking.remove(peer)
        if pendingNeighbor?.address == peer { pendingNeighbor = nil }
        plumtree.setLazy(peer, false)
    }

    mutating func demote(_ peer: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        guard let st = active.removeValue(forKey: peer) else { return }
        addPassive(peer, cell: st.info.cell, nowMs: nowMs)
        out.append(.peerDown(peer))
    }

    mutating func addPassive(_ peer: PeerAddress, cell: String?, nowMs: UInt64) {
        if let cell { offerVicinity(peer, info: NodeInfo(cell: cell), heard: false, nowMs: nowMs) }
        guard active[peer] == nil, peer != selfAddress else { return }
        if passive[peer] == nil && passive.count >= config.passiveSize, let victim = passive.keys.sorted().randomElement(using: &rng) {
            passive[victim] = nil
        }
        passive[peer] = cell ?? passive[peer] ?? ""
    }

    mutating func randomActive(excluding: Set<PeerAddress>) -> PeerAddress? {
        active.keys.filter { !excluding.contains($0) }.sorted().randomElement(using: &rng)
    }

    mutating func handleMembership(_ m: WireMessage, from: PeerAddress, nowMs: UInt64, into out: inout [GossipDirective]) {
        switch m.body {
        case .join(let j)?:
            guard guardState.admitJoin(from: from, nowMs: nowMs) else { stats.drop(.joinLimited); return }
            if admitOrTry(from, info: NodeInfo(wire: j.info), nowMs: nowMs, into: &out) {
                var reply = WireMessage(); var r = Skwad_Gossip_V1_NeighborReply(); r.accepted = true; r.info = info.wire; reply.neighborReply = r
                send(reply, to: from, nowMs: nowMs, into: &out)
            }
            for p in active.keys.sorted() where p != from {
                var fj = WireMessage(); var f = Skwad_Gossip_V1_ForwardJoin()
                f.joiner = peerWire(from, cell: NodeInfo(wire: j.info).cell); f.ttl = UInt32(config.activeWalk)
                fj.forwardJoin = f
                send(fj, to: p, nowMs: nowMs, into: &out)
            }
        case .forwardJoin(var f)?:
            // Walks come only from members, and no longer than ours (PROTOCOL §9).
            guard active[from] != nil else { stats.drop(.notAMember); return }
            f.ttl = min(f.ttl, UInt32(config.activeWalk))
            let joiner = PeerAddress(f.joiner.address)
            guard !joiner.value.isEmpty, joiner != selfAddress else { return }
            let cell = f.joiner.cell.isEmpty ? nil : f.joiner.cell
            if let cell { offerVicinity(joiner, info: NodeInfo(cell: cell), heard: false, nowMs: nowMs) }
            if f.ttl == 0 || active.count <= 1 {
                if !mayIntroduce(joiner, nowMs: nowMs) {
                    addPassive(joiner, cell: cell, nowMs: nowMs)
                } else if active.count >= config.activeSize {
                    // Full here: the joiner displaces a member only after answering a ping,
                    // within the eviction budget.
                    _ = admitOrTry(joiner, info: NodeInfo(cell: cell), nowMs: nowMs, into: &out)
                } else if active[joiner] == nil {
                    var n = WireMessage(); var nb = Skwad_Gossip_V1_Neighbor(); nb.highPriority = true; nb.info = info.wire; n.neighbor = nb
                    send(n, to: joiner, nowMs: nowMs, into: &out)
                    addActive(joiner, info: NodeInfo(cell: cell), nowMs: nowMs, into: &out)
                }
                return
            }
            if f.ttl == UInt32(config.passiveWalk) { addPassive(joiner, cell: cell, nowMs: nowMs) }
            if let next = randomActive(excluding: [from, joiner]) {
                var fj = WireMessage(); var g = f; g.ttl = f.ttl - 1; fj.forwardJoin = g
                send(fj, to: next, nowMs: nowMs, into: &out)
            } else if active[joiner] == nil {
                if active.count >= config.activeSize || !mayIntroduce(joiner, nowMs: nowMs) { addPassive(joiner, cell: cell, nowMs: nowMs); return }
                var n = WireMessage(); var nb = Skwad_Gossip_V1_Neighbor(); nb.highPriority = true; nb.info = info.wire; n.neighbor = nb
                send(n, to: joiner, nowMs: nowMs, into: &out)
                addActive(joiner, info: NodeInfo(cell: cell), nowMs: nowMs, into: &out)
            }
        case .neighbor(let n)?:
            // A forwarded request (`origin` set) counts only from a member; walks are clamped.
            if !n.origin.isEmpty && active[from] == nil { stats.drop(.notAMember); return }
            let asker = n.origin.isEmpty ? from : PeerAddress(n.origin)
            guard asker != selfAddress else { return }
            let ttl = min(n.ttl, Self.neighborWalk)
            let room = active.count < config.activeSize || active[asker] != nil
            if !room && n.highPriority && asker == from {
                // Must accept, but a full view tests the newcomer first (MembershipGuard).
                _ = admitOrTry(asker, info: NodeInfo(wire: n.info), nowMs: nowMs, into: &out)
                return
            }
            let accept = room
            if !accept && ttl > 0, let next = randomActive(excluding: [from, asker]) {
                // Full here: walk the request on towards a node with room.
                var fwd = WireMessage(); var f = n; f.origin = asker.value; f.ttl = ttl - 1; fwd.neighbor = f
                send(fwd, to: next, nowMs: nowMs, into: &out)
                return
            }
            if accept && asker != from && !mayIntroduce(asker, nowMs: nowMs) { return }
            if accept { addActive(asker, info: NodeInfo(wire: n.info), nowMs: nowMs, into: &out) }
            do {
                var reply = WireMessage(); var r = Skwad_Gossip_V1_NeighborReply(); r.accepted = accept; r.info = info.wire; reply.neighborReply = r
                send(reply, to: asker, nowMs: nowMs, into: &out)
            }
        case .neighborReply(let r)?:
            if pendingNeighbor != nil && (!r.accepted || pendingNeighbor?.address == from) { pendingNeighbor = nil }
            if r.accepted && active[from] == nil && active.count >= config.activeSize {
                // A walked request found room after we filled up: decline politely.
                var m = WireMessage(); m.disconnect = Skwad_Gossip_V1_Disconnect()
                send(m, to: from, nowMs: nowMs, into: &out)
            } else if r.accepted { addActive(from, info: NodeInfo(wire: r.info), nowMs: nowMs, into: &out) }
            else if active[from] == nil { addPassive(from, cell: NodeInfo(wire: r.info).cell, nowMs: nowMs) }
        case .disconnect?:
            demote(from, nowMs: nowMs, into: &out)
        case .shuffle(let s)?:
            var reply = WireMessage(); var r = Skwad_Gossip_V1_ShuffleReply()
            let known = active.keys.sorted().filter { $0 != from }.map { ($0, active[$0]!.info.cell) } + passive.keys.sorted().map { ($0, passive[$0]) }
            r.peers = known.shuffled(using: &rng).prefix(config.shuffleSample).map { peerWire($0.0, cell: $0.1) }
            reply.shuffleReply = r
            send(reply, to: from, nowMs: nowMs, into: &out)
            integrate(s.peers, nowMs: nowMs)
        case .shuffleReply(let r)?:
            integrate(r.peers, nowMs: nowMs)
        case .ping(let p)?:
            if active[from] != nil { active[from]!.info = NodeInfo(wire: p.info) }
            if vicinity[from] != nil { offerVicinity(from, info: NodeInfo(wire: p.info), heard: true, nowMs: nowMs) }
            // Our cell and subscriptions only to our links (a stranger learns nothing from an Ack).
            var reply = WireMessage(); var a = Skwad_Gossip_V1_Ack(); a.seq = p.seq; if isLink(from) { a.info = info.wire }
            // Active views are symmetric (HyParView): tell a pinger that holds us as its member
            // while we do not hold it (a Neighbor we never accepted, a Disconnect lost), so it
            // demotes us. Not while a neighbour request or trial between us is under way.
            a.notMember = active[from] == nil && pendingNeighbor?.address != from && guardState.candidates[from] == nil
            reply.ack = a
            send(reply, to: from, nowMs: nowMs, into: &out)
        case .ack(let a)?:
            let onTrial = guardState.candidates[from] != nil
            if onTrial { candidateAnswered(from, seq: a.seq, nowMs: nowMs, into: &out) }
            if vicinity[from] != nil && a.hasInfo { offerVicinity(from, info: NodeInfo(wire: a.info), heard: true, nowMs: nowMs) }
            if a.notMember && !onTrial && active[from] != nil {
                // A one-sided link (§9): it does not hold us; it goes to the passive view.
                demote(from, nowMs: nowMs, into: &out)
            } else if active[from] != nil {
                if a.hasInfo { active[from]!.info = NodeInfo(wire: a.info) }
                if active[from]!.pingSeq == a.seq { active[from]!.pingSentMs = nil; active[from]!.suspectSinceMs = nil }
            }
            if let req = indirect.removeValue(forKey: a.seq) {
                var reply = WireMessage(); var ia = Skwad_Gossip_V1_IndirectAck(); ia.seq = req.seq; ia.target = req.target.value; reply.indirectAck = ia
                send(reply, to: req.requester, nowMs: nowMs, into: &out)
            }
        case .pingReq(let r)?:
            // Only a member may ask, and only about a member (no pinging arbitrary addresses).
            let target = PeerAddress(r.target)
            guard active[from] != nil, active[target] != nil, target != from else { stats.drop(.notAMember); return }
            let ping = pingMessage(for: target)
            indirect[ping.ping.seq] = (from, r.seq, target)
            if indirect.count > 256, let oldest = indirect.keys.min() { indirect[oldest] = nil }
            send(ping, to: target, nowMs: nowMs, into: &out)
        case .indirectAck(let ia)?:
            let target = PeerAddress(ia.target)
            if active[target] != nil { active[target]!.suspectSinceMs = nil; active[target]!.pingSentMs = nil; active[target]!.lastHeardMs = nowMs }
        case .interest(let i)?:
            if active[from] != nil { active[from]!.info = NodeInfo(wire: i) }
            if vicinity[from] != nil { offerVicinity(from, info: NodeInfo(wire: i), heard: true, nowMs: nowMs) }
        case .vicinity(let v)?:
            receiveVicinity(v, from: from, nowMs: nowMs, into: &out)
        default:
            break
        }
    }

    mutating func integrate(_ peers: [Skwad_Gossip_V1_Peer], nowMs: UInt64) {
        for p in peers.prefix(config.shuffleSample * 2) where !p.address.isEmpty {
            let a = PeerAddress(p.address)
            if active[a] == nil { addPassive(a, cell: p.cell.isEmpty ? nil : p.cell, nowMs: nowMs) }
        }
    }

    /// SWIM: ping each active peer every interval; silent ones are pinged indirectly
    /// through others (suspect), then dropped (dead) and replaced from the passive view.
    mutating func detectFailures(nowMs: UInt64, into out: inout [GossipDirective]) {
        for peer in active.keys.sorted() {
            guard var st = active[peer] else { continue }
            if let since = st.suspectSinceMs, nowMs >= since + (config.deadAfterMs - config.suspectAfterMs) {
                if nowMs >= st.lastHeardMs + config.deadAfterMs {
                    giveUp(peer, .dead, cell: cell(of: peer), nowMs: nowMs, into: &out)
                    continue
                }
                st.suspectSinceMs = nil
            }
            if let sent = st.pingSentMs, st.suspectSinceMs == nil, nowMs >= sent + config.suspectAfterMs, nowMs >= st.lastHeardMs + config.suspectAfterMs {
                st.suspectSinceMs = nowMs
                active[peer] = st
                for helper in active.keys.filter({ $0 != peer }).sorted().shuffled(using: &rng).prefix(config.indirectPings) {
                    var m = WireMessage(); var r = Skwad_Gossip_V1_PingReq(); r.seq = st.pingSeq; r.target = peer.value; m.pingReq = r
                    send(m, to: helper, nowMs: nowMs, into: &out)
                }
                continue
            }
            if st.pingSentMs == nil && nowMs >= st.lastHeardMs + config.pingIntervalMs {
                let m = pingMessage(for: peer)
                st.pingSeq = m.ping.seq
                st.pingSentMs = nowMs
                active[peer] = st
                send(m, to: peer, nowMs: nowMs, into: &out)
            } else if let sent = st.pingSentMs, st.lastHeardMs > sent {
                st.pingSentMs = nil
                st.suspectSinceMs = nil
                active[peer] = st
            }
        }
    }

    /// Keeps the active view full: asks a passive peer (preferring nearby cells) to become
    /// a neighbour; with nobody known, joins through the seeds again.
    mutating func fillActiveView(nowMs: UInt64, into out: inout [GossipDirective]) {
        expireCandidates(nowMs: nowMs)
        if let p = pendingNeighbor, nowMs >= p.sinceMs + config.helloRetryMs * UInt64(config.helloAttempts + 1) {
            giveUp(p.address, .unreachable, cell: passive[p.address], nowMs: nowMs, into: &out)
        }
        guard active.count < config.activeSize, pendingNeighbor == nil else { return }
        if passive.isEmpty, !active.isEmpty, nowMs >= nextEagerShuffleMs {
            // Nobody to promote: ask a neighbour for samples of its views now.
            nextEagerShuffleMs = nowMs + config.helloRetryMs
            shuffle(nowMs: nowMs, into: &out)
            return
        }
        if let candidate = nearestPassive() {
            // High priority (the receiver must accept, evicting if full) while we hold fewer
            // than activeSize - 1 links: every such exchange brings one more view to that level.
            var m = WireMessage(); var n = Skwad_Gossip_V1_Neighbor(); n.highPriority = active.count < config.activeSize - 1; n.info = info.wire; n.ttl = 3; m.neighbor = n
            pendingNeighbor = (candidate, nowMs)
            send(m, to: candidate, nowMs: nowMs, into: &out)
        } else if active.isEmpty, !seeds.isEmpty, nowMs >= nextRejoinMs {
            nextRejoinMs = nowMs + config.rejoinIntervalMs
            for s in seeds { send(joinMessage(), to: s, nowMs: nowMs, into: &out) }
        }
    }

    /// Best of three random passive peers by distance from our cell (locality keeps
    /// geofenced packs connected), or a random one when cells are unknown.
    mutating func nearestPassive() -> PeerAddress? {
        let keys = passive.keys.sorted()
        guard !keys.isEmpty else { return nil }
        let picks = (0..<min(3, keys.count)).map { _ in keys.randomElement(using: &rng)! }
        guard let mine = info.cell, let here = try? Geohash.decode(mine) else { return picks[0] }
        return picks.min { a, b in
            let da = (try? Geohash.decode(passive[a] ?? "")).map { here.center.distance(to: $0.center) } ?? .infinity
            let db = (try? Geohash.decode(passive[b] ?? "")).map { here.center.distance(to: $0.center) } ?? .infinity
            return da != db ? da < db : a < b
        }
    }

    mutating func shuffle(nowMs: UInt64, into out: inout [GossipDirective]) {
        guard let peer = randomActive(excluding: []) else { return }
        var m = WireMessage(); var s = Skwad_Gossip_V1_Shuffle()
        let sample = (active.keys.sorted().filter { $0 != peer }.map { ($0, active[$0]!.info.cell) }
                      + passive.keys.sorted().map { ($0, passive[$0]) }).shuffled(using: &rng).prefix(config.shuffleSample)
        s.peers = sample.map { peerWire($0.0, cell: $0.1) }
        m.shuffle = s
        send(m, to: peer, nowMs: nowMs, into: &out)
    }
}
