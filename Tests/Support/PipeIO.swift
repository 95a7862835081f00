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
    /// A pipe for a child's stdin, stdout or stderr, both ends close-on-exec from the start (the
    /// child gets its end by dup2, which clears the flag there). Without it, any other child
    /// started meanwhile by another thread inherits both ends; a long-lived one (weston, a test
    /// HTTP server) holding a write end keeps its reader from ever seeing the end. Seen as a
    /// whole test run hanging: a fixture waiting for ffmpeg's stderr to end, which weston held.
    public static func pipe() -> Pipe {
        let p = Pipe()
        for fd in [p.fileHandleForReading.fileDescriptor, p.fileHandleForWriting.fileDescriptor] {
            _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
        }
        return p
    }

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
