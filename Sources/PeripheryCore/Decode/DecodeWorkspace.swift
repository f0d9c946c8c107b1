/// Reusable scratch for decoding: kept between calls, so that a warm decode allocates nothing.
///
/// Not shared between threads: one per decoding thread, like the detector that owns it.
package struct DecodeWorkspace: Sendable {
    /// Candidates that passed the threshold, region and filters, in candidate order.
    var candidates: [Detection] = []
    /// NMS ranking of `candidates`.
    var order: [Int] = []
    /// NMS flags, by index into `candidates`.
    var suppressed: [Bool] = []

    /// An empty workspace; its buffers grow to the largest frame decoded with it.
    package init() {}
}
