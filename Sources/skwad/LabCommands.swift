import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `skwad simulate …` and `skwad bench …` run the lab's executable, `skwad-lab`, from the
/// directory of this binary, with the same arguments: the node binary links no simulator,
/// benchmark, hostile peer or wire forger (docs/ARCHITECTURE.md).
enum Lab {
    static let verbs: Set<String> = ["simulate", "bench"]

    /// `skwad-lab` beside this executable.
    static var path: String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("skwad-lab").path
    }

    /// Replaces this process with `skwad-lab ARGS`; returns only to print why it could not.
    static func exec(_ args: [String]) -> Never {
        let lab = path
        guard FileManager.default.isExecutableFile(atPath: lab) else {
            FileHandle.standardError.write(
                Data(
                    ("skwad: `skwad \(args.first ?? "bench")` runs skwad-lab, which is not built beside this binary "
                        + "(build it with `swift build -c release --static-swift-stdlib --product skwad-lab`; "
                        + "`scripts/run.sh \(args.first ?? "bench") …` does)\n").utf8))
            exit(2)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([lab] + args).map { strdup($0) } + [nil]
        execv(lab, argv)
        FileHandle.standardError.write(Data("skwad: cannot run \(lab): \(String(cString: strerror(errno)))\n".utf8))
        exit(2)
    }
}

/// Listed in `skwad --help`; `Skwad.main` hands these verbs to `skwad-lab` before parsing.
struct SimulateVerb: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run a deterministic simulation scenario (simulations/*.toml) and print its JSON summary (runs skwad-lab).")
    @Argument(parsing: .captureForPassthrough) var rest: [String] = []
    func run() throws { Lab.exec(["simulate"] + rest) }
}

struct BenchVerb: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Benchmarks; each prints one JSON object (runs skwad-lab).")
    @Argument(parsing: .captureForPassthrough) var rest: [String] = []
    func run() throws { Lab.exec(["bench"] + rest) }
}
