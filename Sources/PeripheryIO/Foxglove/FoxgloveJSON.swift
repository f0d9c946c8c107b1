import Foundation

/// JSON text written field by field, as the replay sidecar's lines are. The Foxglove messages go out
/// up to fifteen times a second beside a saturated engine; `JSONEncoder`'s generic Codable paths
/// cost several times more (docs/results/benchmarks-history.md, "Live view").
struct JSONText {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    /// The text as data.
    var data: Data { Data(bytes) }

    /// Punctuation and keys, as given (`"{\"sec\":"`).
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A value already written as JSON text elsewhere (the sidecar's), as given.
    mutating func json(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// A number; JSON has no NaN or infinity, which become null.
    mutating func number(_ x: Double) {
        if x.isFinite { bytes.append(contentsOf: x.description.utf8) } else { raw("null") }
    }

    mutating func integer(_ x: Int) { bytes.append(contentsOf: String(x).utf8) }

    mutating func bool(_ x: Bool) { if x { raw("true") } else { raw("false") } }

    /// A string, quoted, with `"`, `\` and control characters escaped.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0..<0x20:
                raw("\\u00")
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 15)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Bytes as a base64 string.
    mutating func base64(_ data: Data) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: data.base64EncodedData())
        bytes.append(UInt8(ascii: "\""))
    }

    /// `[a,b,…]`, each element written by `element`.
    mutating func list<Element>(_ elements: [Element], _ element: (inout JSONText, Element) -> Void) {
        raw("[")
        for (i, value) in elements.enumerated() {
            if i > 0 { raw(",") }
            element(&self, value)
        }
        raw("]")
    }

    mutating func numbers(_ values: [Double]) { list(values) { $0.number($1) } }
}

extension Foxglove.Time {
    func write(_ j: inout JSONText) {
        j.raw("{\"sec\":")
        j.integer(Int(sec))
        j.raw(",\"nsec\":")
        j.integer(Int(nsec))
        j.raw("}")
    }
}

extension Foxglove.Vector3 {
    func write(_ j: inout JSONText) {
        j.raw("{\"x\":")
        j.number(x)
        j.raw(",\"y\":")
        j.number(y)
        j.raw(",\"z\":")
        j.number(z)
        j.raw("}")
    }
}

extension Foxglove.Quaternion {
    func write(_ j: inout JSONText) {
        j.raw("{\"x\":")
        j.number(x)
        j.raw(",\"y\":")
        j.number(y)
        j.raw(",\"z\":")
        j.number(z)
        j.raw(",\"w\":")
        j.number(w)
        j.raw("}")
    }
}

extension Foxglove.Pose {
    func write(_ j: inout JSONText) {
        j.raw("{\"position\":")
        position.write(&j)
        j.raw(",\"orientation\":")
        orientation.write(&j)
        j.raw("}")
    }
}

extension Foxglove.Color {
    func write(_ j: inout JSONText) {
        j.raw("{\"r\":")
        j.number(r)
        j.raw(",\"g\":")
        j.number(g)
        j.raw(",\"b\":")
        j.number(b)
        j.raw(",\"a\":")
        j.number(a)
        j.raw("}")
    }
}

extension Foxglove.CompressedImage {
    var json: Data {
        var j = JSONText(capacity: data.count * 4 / 3 + 128)
        j.raw("{\"timestamp\":")
        timestamp.write(&j)
        j.raw(",\"frame_id\":")
        j.string(frameId)
        j.raw(",\"data\":")
        j.base64(data)
        j.raw(",\"format\":")
        j.string(format)
        j.raw("}")
        return j.data
    }
}

extension Foxglove.CameraCalibration {
    var json: Data {
        var j = JSONText()
        j.raw("{\"timestamp\":")
        timestamp.write(&j)
        j.raw(",\"frame_id\":")
        j.string(frameId)
        j.raw(",\"width\":")
        j.integer(width)
        j.raw(",\"height\":")
        j.integer(height)
        j.raw(",\"distortion_model\":")
        j.string(distortionModel)
        j.raw(",\"D\":")
        j.numbers(D)
        j.raw(",\"K\":")
        j.numbers(K)
        j.raw(",\"R\":")
        j.numbers(R)
        j.raw(",\"P\":")
        j.numbers(P)
        j.raw("}")
        return j.data
    }
}

extension Foxglove.FrameTransform {
    var json: Data {
        var j = JSONText()
        j.raw("{\"timestamp\":")
        timestamp.write(&j)
        j.raw(",\"parent_frame_id\":")
        j.string(parentFrameId)
        j.raw(",\"child_frame_id\":")
        j.string(childFrameId)
        j.raw(",\"translation\":")
        translation.write(&j)
        j.raw(",\"rotation\":")
        rotation.write(&j)
        j.raw("}")
        return j.data
    }
}

extension Foxglove.PosesInFrame {
    var json: Data {
        var j = JSONText(capacity: 128 + poses.count * 160)
        j.raw("{\"timestamp\":")
        timestamp.write(&j)
        j.raw(",\"frame_id\":")
        j.string(frameId)
        j.raw(",\"poses\":")
        j.list(poses) { $1.write(&$0) }
        j.raw("}")
        return j.data
    }
}

extension Foxglove.SceneUpdate {
    var json: Data {
        var j = JSONText(capacity: 512 + entities.count * 1024)
        j.raw("{\"deletions\":")
        j.list(deletions) { j, deletion in
            j.raw("{\"timestamp\":")
            deletion.timestamp.write(&j)
            j.raw(",\"type\":")
            j.integer(deletion.type)
            j.raw(",\"id\":")
            j.string(deletion.id)
            j.raw("}")
        }
        j.raw(",\"entities\":")
        j.list(entities) { j, entity in
            j.raw("{\"timestamp\":")
            entity.timestamp.write(&j)
            j.raw(",\"frame_id\":")
            j.string(entity.frameId)
            j.raw(",\"id\":")
            j.string(entity.id)
            j.raw(",\"lifetime\":")
            entity.lifetime.write(&j)
            j.raw(",\"frame_locked\":")
            j.bool(entity.frameLocked)
            j.raw(",\"metadata\":")
            j.list(entity.metadata) { j, pair in
                j.raw("{\"key\":")
                j.string(pair.key)
                j.raw(",\"value\":")
                j.string(pair.value)
                j.raw("}")
            }
            j.raw(",\"cubes\":")
            j.list(entity.cubes) { j, cube in
                j.raw("{\"pose\":")
                cube.pose.write(&j)
                j.raw(",\"size\":")
                cube.size.write(&j)
                j.raw(",\"color\":")
                cube.color.write(&j)
                j.raw("}")
            }
            j.raw(",\"texts\":")
            j.list(entity.texts) { j, text in
                j.raw("{\"pose\":")
                text.pose.write(&j)
                j.raw(",\"billboard\":")
                j.bool(text.billboard)
                j.raw(",\"font_size\":")
                j.number(text.fontSize)
                j.raw(",\"scale_invariant\":")
                j.bool(text.scaleInvariant)
                j.raw(",\"color\":")
                text.color.write(&j)
                j.raw(",\"text\":")
                j.string(text.text)
                j.raw("}")
            }
            // Kinds a run does not draw: present and empty, as viewers expect every list.
            j.raw(",\"arrows\":[],\"spheres\":[],\"cylinders\":[],\"lines\":[],\"triangles\":[],\"models\":[]}")
        }
        j.raw("}")
        return j.data
    }
}

extension Foxglove.RunStats {
    var json: Data {
        var j = JSONText(capacity: 160)
        j.raw("{\"index\":")
        j.integer(index)
        j.raw(",\"pts\":")
        j.number(pts)
        j.raw(",\"processed\":")
        j.integer(processed)
        j.raw(",\"dropped\":")
        j.integer(dropped)
        j.raw(",\"corrupt\":")
        j.integer(corrupt)
        if let latencyMs {
            j.raw(",\"latency_ms\":")
            j.number(latencyMs)
        }
        if let fps {
            j.raw(",\"fps\":")
            j.number(fps)
        }
        j.raw("}")
        return j.data
    }
}
