import Foundation

/// The channels of a perception run in Foxglove's terms (`docs/guides/mcap.md#channels`), shared by the
/// MCAP recording and the live server: one message per frame on each, JSON with a JSON Schema
/// (and on `events`, one more at the end of a run that ended events still on).
public enum FoxgloveTopic: String, CaseIterable, Sendable {
    case image = "/camera/image"
    case calibration = "/camera/calibration"
    case transform = "/tf"
    case scene = "/perception/scene"
    case egoPath = "/ego/path"
    case result = "/perception/result"
    case stats = "/perception/stats"
    /// The safety events that start, stay on or end at the frame (`docs/guides/events.md`).
    case events = "/perception/events"

    /// The message encoding of every channel.
    public static let messageEncoding = "json"
    /// The schema encoding of every channel.
    public static let schemaEncoding = "jsonschema"

    /// The schema's name: Foxglove's own for its types, so that its panels recognise them.
    public var schemaName: String {
        switch self {
        case .image: "foxglove.CompressedImage"
        case .calibration: "foxglove.CameraCalibration"
        case .transform: "foxglove.FrameTransform"
        case .scene: "foxglove.SceneUpdate"
        case .egoPath: "foxglove.PosesInFrame"
        case .result: "periphery.FrameResult"
        case .stats: "periphery.RunStats"
        case .events: "periphery.SafetyEvents"
        }
    }

    /// The JSON Schema document.
    public var schema: Data {
        switch self {
        case .image: FoxgloveSchema.compressedImage.document(named: schemaName)
        case .calibration: FoxgloveSchema.cameraCalibration.document(named: schemaName)
        case .transform: FoxgloveSchema.frameTransform.document(named: schemaName)
        case .scene: FoxgloveSchema.sceneUpdate.document(named: schemaName)
        case .egoPath: FoxgloveSchema.posesInFrame.document(named: schemaName)
        case .result:
            Data(#"{"title":"periphery.FrameResult","type":"object","description":"one line of replay-safety40-v1.jsonl (docs/reference/contract.md)"}"#.utf8)
        case .stats: FoxgloveSchema.runStats.document(named: schemaName)
        case .events: FoxgloveSchema.safetyEvents.document(named: schemaName)
        }
    }
}
