import Foundation
import PeripheryCore
import PeripheryTestSupport
import Testing

@testable import PeripheryIO

/// The H.264 writer, read back by `ffprobe` and by the reader.
struct VideoWriterTests {
    /// A picture whose colours change smoothly with the frame number (video codecs keep smooth
    /// pictures closely).
    private func picture(width: Int, height: Int, frame: Int) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                pixels[i] = UInt8((x * 255) / max(1, width - 1))
                pixels[i + 1] = UInt8((y * 255) / max(1, height - 1))
                pixels[i + 2] = UInt8((frame * 20) % 256)
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels) ?? RGBImage(width: 1, height: 1)
    }

    @Test(arguments: [(64, 48), (65, 49)])
    func writesAPlayableH264AtTheFramesTimes(width: Int, height: Int) throws {
        let folder = try scratchFolder("video-write")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out.mp4"
        let writer = try VideoWriter(path: path, width: width, height: height, fps: 10)
        let times: [Double] = (0..<12).map { (n: Int) -> Double in n < 6 ? Double(n) * 0.1 : 0.5 + Double(n - 5) * 0.25 }
        for (frame, t) in times.enumerated() { try writer.append(picture(width: width, height: height, frame: frame), at: t) }
        #expect(!FileManager.default.fileExists(atPath: path))
        try writer.finish()
        #expect(!FileManager.default.fileExists(atPath: path + ".partial"))
        let probe = String(
            decoding: try VideoTestClips.run(
                "ffprobe",
                [
                    "-v", "error", "-count_frames", "-select_streams", "v:0",
                    "-show_entries", "stream=codec_name,pix_fmt,width,height,nb_read_frames", "-of", "default=nw=1", path,
                ]), as: UTF8.self)
        for line in ["codec_name=h264", "pix_fmt=yuv420p", "width=64", "height=48", "nb_read_frames=12"] {
            #expect(probe.contains(line), "\(probe)")
        }
        var source = try VideoFrameSource(path: path)
        var index = 0
        while let frame = try source.next() {
            #expect(abs(frame.timestamp - times[index]) < 1e-4)
            let expected = picture(width: width, height: height, frame: index)
            var total = 0
            for y in 0..<48 {
                for x in 0..<64 {
                    let (a, b) = (frame.image[x, y], expected[x, y])
                    for c in 0..<3 { total += abs(Int(a[c]) - Int(b[c])) }
                }
            }
            #expect(Double(total) / Double(64 * 48 * 3) < 4, "frame \(index)")
            index += 1
        }
        #expect(index == 12)
    }

    @Test func anUnfinishedVideoIsNotGivenItsName() throws {
        let folder = try scratchFolder("video-unfinished")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out.mp4"
        do {
            let writer = try VideoWriter(path: path, width: 32, height: 32, fps: 10)
            try writer.append(picture(width: 32, height: 32, frame: 0), at: 0)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(throws: VideoError.self) { _ = try VideoWriter(path: folder + "/missing/out.mp4", width: 32, height: 32, fps: 10) }
    }
}
