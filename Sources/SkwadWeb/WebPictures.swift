import Foundation
import Hummingbird
import SkwadModel
import SkwadNode
import SkwadREPL

/// Pictures for the page (docs/WEB.md, "Pictures"): `GET /api/v1/picture/ID` serves the
/// picture of a post or ask from the store, whole and shown (as `show` would draw it), with
/// the type sniffed from its bytes; `POST /api/v1/upload/post` and `/api/v1/upload/ask` take
/// the picture file as the body and the command's other arguments as a JSON object in the
/// `args` query parameter, and run the registry's `post` or `ask` with that file as `--image`.
/// Both are under `/api/`, so the guard has checked the token, `Host` and `Origin`.
public struct WebPictures: Sendable {
    /// The largest upload: the file bound `post --image` has (the picture itself must be at
    /// most 1 MiB once its metadata is stripped; the node checks that).
    static let maxUpload = 8 << 20
    static let uploadPrefix = "/api/v1/upload/"
    /// The commands an upload may run.
    static let uploadVerbs: Set<String> = ["post", "ask"]

    let commands: WebCommands

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/api/v1/picture/:id") { _, context -> Response in
            await picture(context.parameters.get("id") ?? "")
        }
        router.post("/api/v1/upload/:verb") { request, context -> Response in
            let verb = context.parameters.get("verb") ?? ""
            guard Self.uploadVerbs.contains(verb) else {
                return WebResponse.error(404, "no upload for '\(WebCommands.clip(verb))' (post or ask)")
            }
            var request = request
            let body: ByteBuffer
            do { body = try await request.collectBody(upTo: Self.maxUpload) } catch {
                return WebResponse.error(413, "the body is larger than \(Self.maxUpload) bytes")
            }
            let args = request.uri.queryParameters.get("args").map { Data($0.utf8) } ?? Data("{}".utf8)
            let (status, json) = await upload(verb, args: args, picture: Array(body.readableBytesView))
            return WebResponse.json(status, json)
        }
    }

    /// The picture of post `hex` (its full id), or a JSON error: 400 for a malformed id, 404
    /// when the post has no picture here that may be shown.
    func picture(_ hex: String) async -> Response {
        guard let id = OpID(hex: hex) else { return WebResponse.error(400, "a picture is asked for by the post's full id (64 hex digits)") }
        guard let bytes = await commands.executor.node.pictureBytesShown(id) else {
            return WebResponse.error(404, "no picture to show for that post (none, hidden, or not all here yet)")
        }
        // The store checked the type at admission; it is sniffed again here, and only the
        // three picture types are ever named (never a type a browser would run).
        guard let type = PictureType.sniff(bytes) else { return WebResponse.error(404, "the stored picture is not a picture") }
        var h = HTTPFields()
        h[.contentType] = Self.mediaType(type)
        h[.contentDisposition] = "inline"
        return Response(status: .ok, headers: h, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// Where uploads wait for their command: inside the node's data directory.
    public static func uploadDirectory(_ dataDir: String) -> String { dataDir + "/web-uploads" }

    static func mediaType(_ t: PictureType) -> String {
        switch t {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        }
    }

    /// Runs `post` or `ask` with `args` (a JSON object of its other parameters) and the
    /// uploaded bytes as its `--image` file: written to a file of the node's private data
    /// directory (`web-uploads/`, 0700) that is removed once the command has read it. `image`
    /// among the arguments is refused (a page names no file on this machine).
    func upload(_ verb: String, args: Data, picture: [UInt8]) async -> (status: Int, json: String) {
        guard !picture.isEmpty else { return (400, Renderer.error("the body must be the picture file").render()) }
        var arguments: [String: ArgValue]
        do { arguments = try JSONDecoder().decode([String: ArgValue].self, from: args) } catch {
            return (400, Renderer.error("args must be a JSON object of \(verb)'s arguments").render())
        }
        guard arguments["image"] == nil else {
            return (400, Renderer.error("the picture is the body; args has no image").render())
        }
        let dir = Self.uploadDirectory(await commands.executor.node.config.dataDir)
        let file = dir + "/" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: file) }
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            guard FileManager.default.createFile(atPath: file, contents: Data(picture), attributes: [.posixPermissions: 0o600])
            else { throw WebError("cannot write the upload") }
        } catch {
            return (500, Renderer.error("cannot keep the upload for the command").render())
        }
        arguments["image"] = .string(file)
        return await commands.run(verb) { try Registry.command(named: verb, arguments: arguments) }
    }
}
