import Foundation
import HTTPTypes
import Hummingbird
import SkwadCrypto

/// What every request must pass, and the headers every response carries (SECURITY.md, "Local
/// web page"): the `Host` header names the bound address (421), an `Origin` if sent is the
/// page's own (403), the token for the API (401), bodies bounded (413).
struct WebGuard<Context: RequestContext>: RouterMiddleware {
    let token: [UInt8]
    let hosts: WebHosts

    static var securityHeaders: HTTPFields {
        var h = HTTPFields()
        h[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        h[.xContentTypeOptions] = "nosniff"
        h[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        h[HTTPField.Name("X-Frame-Options")!] = "DENY"
        h[HTTPField.Name("Cross-Origin-Opener-Policy")!] = "same-origin"
        h[HTTPField.Name("Cross-Origin-Resource-Policy")!] = "same-origin"
        return h
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = await checked(request, context: context, next: next)
        for field in Self.securityHeaders { response.headers[field.name] = field.value }
        if request.uri.path.hasPrefix("/api/") { response.headers[.cacheControl] = "no-store" }
        return response
    }

    private func checked(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async -> Response {
        let host = request.head.authority  // HTTP/1.1's Host header
        guard let host, hosts.allows(host) else {
            return WebResponse.error(421, "this page answers only at its own address")
        }
        if let origin = request.headers[.origin], origin != "http://\(host)" {
            return WebResponse.error(403, "requests from another origin are refused")
        }
        if request.uri.path.hasPrefix("/api/") {
            guard let given = Self.token(in: request), constantTimeEqual(Array(given.utf8), token) else {
                return WebResponse.error(401, "a valid token is required (Authorization: Bearer TOKEN)")
            }
        }
        let limit = WebServer.bodyLimit(path: request.uri.path)
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            return WebResponse.error(413, "the body is larger than \(limit) bytes")
        }
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            return WebResponse.error(Int(error.status.code), error.status.reasonPhrase)
        } catch {
            return WebResponse.error(500, "internal error")
        }
    }

    /// The token as sent: `Authorization: Bearer T`, `X-Skwad-Token: T`, or (the one header
    /// a browser's WebSocket can set) a `Sec-WebSocket-Protocol` entry `skwad.token.T`.
    static func token(in request: Request) -> String? {
        if let auth = request.headers[.authorization], auth.lowercased().hasPrefix("bearer ") {
            return String(auth.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        if let t = request.headers[HTTPField.Name("X-Skwad-Token")!] { return t }
        if let protocols = request.headers[.secWebSocketProtocol] {
            for p in protocols.split(separator: ",") {
                let p = p.trimmingCharacters(in: .whitespaces)
                if p.hasPrefix(WebServer.tokenProtocolPrefix) { return String(p.dropFirst(WebServer.tokenProtocolPrefix.count)) }
            }
        }
        return nil
    }
}

/// The `Host` values a request may carry: the bound address and port; on loopback also
/// `localhost`; on a wildcard bind any IP literal (a DNS rebinding attack needs a name).
final class WebHosts: @unchecked Sendable {
    private let lock = NSLock()
    private var port: Int?
    let bound: String

    init(bound: String) { self.bound = bound }

    func setPort(_ p: Int) { lock.withLock { port = p } }

    func allows(_ hostHeader: String) -> Bool {
        guard let port = lock.withLock({ port }) else { return false }
        let h = hostHeader.lowercased()
        guard h.hasSuffix(":\(port)") else { return false }
        let name = String(h.dropLast(":\(port)".count))
        if name == bound { return true }
        if WebServer.isLoopback(bound) { return name == "localhost" || name == "127.0.0.1" }
        if bound == "0.0.0.0" { return Self.isIPv4Literal(name) }
        return false
    }

    static func isIPv4Literal(_ s: String) -> Bool {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { p in !p.isEmpty && p.count <= 3 && p.allSatisfy(\.isASCII) && UInt8(p) != nil }
    }
}

enum WebResponse {
    static func json(_ status: Int, _ text: String) -> Response {
        var h = HTTPFields()
        h[.contentType] = "application/json; charset=utf-8"
        return Response(status: .init(code: status), headers: h, body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    static func error(_ status: Int, _ message: String) -> Response {
        json(status, "{\"ok\":false,\"error\":\(jsonString(message))}")
    }

    static func jsonString(_ s: String) -> String {
        (try? String(decoding: JSONEncoder().encode(s), as: UTF8.self)) ?? "\"\""
    }
}
