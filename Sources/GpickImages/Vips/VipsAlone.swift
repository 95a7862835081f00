import CVipsGate
import GpickBase

extension Vips {
    /// Runs `unit`, a piece of libvips work that can be done again (it opens what it reads), so
    /// that a failure is worded from that failure's own words. libvips keeps one error buffer for
    /// the whole process: while other threads decode, a failing file's lines can be taken by
    /// another thread's failure, or mixed with them ("it could not be decoded" for a JPEG cut in
    /// half). So a unit that failed with libvips' words is done once more with the gate in front
    /// of libvips closed to every other thread (see CVipsGate), and that second answer is the
    /// one returned. Failures are rare and a failed decode usually stops early, so the second
    /// run costs little; other threads wait for it between two libvips calls.
    static func attributed<T>(_ unit: () throws(GpickError) -> T) throws(GpickError) -> T {
        let outermost = cvips_gate_begin_unit() == 0
        defer { cvips_gate_end_unit() }
        if !outermost || cvips_gate_alone() != 0 { return try unit() }
        let before = cvips_gate_failures()
        do {
            return try unit()
        } catch {
            guard cvips_gate_failures() != before else { throw error }
            cvips_gate_close()
            defer { cvips_gate_open() }
            // Lines other threads' failures left: their own units take them again alone.
            takeErrorText()
            return try unit()
        }
    }

    /// True while this thread does libvips work alone: what bounds memory (`DecodeBudget`) lets
    /// it through, since the threads that hold the budget are waiting for it.
    static var isAlone: Bool { cvips_gate_alone() != 0 }
}
