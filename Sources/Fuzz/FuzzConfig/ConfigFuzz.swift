// libFuzzer target: a config text into the TOML config parser. Built only with
// SKWAD_FUZZ=1 (scripts/fuzz.sh).
import SkwadNode

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? NodeConfig.parse(text, baseDir: "/nonexistent")
    return 0
}
