import GRDB

/// A storage failure, with a one-line reason. Committed data is never lost by one: SQLite
/// rolls the failed transaction back and everything committed before stays.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ what: String, _ error: Error) {
        if let e = error as? DatabaseError {
            switch e.resultCode {
            case .SQLITE_FULL: description = "\(what): disk full (nothing committed before was lost)"
            case .SQLITE_IOERR: description = "\(what): I/O error (\(Self.oneLine(e.message ?? "disk")))"
            case .SQLITE_READONLY: description = "\(what): database is read-only"
            case .SQLITE_CANTOPEN: description = "\(what): cannot open the database file"
            case .SQLITE_CORRUPT, .SQLITE_NOTADB: description = "\(what): database file is corrupt or not a Skwad store"
            default: description = "\(what): \(Self.oneLine(e.message ?? "\(e.resultCode)"))"
            }
        } else {
            description = "\(what): \(Self.oneLine("\(error)"))"
        }
    }

    static func oneLine(_ s: String) -> String {
        s.split(whereSeparator: \.isNewline).first.map(String.init) ?? s
    }
}
