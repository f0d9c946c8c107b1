extension Canvas {
    /// Writes `text` across the top of the picture, centred, in the warning colour with a dark halo
    /// and scaled with the picture's height: a line that must not be missed on a single picture
    /// (`Composite` has its own strip for one).
    public mutating func caption(_ text: String) {
        let scale = max(1, height / 270)
        self.text(text, at: SIMD2(width / 2, 4 * scale), scale: scale, colour: Colour(hex: 0xFFD24A), alignment: .centre, halo: Colour(hex: 0x000000))
    }
}
