#!/usr/bin/env python3
"""Writes the small image fixtures of Tests/PeripheryIOTests/ImageFileTests.swift.

Every picture is made here from formulas (no third-party images). For each readable fixture
`NAME.png` / `NAME.jpg` the expected packed RGB8 pixels are written next to it as `NAME.rgb`:
Pillow's own decode converted to RGB (alpha dropped), or for 16-bit PNGs `round(v / 257)`.
The bad files are an empty file, truncated PNG and JPEG, random bytes, a PNG whose IHDR claims
100000 × 100000, a PNG with a damaged IDAT and a CMYK JPEG.

    .build/venv/bin/python tools/make_image_fixtures.py   # needs Pillow (python/requirements-dev.txt)
"""
from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
from PIL import Image

OUT = Path(__file__).resolve().parent.parent / "Tests/PeripheryIOTests/Fixtures/images"
W, H = 37, 23  # odd sizes, so row lengths are not multiples of 4


def pattern() -> np.ndarray:
    """An RGB8 picture with gradients, a hard edge and a fine checkerboard, [H, W, 3]."""
    y, x = np.mgrid[0:H, 0:W]
    r = (x * 255 // (W - 1)).astype(np.uint8)
    g = (y * 255 // (H - 1)).astype(np.uint8)
    b = np.where((x + y) % 2 == 0, 230, 20).astype(np.uint8)
    b[:, W // 2:] = np.where(x[:, W // 2:] > 3 * W // 4, 255, 0)
    return np.stack([r, g, b], axis=-1)


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width: int, height: int, bit_depth: int, colour_type: int, rows: list[bytes]) -> bytes:
    """A minimal PNG (filter 0 on every row), for what Pillow does not write (16-bit RGB)."""
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0)
    raw = b"".join(b"\x00" + row for row in rows)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def save_expected(name: str, rgb: np.ndarray) -> None:
    assert rgb.dtype == np.uint8 and rgb.shape == (H, W, 3), (name, rgb.shape)
    (OUT / f"{name}.rgb").write_bytes(rgb.tobytes())


def pillow_rgb(path: Path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    rgb = pattern()
    base = Image.fromarray(rgb, "RGB")
    y, x = np.mgrid[0:H, 0:W]

    # PNG colour types Pillow writes; the expected pixels are Pillow's convert("RGB").
    grey = base.convert("L")
    alpha = Image.fromarray(((x * 7 + y * 11) % 256).astype(np.uint8), "L")  # includes 0 (transparent)
    rgba = base.copy()
    rgba.putalpha(alpha)
    grey_alpha = grey.copy()
    grey_alpha.putalpha(alpha)
    palette = base.quantize(colors=16, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    palette_trns = palette.copy()
    palette_trns.info["transparency"] = 3
    for name, im, extra in [
        ("rgb8", base, {}),
        ("grey8", grey, {}),
        ("grey1", base.convert("L").point(lambda v: 255 if v > 100 else 0).convert("1"), {}),
        ("grey_alpha8", grey_alpha, {}),
        ("rgba8", rgba, {}),
        ("palette4", palette, {"bits": 4}),
        ("palette_trns", palette_trns, {"transparency": 3}),
    ]:
        path = OUT / f"{name}.png"
        im.save(path, **extra)
        save_expected(name, pillow_rgb(path))

    # 16-bit: grey through Pillow (mode I;16), RGB through the minimal writer above.
    grey16 = ((x * 1777 + y * 2311) % 65536).astype(np.uint16)
    Image.fromarray(grey16).save(OUT / "grey16.png")
    g8 = np.rint(grey16 / 257).astype(np.uint8)
    save_expected("grey16", np.stack([g8] * 3, axis=-1))
    rgb16 = (rgb.astype(np.uint32) * 257 + (x * 97 % 200)[..., None] - 100).clip(0, 65535).astype(np.uint16)
    (OUT / "rgb16.png").write_bytes(png(W, H, 16, 2, [row.astype(">u2").tobytes() for row in rgb16]))
    save_expected("rgb16", np.rint(rgb16 / 257).astype(np.uint8))

    # JPEG: baseline 4:2:0, progressive, greyscale; expected = Pillow's own decode.
    for name, im, extra in [
        ("baseline", base, {"quality": 90}),
        ("progressive", base, {"quality": 85, "progressive": True}),
        ("grey", grey, {"quality": 90}),
    ]:
        path = OUT / f"{name}.jpg"
        im.save(path, "JPEG", **extra)
        save_expected(name, pillow_rgb(path))

    # Bad files.
    (OUT / "empty.png").write_bytes(b"")
    good_png = (OUT / "rgb8.png").read_bytes()
    (OUT / "truncated.png").write_bytes(good_png[: len(good_png) // 2])
    good_jpeg = (OUT / "baseline.jpg").read_bytes()
    (OUT / "truncated.jpg").write_bytes(good_jpeg[: len(good_jpeg) // 2])
    (OUT / "random.bin").write_bytes(np.random.default_rng(40).integers(0, 256, 512, dtype=np.uint8).tobytes())
    huge = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    (OUT / "huge_header.png").write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", huge) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))
    # Valid chunk structure and CRCs, but the IDAT holds bytes that are not a zlib stream.
    ihdr = struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0)
    (OUT / "bad_idat.png").write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", bytes(range(7, 250))) + chunk(b"IEND", b""))
    Image.fromarray(rgb, "RGB").convert("CMYK").save(OUT / "cmyk.jpg", "JPEG", quality=90)

    total = sum(p.stat().st_size for p in OUT.iterdir())
    print(f"wrote {len(list(OUT.iterdir()))} files, {total} bytes, to {OUT}")


if __name__ == "__main__":
    main()
