import Foundation

/// A benchmark that could not finish reports it as its one JSON object instead of exiting
/// with an error: `{"bench":NAME,"converged":false,"reason":"..."}` plus what it measured.
enum BenchFailure {
    static func json(bench: String, reason: String, extra: [String: Any] = [:]) -> String {
        var o = extra
        o["bench"] = bench; o["converged"] = false; o["reason"] = reason
        guard let d = try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]) else {
            return #"{"bench":"\#(bench)","converged":false,"reason":"unencodable"}"#
        }
        return String(decoding: d, as: UTF8.self)
    }
}
