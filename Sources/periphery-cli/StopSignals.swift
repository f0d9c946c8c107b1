import Dispatch
import Foundation
import Periphery

/// SIGINT and SIGTERM as a stop request: the first ends the run after the frame in flight, with
/// every output finished; a second SIGINT exits at once, for a run that does not stop.
enum StopSignals {
    /// Routes both signals to `stop` for the rest of the process.
    static func install(_ stop: StopRequest) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if stop.isRequested && number == SIGINT {
                    OutputFile.writeStandardError("\nsecond interrupt: exiting without finishing the outputs\n")
                    _exit(130)
                }
                OutputFile.writeStandardError("\nstopping after the frame in flight (interrupt again to exit at once)\n")
                stop.request(.stopped)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The installed sources, kept alive for the process's lifetime.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
}
