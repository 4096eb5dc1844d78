import SkwadCrypto
import SkwadModel
import SkwadNode

/// Text and JSON of direct messages, conversations and safety numbers. Every text and name
/// from the network goes through SafeText.
extension Renderer {
    /// A pseudonym tag with its verified mark.
    func peerTag(_ key: PublicKey, verified: Bool) -> String { pseudonymTag(key) + (verified ? " ✓" : "") }

    func conversationText(_ r: ConversationReply) -> String {
        switch r {
        case let .sent(opID, peer, packName):
            return "sent \(id(opID)) to \(pseudonymTag(peer)) in \(SafeText.line(packName)) (sealed; delivered when they acknowledge)"
        case .chat(.list(let list)):
            if list.isEmpty { return "no conversations yet: dm AUTHOR \"TEXT\"" }
            return list.map { c in
                let last = (c.last.mine ? "you: " : "") + SafeText.line(String(c.last.text.prefix(60)))
                return "\(peerTag(c.peer, verified: c.verified))  in \(SafeText.line(c.packName))  \(Wording.count(c.count, "message"))  "
                    + "\(dim(timeMs(c.last.atMs)))  \(last)"
            }.joined(separator: "\n")
        case let .chat(.thread(_, packName, peer, verified, entries)):
            let head = "conversation with \(peerTag(peer, verified: verified)) in \(SafeText.line(packName))"
            if entries.isEmpty { return head + "\n  (no messages yet)" }
            return ([head] + entries.map(chatLine)).joined(separator: "\n")
        case .safety(let s):
            var lines = [
                "safety number of you (\(pseudonymTag(s.me))) and \(pseudonymTag(s.peer)) in \(SafeText.line(s.packName)):",
                "  \(s.number)"
            ]
            lines.append(
                s.verified
                    ? "  verified ✓ (verify \(pseudonymTag(s.peer)) --undo removes the mark)"
                    : "  compare it with theirs (in person, or another channel); if it matches: "
                        + "verify \(pseudonymTag(s.peer)) --confirm")
            return lines.joined(separator: "\n")
        case let .followed(key, packName, on):
            return on
                ? "following \(pseudonymTag(key)) in \(SafeText.line(packName)): feed --following shows their posts"
                : "stopped following \(pseudonymTag(key)) in \(SafeText.line(packName))"
        case .following(let list):
            if list.isEmpty { return "you follow nobody yet: follow AUTHOR" }
            return list.map {
                "\(pseudonymTag($0.author))  in \(SafeText.line($0.packName))  \(Wording.count($0.posts, "post"))"
            }.joined(separator: "\n")
        case .feed(let posts):
            if posts.isEmpty { return "no posts by the pseudonyms you follow" }
            return posts.map(postLine).joined(separator: "\n")
        case let .profiled(key, packName, name, about):
            return "you are \"\(SafeText.line(name))\" (\(pseudonymTag(key))) in \(SafeText.line(packName)) only"
                + (about.isEmpty ? "" : ", about: \(SafeText.line(about))") + "; "
                + "post \(SafeText.line(CommandWord.quote(packName))) \"TITLE\" \"BODY\" --named posts under it, "
                + "other posts stay anonymous"
        case .posted(let opID): return "posted \(id(opID))"
        }
    }

    func chatLine(_ e: ConversationEntry) -> String {
        let who = e.mine ? "you" : pseudonymTag(e.peer)
        let mark = e.mine ? (e.delivered ? "  (delivered)" : "  (sent)") : ""
        return "  \(id(e.id))  \(dim(timeMs(e.atMs)))  \(who): \(SafeText.block(e.text, indent: "      "))\(mark)"
    }

    func entryJSON(_ e: ConversationEntry) -> JSON {
        .object([
            ("id", .string(e.id.hex)), ("pack", .string(e.pack.hex)), ("peer", .string(pseudonymTag(e.peer))),
            ("mine", .bool(e.mine)), ("text", .string(e.text)), ("time", .int(Int(e.atMs))), ("delivered", .bool(e.delivered))
        ])
    }

    func conversationJSON(_ r: ConversationReply) -> [(String, JSON)] {
        switch r {
        case let .sent(opID, peer, packName):
            return [("id", .string(opID.hex)), ("to", .string(pseudonymTag(peer))), ("packName", .string(packName))]
        case .chat(.list(let list)):
            return [
                (
                    "conversations",
                    .array(
                        list.map { c in
                            .object([
                                ("peer", .string(pseudonymTag(c.peer))), ("pack", .string(c.pack.hex)), ("packName", .string(c.packName)),
                                ("verified", .bool(c.verified)), ("count", .int(c.count)), ("last", entryJSON(c.last))
                            ])
                        })
                )
            ]
        case let .chat(.thread(pack, packName, peer, verified, entries)):
            return [
                ("peer", .string(pseudonymTag(peer))), ("pack", .string(pack.hex)), ("packName", .string(packName)),
                ("verified", .bool(verified)), ("messages", .array(entries.map(entryJSON)))
            ]
        case let .followed(key, packName, on):
            return [("author", .string(pseudonymTag(key))), ("packName", .string(packName)), ("following", .bool(on))]
        case .following(let list):
            return [
                (
                    "following",
                    .array(
                        list.map { f in
                            .object([
                                ("author", .string(pseudonymTag(f.author))), ("pack", .string(f.pack.hex)),
                                ("packName", .string(f.packName)),
                                ("posts", .int(f.posts))
                            ])
                        })
                )
            ]
        case .feed(let posts): return [("posts", .array(posts.map(post)))]
        case let .profiled(key, packName, name, about):
            return [
                ("persona", .string(pseudonymTag(key))), ("packName", .string(packName)), ("name", .string(name)),
                ("about", .string(about))
            ]
        case .posted(let opID): return [("id", .string(opID.hex)), ("message", .string("posted \(opID.short(idLength))"))]
        case .safety(let s):
            return [
                ("me", .string(pseudonymTag(s.me))), ("peer", .string(pseudonymTag(s.peer))), ("pack", .string(s.pack.hex)),
                ("safetyNumber", .string(s.number)), ("verified", .bool(s.verified))
            ]
        }
    }

    /// The live line of a conversation event.
    func conversationEvent(_ e: ConversationEvent) -> String {
        switch (mode, e) {
        case (.json, let .message(entry, name, verified)):
            return JSON.object([
                ("event", "dm"), ("packName", .string(name)), ("verified", .bool(verified)),
                (
                    "message",
                    entryJSON(entry)
                )
            ]).render()
        case (.json, let .delivered(opID, peer)):
            return JSON.object([("event", "delivered"), ("id", .string(opID.hex)), ("peer", .string(pseudonymTag(peer)))]).render()
        case (_, let .message(entry, name, verified)):
            return "* message from \(peerTag(entry.peer, verified: verified)) in \(SafeText.line(name)): \(id(entry.id))  "
                + SafeText.block(entry.text, indent: "    ") + dim("  (reply: dm \(id(entry.id)) \"TEXT\")")
        case (_, let .delivered(opID, peer)):
            return "* delivered \(id(opID)) to \(pseudonymTag(peer))"
        case (.json, .followedPost(let p)):
            return JSON.object([("event", "followed_post"), ("post", post(p))]).render()
        case (_, .followedPost(let p)):
            return "* new post by \(pseudonymTag(p.author)), whom you follow: " + postLine(p)
        }
    }
}
