import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension LineReader {
    /// One key without Enter (swipe mode on a terminal): the terminal leaves canonical mode
    /// and echo for one read, then is restored; the key is echoed with a newline. Not a
    /// terminal: the next line, as `next`. nil at end of input; Ctrl-D is `q`.
    public func nextKey(prompt: String) -> String? {
        guard interactive else { return readLine(strippingNewline: true) }
        FileHandle.standardOutput.write(Data(prompt.utf8))
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return next(prompt: "", history: false) }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1; cc[Int(VTIME)] = 0
        }
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        defer { _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        var byte: UInt8 = 0
        guard read(STDIN_FILENO, &byte, 1) == 1 else { return nil }
        let key = byte == 4 ? "q" : (byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "")
        FileHandle.standardOutput.write(Data("\(key)\n".utf8))
        return key
    }
}
