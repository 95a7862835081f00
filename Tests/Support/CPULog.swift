import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// With GPICK_TEST_CPU_LOG=FILE, each child the tests start appends a line to FILE when it is
/// reaped: its CPU seconds (user and system, its own reaped children included), the test that
/// started it and its command. The suite is CPU-bound on 2 cores, so this is where its time goes:
/// `sort -rn FILE | head`, or summed by test.
enum CPULog {
    static let file: FileHandle? = ProcessInfo.processInfo.environment["GPICK_TEST_CPU_LOG"].flatMap { path in
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return FileHandle(forWritingAtPath: path)
    }
    private static let lock = NSLock()

    static func child(_ usage: rusage, test: String?, command: [String]) {
        guard let file else { return }
        let seconds = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        let words = command.prefix(4).map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        let line = String(format: "%.3f\t%@\t%@\n", seconds, test ?? "-", words.joined(separator: " "))
        lock.withLock { file.write(Data(line.utf8)) }
    }
}
