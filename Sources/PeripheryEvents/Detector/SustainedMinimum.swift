/// The smallest value a lead's figure held for a number of consecutive frames: the minimum over
/// every run of `frames` frames of the largest value in the run.
///
/// A run restarts when the lead changes or a frame has no value, so one noisy frame cannot set it.
struct SustainedMinimum: Sendable, Hashable {
    let frames: Int
    private var track: Int?
    private var recent: [Double] = []
    private(set) var minimum: Double?

    init(frames: Int) {
        self.frames = frames
    }

    mutating func add(track: Int, value: Double) {
        if track != self.track {
            recent.removeAll()
            self.track = track
        }
        recent.append(value)
        if recent.count > frames { recent.removeFirst() }
        if recent.count == frames, let held = recent.max() {
            minimum = min(minimum ?? held, held)
        }
    }

    mutating func interrupt() {
        recent.removeAll()
        track = nil
    }
}
