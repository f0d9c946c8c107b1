/// The picture file formats `ImageFile` reads, recognised by their first bytes, never by extension.
public enum ImageFormat: String, Sendable, Hashable, CustomStringConvertible {
    /// PNG: the 8-byte signature `89 50 4E 47 0D 0A 1A 0A`.
    case png
    /// JPEG (JFIF, Exif or bare): starts with the SOI marker `FF D8` followed by another marker `FF`.
    case jpeg

    /// The 8 bytes every PNG file starts with.
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The format whose magic bytes start `bytes`, or `nil` when none does.
    static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ImageFormat? {
        if bytes.starts(with: pngSignature) { return .png }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        return nil
    }

    public var description: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        }
    }
}
