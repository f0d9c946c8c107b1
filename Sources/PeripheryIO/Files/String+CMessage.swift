extension String {
    /// The text of a C function's message buffer, up to its first NUL.
    init(cMessage buffer: [CChar]) {
        self = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
