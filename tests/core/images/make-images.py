#!/usr/bin/python3
"""Writes the image fixtures of test-image-decode (kept in git; run again
only to change them). PNG and GIF are built by hand so their pixels are
known exactly; blue-8x4.jpg was saved once by gdk-pixbuf (quality 95)
from the same 8x4 blue image and is not rewritten here."""
import struct
import zlib


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png(width, height, rows, color_type=6):
    ihdr = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    raw = b"".join(b"\0" + row for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


# 3x2 RGBA: red, green, blue / white, half-transparent black, clear.
pixels = [bytes([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255]),
          bytes([255, 255, 255, 255, 0, 0, 0, 128, 0, 0, 0, 0])]
good = png(3, 2, pixels)
open("rgba-3x2.png", "wb").write(good)
open("truncated.png", "wb").write(good[:45])
# A header claiming 100000 x 100000 and almost no data.
huge = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 6, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))
open("huge-header.png", "wb").write(huge)
open("not-an-image.png", "wb").write(b"<svg xmlns='http://www.w3.org/2000/svg'/>\n")
# A valid 16x16 header, then noise: it passes every check before the PNG
# decoder, which must refuse it.
open("garbage.png", "wb").write(good[:8] + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 6, 0, 0, 0))
                                + bytes((i * 97 + 13) % 256 for i in range(4096)))


def gif_blue_8x4():
    """8x4, every pixel palette entry 1 (blue). LZW with a clear code before
    every pair of pixels, so codes stay 3 bits wide."""
    codes = []
    for _ in range(16):
        codes += [4, 1, 1]
    codes.append(5)
    bits, nbits, out = 0, 0, bytearray()
    for code in codes:
        bits |= code << nbits
        nbits += 3
        while nbits >= 8:
            out.append(bits & 0xff)
            bits >>= 8
            nbits -= 8
    if nbits:
        out.append(bits & 0xff)
    return (b"GIF89a" + struct.pack("<HHBBB", 8, 4, 0x80, 0, 0)
            + bytes([0, 0, 0, 0, 0, 255])
            + b"," + struct.pack("<HHHHB", 0, 0, 8, 4, 0)
            + bytes([2, len(out)]) + bytes(out) + b"\0;")


open("blue-8x4.gif", "wb").write(gif_blue_8x4())
