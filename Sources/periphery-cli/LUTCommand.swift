import Foundation
import Periphery

/// `periphery lut`: builds the ProjectionLUT of a calibration file.
enum LUTCommand: Command {
    static let name = "lut"
    static let summary = "Build the ProjectionLUT of a calibration and write it in the conformance layout."
    static let help = """
        USAGE: periphery lut --calibration C.json --out LUT.bin

        Builds the 6560-voxel ProjectionLUT for the camera and mount in C.json and writes 6560
        little-endian int32 feature indices followed by 6560 uint8 visibility flags (32,800 bytes).
        Prints the visible fraction (a sane windshield mount gives 0.5–0.7).

        OPTIONS:
          --calibration C.json   calibration file (see docs/reference/geometry.md)
          --out LUT.bin          output path (written atomically)
          --help                 show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: ["calibration", "out"], flags: [])
        try args.expectNoPositional()
        let calibrationPath = try args.required("calibration"), out = try args.required("out")
        let calibration = CameraCalibration(try CalibrationFile.load(path: calibrationPath))
        warnIfFocalMismatched(calibration)
        let lut = ProjectionLUT(calibration: calibration)
        try OutputFile.write(Data(lut.serialized), to: out)
        print("visible fraction \(String(format: "%.6f", lut.visibleFraction)) (\(lut.visibleCount)/\(lut.count) voxels) -> \(out)")
        return 0
    }
}

/// Warns on stderr when the crop cannot reach the trained focal, with the factor every range is off by.
func warnIfFocalMismatched(_ calibration: CameraCalibration) {
    let crop = calibration.crop
    guard !crop.isFocalMatched else { return }
    printError(
        String(
            format: "warning: the frame cannot reach the trained focal %.1f px (achieved %.1f px); every range the network reports must be multiplied by %.4f",
            crop.targetFocal, crop.achievedFocal, crop.rangeScale))
}
