import Foundation
import Periphery

/// `periphery decode`: decodes stored head tensors into detections.
enum DecodeCommand: Command {
    static let name = "decode"
    static let summary = "Decode head tensors (safetensors) into vehicle-frame detections as JSON."
    static let help = """
        USAGE: periphery decode --head H.safetensors [--threshold T] [--nms-radius R] [--reject-implausible]

        Reads float tensors `classes` [6720,4], `boxes` [6720,9] and `directions` [6720,2] and prints a
        JSON array of detections {score, label, class, x, y, z, length, width, height, yaw} in
        descending score (vehicle frame: x forward, y left, z up, metres; yaw radians in [-pi, pi)).

        OPTIONS:
          --head H.safetensors   head tensors (F32, F16 or BF16)
          --threshold T          score threshold in [0, 1] (default 0.50)
          --nms-radius R         circular NMS radius in metres (default 2.0)
          --reject-implausible   drop boxes whose size is implausible for their class
          --help                 show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments, options: ["head", "threshold", "nms-radius"], flags: ["reject-implausible"])
        try args.expectNoPositional()
        let settings = DecodeSettings(
            scoreThreshold: Float(try args.number("threshold", default: 0.5, in: 0...1)),
            nmsRadius: try args.number("nms-radius", default: 2.0, in: 0...1000),
            rejectImplausible: args.flag("reject-implausible"))
        let path = try args.required("head")
        let file = try SafetensorsFile(path: path)
        let head: HeadOutputs
        do {
            head = try file.headOutputs()
        } catch {
            throw SafetensorsError.inFile(path: path, error)
        }
        let detections = DetectionDecoder.decode(head, settings: settings)
        print(try JSONOutput.array(detections.map(DetectionRecord.init)))
        return 0
    }
}
