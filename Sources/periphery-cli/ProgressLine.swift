import Dispatch
import Foundation

/// A `frame i/N  r frames/s, ETA s` line on standard error, redrawn in place, only when standard
/// error is a terminal.
final class ProgressLine {
    let total: Int?
    let interactive = isatty(2) != 0
    let start = DispatchTime.now().uptimeNanoseconds
    private var done = 0

    init(total: Int?) { self.total = total }

    /// One more frame done.
    func advance() { update(done + 1) }

    /// `done` frames done.
    func update(_ done: Int) {
        self.done = done
        guard interactive else { return }
        let rate = Double(done) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        let count = total.map { "\(done)/\($0)" } ?? "\(done)"
        let eta = total.map { String(format: ", ETA %.0f s", Double($0 - done) / rate) } ?? ""
        OutputFile.writeStandardError(String(format: "\rframe %@  %.1f frames/s%@   ", count, rate, eta))
    }

    func finish() {
        if interactive { OutputFile.writeStandardError("\n") }
    }
}
