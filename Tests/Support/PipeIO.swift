import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads and writes pipes to children, retrying what a signal interrupted.
///
/// Foundation's `FileHandle.availableData` and `readDataToEndOfFile()` trap on any `read` error,
/// EINTR included; a signal landing on a reading thread (a child exiting, a test's own `kill`)
/// then crashed the whole test process. These are the only pipe reads the tests make.
public enum PipeIO {
    /// The next chunk, or empty at end of file.
    public static func readSome(_ handle: FileHandle, max: Int = 65536) -> Data {
        var buffer = [UInt8](repeating: 0, count: max)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(handle.fileDescriptor, $0.baseAddress, max) }
            if n >= 0 { return Data(buffer[0..<n]) }
            if errno == EINTR || errno == EAGAIN { continue }
            return Data()  // EBADF and the like: treat as the end, the caller sees what came so far
        }
    }

    /// Everything up to end of file.
    public static func readAll(_ handle: FileHandle) -> Data {
        var all = Data()
        while true {
            let chunk = readSome(handle)
            if chunk.isEmpty { return all }
            all.append(chunk)
        }
    }

    /// Writes all of `data`; false if the reader went away.
    @discardableResult
    public static func write(_ data: Data, to handle: FileHandle) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(handle.fileDescriptor, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n; continue }
                if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                return false
            }
            return true
        }
    }
}
