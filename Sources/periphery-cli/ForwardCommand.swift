import Foundation
import Periphery

/// `periphery forward`: one pass of the network with every intermediate tensor dumped.
enum ForwardCommand: Command {
    static let name = "forward"
    static let summary = "Run the network once and dump image, features, volume and head tensors."
    static let help = """
        USAGE: periphery forward --weights W --input T.safetensors --calibration C.json --dump OUT.safetensors

        Runs the network on a normalised image and writes float32 `image` [1,3,256,512], `features`
        [1,64,64,128], `volume` [1,64,41,80,2], `classes` [6720,4], `boxes` [6720,9] and
        `directions` [6720,2] to OUT (atomically). The input is a safetensors file holding `image`
        [1,3,256,512] (or [3,256,512]), used as is; PNG/JPEG input comes with image decoding.
        The calibration gives the ProjectionLUT of the gather.

        OPTIONS:
          --weights W          weights file (default: Weights/safety40-synthetic.safetensors)
          --input T            input tensor file
          --calibration C      calibration file (see docs/reference/geometry.md)
          --dump OUT           output file
          --threads T          worker threads (default: all cores)
        \(Defaults.precisionHelp)
          --help               show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: ["weights", "input", "calibration", "dump", "threads", "precision", "int8-kernel"], flags: [])
        try args.expectNoPositional()
        let inputPath = try args.required("input"), dump = try args.required("dump")
        let calibration = CameraCalibration(try CalibrationFile.load(path: try args.required("calibration")))
        warnIfFocalMismatched(calibration)
        guard inputPath.lowercased().hasSuffix(".safetensors") else {
            throw CLIError("\(inputPath): only safetensors input is supported until PNG/JPEG decoding lands")
        }
        let input = try SafetensorsFile(path: inputPath)
        let shape = input.tensors["image"]?.shape
        guard shape == [1, 3, Safety40.inputHeight, Safety40.inputWidth] || shape == [3, Safety40.inputHeight, Safety40.inputWidth] else {
            throw SafetensorsError.inFile(
                path: inputPath,
                shape.map {
                    .wrongShape(tensor: "image", expected: "[1, 3, 256, 512]", actual: $0)
                } ?? .missingTensor("image"))
        }
        let image = try input.floats("image")
        let detector = try Detector(
            weights: try Defaults.loadWeights(try Defaults.weightsPath(args)), threads: try Defaults.threads(args),
            precision: try Defaults.precision(args), int8Kernel: try Defaults.int8Kernel(args))
        _ = try detector.detect(image: image, lut: ProjectionLUT(calibration: calibration))
        var writer = SafetensorsWriter()
        writer.metadata = ["generator": "periphery forward", "input": inputPath]
        writer.add("image", shape: [1, 3, Safety40.inputHeight, Safety40.inputWidth], values: image)
        writer.add("features", shape: [1, 64, Safety40.featureHeight, Safety40.featureWidth], values: detector.features)
        writer.add("volume", shape: [1, 64, Safety40.voxelCountX, Safety40.voxelCountY, Safety40.voxelCountZ], values: detector.volume)
        let head = detector.headOutputs
        writer.add("classes", shape: [Safety40.candidateCount, Safety40.classChannels], values: head.classes)
        writer.add("boxes", shape: [Safety40.candidateCount, Safety40.boxCodeChannels], values: head.boxes)
        writer.add("directions", shape: [Safety40.candidateCount, Safety40.directionChannels], values: head.directions)
        do {
            try writer.write(to: dump)
        } catch {
            throw CLIError("\(dump): cannot write (\(error.localizedDescription))")
        }
        print("wrote \(dump)")
        return 0
    }
}
