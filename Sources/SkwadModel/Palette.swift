import Foundation

/// The named colours a pack may take (`create NAME --color C`). The name travels in the
/// genesis (`CreatePack.color`, any string on the wire: peers are not bound to this list);
/// a terminal draws a pack in its palette colour, and a pack whose colour is empty or not
/// in the palette in a colour derived from its id. Pure data: no terminal I/O here.
public enum Palette {
    public struct Color: Sendable, Equatable {
        public let name: String
        /// The SGR parameters that select it (`ESC [ sgr m`): 256-colour foregrounds, which
        /// every current terminal emulator draws.
        public let sgr: String
    }

    public static let colors: [Color] = [
        Color(name: "red", sgr: "38;5;196"), Color(name: "orange", sgr: "38;5;208"),
        Color(name: "yellow", sgr: "38;5;226"), Color(name: "lime", sgr: "38;5;118"),
        Color(name: "green", sgr: "38;5;34"), Color(name: "teal", sgr: "38;5;37"),
        Color(name: "cyan", sgr: "38;5;51"), Color(name: "blue", sgr: "38;5;33"),
        Color(name: "purple", sgr: "38;5;129"), Color(name: "magenta", sgr: "38;5;201"),
        Color(name: "pink", sgr: "38;5;211"), Color(name: "brown", sgr: "38;5;130")
    ]

    public static var names: [String] { colors.map(\.name) }

    /// The colour of that name (case-insensitive, surrounding blanks ignored), or nil.
    public static func color(named name: String) -> Color? {
        let key = name.trimmingCharacters(in: .whitespaces).lowercased()
        return colors.first { $0.name == key }
    }

    /// The colour a pack is drawn in: its named colour, else one picked by its id.
    public static func color(for name: String, id: PackID) -> Color {
        color(named: name) ?? colors[Int(id.bytes[0]) % colors.count]
    }

    /// Checks a colour typed by the user: "" (none: picked by id) or a palette name, which
    /// is returned in its canonical (lowercase) spelling.
    public static func validate(_ name: String) throws -> String {
        if name.isEmpty { return "" }
        guard let c = color(named: name) else {
            let shown = name.count > 40 ? String(name.prefix(40)) + "…" : name
            throw ModelError.invalid("unknown colour '\(shown)': choose one of \(names.joined(separator: ", "))")
        }
        return c.name
    }
}
