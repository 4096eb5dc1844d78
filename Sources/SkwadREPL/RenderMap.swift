import Foundation
import SkwadModel
import SkwadNode
import SkwadReplica

/// The packs around you, for `map`: where each fenced pack's centre lies from you (metres
/// east and north), its fence, label and colour. Packs without a fence have no place.
public struct MapView: Sendable {
    public struct Pack: Sendable {
        public let summary: PackSummary
        public let label: String
        public let color: String
        public let joined: Bool
        /// Metres east and north of you to the fence centre (nil: no fence, no place).
        public let east: Double?
        public let north: Double?
    }
    public let center: GeoPoint
    public let radius: Double
    public let packs: [Pack]

    /// Without `--radius`: the farthest fence reached (centre distance + radius) within
    /// 5 km, at least 500 m.
    public static let defaultRadiusRange: ClosedRange<Double> = 500...5_000

    static func around(_ node: Node, radius: Double?) async throws -> MapView {
        guard let here = await node.location else {
            throw CommandError("map is drawn around you: set your location first (locate LAT,LON)")
        }
        let styles = await node.packStyles()
        let listing = await node.packs(sort: .distance)
        let packs = listing.map { l -> Pack in
            let p = l.pack
            var east: Double?, north: Double?
            if let d = p.distanceMeters, let b = p.bearingDegrees {
                east = d * sin(b * .pi / 180); north = d * cos(b * .pi / 180)
            }
            return Pack(summary: p, label: styles[p.id]?.label ?? p.name, color: p.color, joined: l.joined, east: east, north: north)
        }
        let reach =
            packs.compactMap { p in p.summary.distanceMeters.map { $0 + (p.summary.fence?.radiusMeters ?? 0) } }
            .filter { $0 <= defaultRadiusRange.upperBound }.max() ?? 0
        let r = radius ?? min(defaultRadiusRange.upperBound, max(defaultRadiusRange.lowerBound, reach * 1.1))
        return MapView(center: here, radius: r, packs: packs)
    }
}

/// A map laid out on a character grid: north up, you (`@`) at the centre, each fenced
/// pack's fence drawn with dots and its centre with its letter. A terminal cell is about
/// twice as tall as it is wide, so a row spans twice the metres of a column.
struct MapGrid: Equatable {
    let cols: Int
    let rows: Int
    let metresPerColumn: Double
    /// Per cell: the character and the index (in `MapView.packs`) of the pack it belongs to.
    var cells: [[(ch: Character, pack: Int?)]]
    /// Letter of each pack placed on the map, by index.
    var letters: [Int: Character]

    static func == (a: MapGrid, b: MapGrid) -> Bool { a.plainRows == b.plainRows }

    static let letterSet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// The grid for `screen` (columns, rows of the terminal): one row for the title, one
    /// per legend line, two for the prompt; odd sizes so that you are in the middle cell.
    static func layout(_ m: MapView, screen: (cols: Int, rows: Int)) -> MapGrid {
        let legend = m.packs.count + 2
        var cols = max(21, min(screen.cols, 200)), rows = max(11, min(screen.rows - legend - 3, 61))
        if cols % 2 == 0 { cols -= 1 }
        if rows % 2 == 0 { rows -= 1 }
        let halfW = Double(cols - 1) / 2, halfH = Double(rows - 1) / 2
        let mx = max(m.radius / halfW, m.radius / (2 * halfH)), my = 2 * mx
        var cells = Array(repeating: Array(repeating: (ch: Character(" "), pack: Int?.none), count: cols), count: rows)
        var letters: [Int: Character] = [:]
        // Farthest first, so that nearer packs are drawn over them.
        let order = m.packs.indices.filter { m.packs[$0].east != nil }
            .sorted { (m.packs[$0].summary.distanceMeters ?? 0) > (m.packs[$1].summary.distanceMeters ?? 0) }
        for (n, i) in m.packs.indices.filter({ m.packs[$0].east != nil }).enumerated() {
            letters[i] = n < letterSet.count ? letterSet[n] : "+"
        }
        for i in order {
            let p = m.packs[i]
            guard let pe = p.east, let pn = p.north else { continue }
            if let r = p.summary.fence?.radiusMeters {
                for row in 0..<rows {
                    for col in 0..<cols {
                        let dx = (Double(col) - halfW) * mx - pe, dy = (halfH - Double(row)) * my - pn
                        let d = (dx * dx + dy * dy).squareRoot()
                        // Half the cell's extent along the radius: a ring one cell thick.
                        let t = d > 0 ? 0.5 * (mx * abs(dx) + my * abs(dy)) / d : mx
                        if abs(d - r) <= t { cells[row][col] = ("·", i) }
                    }
                }
            }
            let col = Int((halfW + pe / mx).rounded()), row = Int((halfH - pn / my).rounded())
            if (0..<cols).contains(col) && (0..<rows).contains(row) { cells[row][col] = (letters[i] ?? "+", i) }
        }
        cells[Int(halfH)][Int(halfW)] = ("@", nil)
        return MapGrid(cols: cols, rows: rows, metresPerColumn: mx, cells: cells, letters: letters)
    }

    /// Where a pack's centre falls on the grid (nil when off it or without a place).
    func cell(of p: MapView.Pack) -> (col: Int, row: Int)? {
        guard let e = p.east, let n = p.north else { return nil }
        let halfW = Double(cols - 1) / 2, halfH = Double(rows - 1) / 2
        let col = Int((halfW + e / metresPerColumn).rounded()), row = Int((halfH - n / (2 * metresPerColumn)).rounded())
        return (0..<cols).contains(col) && (0..<rows).contains(row) ? (col, row) : nil
    }

    var plainRows: [String] { cells.map { String($0.map(\.ch)) } }
}

extension Renderer {
    func mapText(_ m: MapView) -> String {
        let g = MapGrid.layout(m, screen: screen)
        var lines = ["map: \(Self.distance(m.radius)) around you (@), north up, one column ≈ \(Self.distance(g.metresPerColumn))"]
        for row in g.cells {
            var line = ""
            for cell in row {
                if let i = cell.pack { line += colored(String(cell.ch), pack: m.packs[i].summary.id) } else { line.append(cell.ch) }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            lines.append(line)
        }
        if m.packs.isEmpty { lines.append("no packs around you yet: create one with create NAME --radius METRES") }
        for (i, p) in m.packs.enumerated() {
            let s = p.summary
            let mark = g.letters[i].map { String($0) } ?? "-"
            var parts = [colored(mark, pack: s.id), colored(SafeText.line(p.label), pack: s.id)]
            if let d = s.distanceMeters, let b = s.bearingDegrees { parts.append("\(Self.distance(d)) \(Self.compass(b))") }
            if let f = s.fence { parts.append("r=\(Self.distance(f.radiusMeters))") } else { parts.append("no fence: everywhere") }
            if s.fence != nil {
                if let at = g.cell(of: p) {
                    let shown = g.cells[at.row][at.col].ch
                    if let mark = g.letters[i], shown != mark { parts.append("(centre under \(shown))") }
                } else {
                    parts.append("(off the map)")
                }
            }
            if p.joined { parts.append("(joined)") }
            lines.append(parts.joined(separator: "  "))
        }
        return lines.joined(separator: "\n")
    }

    func mapJSON(_ m: MapView) -> [(String, JSON)] {
        let g = MapGrid.layout(m, screen: screen)
        let packs: [JSON] = m.packs.enumerated().map { i, p in
            let at = g.cell(of: p)
            return .object([
                ("id", .string(p.summary.id.hex)), ("name", .string(p.summary.name)), ("label", .string(p.label)),
                ("letter", g.letters[i].map { .string(String($0)) } ?? .null),
                ("color", .string(Palette.color(for: p.color, id: p.summary.id).name)),
                ("distance", p.summary.distanceMeters.map { .double($0) } ?? .null),
                ("bearing", p.summary.bearingDegrees.map { .double($0) } ?? .null),
                ("radius", p.summary.fence.map { .double($0.radiusMeters) } ?? .null),
                ("x", at.map { .int($0.col) } ?? .null), ("y", at.map { .int($0.row) } ?? .null),
                ("joined", .bool(p.joined))
            ])
        }
        return [
            ("center", .string("\(m.center.lat),\(m.center.lon)")), ("radius", .double(m.radius)),
            ("metresPerColumn", .double(g.metresPerColumn)), ("cols", .int(g.cols)), ("rows", .int(g.rows)),
            ("packs", .array(packs)), ("grid", .array(g.plainRows.map { .string($0) }))
        ]
    }
}

/// `map`; `asJSON`: printed as its JSON object even in text mode (`map --json`).
struct MapReply: REPLReply {
    let map: MapView
    let asJSON: Bool
    var printsJSON: Bool { asJSON }
    func text(_ r: Renderer) -> String { asJSON ? r.json(self).render() : r.mapText(map) }
    func json(_ r: Renderer) -> [(String, JSON)] { r.mapJSON(map) }
}
