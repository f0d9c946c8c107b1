import Dispatch
import Foundation

/// A `frame i/N  r frames/s, ETA s` line on standard error, redrawn in place, when standard error
/// is a terminal or when asked (`--progress`), and only once a run has taken two seconds.
final class ProgressLine {
    let total: Int?
    let interactive: Bool
    let start = DispatchTime.now().uptimeNanoseconds
    private var done = 0
    private var shown = false

    init(total: Int?, forced: Bool = false) {
        self.total = total
        interactive = forced || isatty(2) != 0
    }

    /// One more frame done.
    func advance() { update(done + 1) }

    /// `done` frames done.
    func update(_ done: Int) {
        self.done = done
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard interactive, elapsed > 2 else { return }
        shown = true
        let rate = Double(done) / elapsed
        let count = total.map { "\(done)/\($0)" } ?? "\(done)"
        let eta = total.map { String(format: ", ETA %.0f s", Double(max(0, $0 - done)) / rate) } ?? ""
        OutputFile.writeStandardError(String(format: "\rframe %@  %.1f frames/s%@   ", count, rate, eta))
    }

    func finish() {
        if shown { OutputFile.writeStandardError("\n") }
    }
}
