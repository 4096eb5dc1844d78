// swift-tools-version: 6.1
// Skwad — a peer-to-peer node for local anonymous chat rooms.
// Layout and dependency direction: docs/ARCHITECTURE.md (after ../shared/DESIGN.md §1).
import PackageDescription

let package = Package(
    name: "Skwad",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "skwad", targets: ["skwad"]),
        .executable(name: "skwad-lab", targets: ["skwad-lab"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", exact: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", exact: "1.8.0")
    ],
    targets: [
        // C shims for system libraries (Debian: libsodium-dev, libedit-dev; CPicture below).
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CEdit", pkgConfig: "libedit", providers: [.apt(["libedit-dev"])]),
        // Picture decoders for thumbnails (Debian: libpng-dev, libturbojpeg0-dev, libwebp-dev).
        .systemLibrary(name: "CPicture", providers: [.apt(["libpng-dev", "libturbojpeg0-dev", "libwebp-dev"])]),
        // QR codes of contact codes (Debian: libqrencode-dev).
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),

        // Pure core: no I/O, no clock.
        .target(name: "SkwadCrypto", dependencies: ["CSodium"]),
        .target(
            name: "SkwadModel",
            dependencies: [
                "SkwadCrypto",
                .product(name: "SwiftProtobuf", package: "swift-protobuf")
            ]),
        .target(name: "SkwadReplica", dependencies: ["SkwadModel"]),
        .target(
            name: "SkwadGossip",
            dependencies: [
                "SkwadReplica",
                .product(name: "SwiftProtobuf", package: "swift-protobuf")
            ]),

        // Shells and tools.
        .target(
            name: "SkwadStore",
            dependencies: [
                "SkwadReplica",
                .product(name: "GRDB", package: "GRDB.swift")
            ]),
        .target(
            name: "SkwadNode",
            dependencies: [
                "SkwadGossip", "SkwadStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ]),
        // What the simulator, the benchmarks and the tests share: a second implementation of
        // the wire that sends anything (HostilePeer, WireForge), the in-memory network of engines
        // and its link models, the directive carrier, the one virtual-time queue, the in-memory
        // datagram transport for whole nodes, a loopback sprayer. No NIO, no store.
        .target(
            name: "SkwadLab",
            dependencies: [
                "SkwadReplica", "SkwadGossip"
            ]),
        .target(
            name: "SkwadSim",
            dependencies: [
                "SkwadGossip", "SkwadReplica", "SkwadLab",
                .product(name: "TOMLKit", package: "TOMLKit")
            ]),
        .target(name: "SkwadREPL", dependencies: ["SkwadNode", "CEdit", "CPicture", "CQREncode"]),
        // The local web page: an HTTP API over the REPL's command registry, the node's live lines
        // over a WebSocket, and the page (HTML, CSS, JavaScript) compiled into the binary.
        .target(
            name: "SkwadWeb",
            dependencies: [
                "SkwadREPL", "SkwadNode", "SkwadCrypto",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ]),
        // A headless browser driven over W3C WebDriver (a chromedriver process on loopback) and
        // raw HTTP over loopback sockets: for the tests and `skwad bench web`, never for `skwad`.
        .target(name: "SkwadBrowser"),
        // Test fixtures only (op factory, manual clock, timeouts, a wire peer on a loopback
        // socket); re-exports SkwadLab and SkwadBrowser. Never linked by the `skwad` product.
        .target(name: "SkwadTestKit", dependencies: ["SkwadReplica", "SkwadGossip", "SkwadLab", "SkwadBrowser"]),
        // The `.heavy` test trait: tests that compute for seconds run on low-priority threads
        // of their own, so that one `swift test` process also runs the tests on wall-clock time.
        .target(name: "SkwadTestTraits"),
        // The benchmarks `skwad bench` runs (in-process nodes, a sprayed node, child processes).
        .target(
            name: "SkwadBench",
            dependencies: [
                "SkwadNode", "SkwadStore", "SkwadReplica", "SkwadModel", "SkwadCrypto", "SkwadLab", "SkwadBrowser",
                .product(name: "NIOPosix", package: "swift-nio")
            ]),
        // The node's command line: parses options and calls the node, the REPL and the web page.
        // `skwad simulate` and `skwad bench` run `skwad-lab` from beside it: the node binary
        // links no lab (no hostile peer, wire forger, simulator or benchmark).
        .executableTarget(
            name: "skwad",
            dependencies: [
                "SkwadREPL", "SkwadWeb", "SkwadNode", "SkwadModel", "SkwadCrypto",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ]),
        // The lab's command line: the simulator and the benchmarks.
        .executableTarget(
            name: "skwad-lab",
            dependencies: [
                "SkwadSim", "SkwadBench",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]),

        .testTarget(name: "SkwadCryptoTests", dependencies: ["SkwadCrypto"]),
        .testTarget(name: "SkwadModelTests", dependencies: ["SkwadModel", "SkwadTestKit"]),
        .testTarget(name: "SkwadReplicaTests", dependencies: ["SkwadReplica", "SkwadTestKit", "SkwadTestTraits"]),
        .testTarget(
            name: "SkwadStoreTests",
            dependencies: [
                "SkwadStore", "SkwadTestKit", "SkwadTestTraits",
                .product(name: "GRDB", package: "GRDB.swift")
            ]),
        .testTarget(name: "SkwadGossipTests", dependencies: ["SkwadGossip", "SkwadTestKit", "SkwadTestTraits"]),
        .testTarget(
            name: "SkwadNodeTests",
            dependencies: [
                "SkwadNode", "SkwadStore", "SkwadTestKit",
                .product(name: "GRDB", package: "GRDB.swift")
            ]),
        .testTarget(name: "SkwadSimTests", dependencies: ["SkwadSim", "SkwadTestKit", "SkwadTestTraits"]),
        .testTarget(name: "SkwadREPLTests", dependencies: ["SkwadREPL", "SkwadTestKit"]),
        .testTarget(
            name: "SkwadWebTests",
            dependencies: [
                "SkwadWeb", "SkwadREPL", "SkwadNode", "SkwadTestKit",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio")
            ]),
        .testTarget(name: "skwadTests", dependencies: ["SkwadTestKit", "SkwadStore"])
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (scripts/fuzz.sh sets SKWAD_FUZZ=1): executables without `main` (libFuzzer
// brings it), so they exist only in fuzz builds and never in `swift build`.
if Context.environment["SKWAD_FUZZ"] == "1" {
    package.targets += [
        .executableTarget(
            name: "FuzzDatagram", dependencies: ["SkwadGossip", "SkwadReplica", "SkwadTestKit"], path: "Sources/Fuzz/FuzzDatagram"),
        .executableTarget(
            name: "FuzzAdmission", dependencies: ["SkwadReplica", "SkwadModel", "SkwadTestKit"], path: "Sources/Fuzz/FuzzAdmission"),
        .executableTarget(name: "FuzzREPL", dependencies: ["SkwadREPL", "SkwadNode"], path: "Sources/Fuzz/FuzzREPL"),
        .executableTarget(name: "FuzzConfig", dependencies: ["SkwadNode"], path: "Sources/Fuzz/FuzzConfig")
    ]
}
