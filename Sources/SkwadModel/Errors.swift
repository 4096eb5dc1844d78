/// Errors from decoding or building ops.
public struct ModelError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Code: String, Sendable { case malformed, tooLarge, invalid }
    public let code: Code
    public let reason: String

    public static func malformed(_ r: String) -> ModelError { ModelError(code: .malformed, reason: r) }
    public static func tooLarge(_ r: String) -> ModelError { ModelError(code: .tooLarge, reason: r) }
    public static func invalid(_ r: String) -> ModelError { ModelError(code: .invalid, reason: r) }

    public var description: String { reason }
}
