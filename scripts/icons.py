#!/usr/bin/env python3
"""Draws the app's icons (a crescent moon on the page's night blue) as PNG files, with no
imaging library: one pixel at a time, anti-aliased by 4x4 supersampling.

usage: python3 scripts/icons.py [OUTDIR]   (www/icons by default)
Writes icon-192.png, icon-512.png (purpose "any") and maskable-512.png (the moon inside
the central 80% a launcher may crop to). The files are committed; run this after a change.
"""
import os
import struct
import sys
import zlib

BG = (0x0F, 0x14, 0x24)
MOON = (0xF2, 0xD9, 0x8C)


def coverage(x, y, size, scale):
    """Share of pixel (x, y) inside the crescent: a disc minus a disc shifted up-right."""
    r = size * 0.34 * scale
    cx = cy = size / 2
    inside = 0
    for i in range(4):
        for j in range(4):
            px, py = x + (i + 0.5) / 4, y + (j + 0.5) / 4
            in_moon = (px - cx) ** 2 + (py - cy) ** 2 <= r * r
            sx, sy = cx + r * 0.45, cy - r * 0.35
            in_shadow = (px - sx) ** 2 + (py - sy) ** 2 <= (r * 0.85) ** 2
            inside += in_moon and not in_shadow
    return inside / 16


def png(size, scale):
    rows = []
    for y in range(size):
        row = bytearray([0])
        for x in range(size):
            a = coverage(x, y, size, scale)
            row.extend(round(b + (m - b) * a) for b, m in zip(BG, MOON))
        rows.append(bytes(row))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b"")


out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "www", "icons")
os.makedirs(out, exist_ok=True)
for name, size, scale in [("icon-192.png", 192, 1.0), ("icon-512.png", 512, 1.0), ("maskable-512.png", 512, 0.8)]:
    with open(os.path.join(out, name), "wb") as f:
        f.write(png(size, scale))
    print(f"icons: {name} {size}x{size}")
