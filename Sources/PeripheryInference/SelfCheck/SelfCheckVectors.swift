import Foundation
import PeripheryCore
import PeripheryGeometry

/// The reference's self-check golden data: manifest, voxel points, anchors, head tensors and LUT.
///
/// A copy ships inside the library (`Resources/Conformance`), so every clone can run the
/// self-check; another directory with the same four files can be given instead.
package struct SelfCheckVectors: Sendable {
    /// One golden detection of the manifest.
    package struct ExpectedDetection: Sendable, Decodable, Hashable {
        package var score: Double
        package var label: Int
        package var box: VehicleBox

        enum CodingKeys: String, CodingKey { case score, label }

        /// Decodes the manifest's flat form: score and label beside the box's seven fields.
        package init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            score = try c.decode(Double.self, forKey: .score)
            label = try c.decode(Int.self, forKey: .label)
            box = try VehicleBox(from: decoder)
        }
    }

    /// The camera the goldens were computed for.
    package var setup: CameraSetup
    /// The trained focal the manifest states.
    package var trainedFocal: Double
    /// Expected crop `(x, y, width, height)`.
    package var crop: [Int]
    /// Expected 3×4 projection, row-major.
    package var projection: [[Double]]
    /// Expected number of visible voxels.
    package var visibleVoxels: Int
    /// Decode operating point of the goldens.
    package var decodeSettings: DecodeSettings
    /// Expected detections in descending score.
    package var detections: [ExpectedDetection]
    /// Golden voxel points, float32 [6560 × 3].
    package var points: [Float]
    /// Golden anchors, float32 [6720 × 7].
    package var anchors: [Float]
    /// Golden head tensors.
    package var head: HeadOutputs
    /// Golden LUT.
    package var lut: ProjectionLUT

    /// File names inside a vectors directory.
    static let fileNames = [
        "selfcheck.json", "selfcheck_grid.safetensors", "selfcheck_head.safetensors", "selfcheck_lut.bin",
    ]

    /// Loads the four files from `directory`.
    ///
    /// - Throws: `SelfCheckError` naming the file and the problem.
    package init(directory: String) throws(SelfCheckError) {
        let url = URL(fileURLWithPath: directory)
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        let manifest: Manifest
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path("selfcheck.json")))
            manifest = try JSONDecoder().decode(Manifest.self, from: data)
        } catch {
            throw .invalidVectors(file: path("selfcheck.json"), reason: String(describing: error))
        }
        do {
            let k = manifest.calibration
            guard let matrix = Matrix3(rowMajor: k.K), k.frame_size.count == 2 else {
                throw CalibrationError.wrongType(field: "calibration.K", expected: "3×3 with frame_size [w, h]")
            }
            let intrinsics = try CameraIntrinsics(K: matrix, width: k.frame_size[0], height: k.frame_size[1])
            let pose = MountPose(
                pitchDegrees: k.pitch_deg, height: k.camera_height_m, forwardOfOrigin: k.camera_forward_of_origin_m)
            setup = CameraSetup(intrinsics: intrinsics, pose: pose)
        } catch {
            throw .invalidVectors(file: path("selfcheck.json"), reason: String(describing: error))
        }
        trainedFocal = manifest.calibration.trained_focal_px
        crop = [manifest.crop.x, manifest.crop.y, manifest.crop.width, manifest.crop.height]
        projection = manifest.projection
        visibleVoxels = manifest.counts.visible_voxels
        decodeSettings = DecodeSettings(
            scoreThreshold: Float(manifest.decode.threshold), nmsRadius: manifest.decode.nms_radius)
        detections = manifest.detections
        do {
            let grid = try SafetensorsFile(path: path("selfcheck_grid.safetensors"))
            points = try grid.floats("points")
            anchors = try grid.floats("anchors")
            head = try SafetensorsFile(path: path("selfcheck_head.safetensors")).headOutputs()
        } catch {
            throw .invalidVectors(file: directory, reason: error.description)
        }
        guard points.count == 3 * Safety40.voxelCount, anchors.count == 7 * Safety40.candidateCount else {
            throw .invalidVectors(file: path("selfcheck_grid.safetensors"), reason: "points or anchors have the wrong size")
        }
        do {
            lut = try ProjectionLUT(serialized: try Data(contentsOf: URL(fileURLWithPath: path("selfcheck_lut.bin"))))
        } catch {
            throw .invalidVectors(file: path("selfcheck_lut.bin"), reason: String(describing: error))
        }
    }

    /// The copy bundled with the library, found next to the running executable (installed or
    /// built) or, in a source checkout, beside this file.
    static func bundledDirectory() -> String? {
        let fm = FileManager.default
        var candidates: [String] = []
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() {
            candidates.append(executable.appendingPathComponent("Periphery_PeripheryInference.resources/Conformance").path)
        }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(source.appendingPathComponent("Resources/Conformance").path)
        return candidates.first { dir in fileNames.allSatisfy { fm.fileExists(atPath: "\(dir)/\($0)") } }
    }

    /// Loads the bundled copy.
    package static func bundled() throws(SelfCheckError) -> SelfCheckVectors {
        guard let directory = bundledDirectory() else { throw .vectorsNotFound }
        return try SelfCheckVectors(directory: directory)
    }

    /// The manifest's JSON layout (reference, `docs/reference/contract.md#112-the-manifest`).
    private struct Manifest: Decodable {
        // swift-format-ignore: AlwaysUseLowerCamelCase
        // The manifest's own key names.
        struct Calibration: Decodable {
            var pitch_deg: Double
            var camera_height_m: Double
            var camera_forward_of_origin_m: Double
            var frame_size: [Int]
            var K: [[Double]]
            var trained_focal_px: Double
        }
        struct Crop: Decodable { var x, y, width, height: Int }
        // swift-format-ignore: AlwaysUseLowerCamelCase
        struct Counts: Decodable { var visible_voxels: Int }
        // swift-format-ignore: AlwaysUseLowerCamelCase
        struct Decode: Decodable {
            var threshold: Double
            var nms_radius: Double
        }
        var calibration: Calibration
        var crop: Crop
        var projection: [[Double]]
        var counts: Counts
        var decode: Decode
        var detections: [ExpectedDetection]
    }
}

/// Why the self-check cannot run.
package enum SelfCheckError: Error, CustomStringConvertible {
    /// No bundled vectors were found.
    case vectorsNotFound
    /// A vectors file is missing or malformed.
    case invalidVectors(file: String, reason: String)

    package var description: String {
        switch self {
        case .vectorsNotFound: "conformance vectors not found next to the executable or in the source tree; pass --vectors DIR"
        case .invalidVectors(let file, let reason): "\(file): \(reason)"
        }
    }
}
