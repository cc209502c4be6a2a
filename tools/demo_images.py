"""Draw the demo screenshots under assets/demo/ (no image library needed).

Run `python tools/demo_images.py` from the project root to (re)create:
landing.png (a landing-page mock, 1200 px wide), pricing.png (a pricing page)
and concept-a/b/c.png (hero concepts for the image preference test).
Pillow is not in the venv, so this module writes PNGs itself: flat rectangles
and a 5x7 bitmap font, which compress to small files.
"""

from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "assets" / "demo"

Color = tuple[int, int, int]
WHITE: Color = (255, 255, 255)
INK: Color = (17, 24, 39)
GREY: Color = (107, 114, 128)
LIGHT: Color = (229, 231, 235)
PALE: Color = (243, 244, 246)
INDIGO: Color = (79, 70, 229)
INDIGO_PALE: Color = (238, 242, 255)
NAVY: Color = (30, 27, 75)
GREEN: Color = (16, 185, 129)

# 5x7 glyphs, '#' = ink.
FONT: dict[str, tuple[str, ...]] = {
    "A": (" ### ", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"),
    "B": ("#### ", "#   #", "#   #", "#### ", "#   #", "#   #", "#### "),
    "C": (" ####", "#    ", "#    ", "#    ", "#    ", "#    ", " ####"),
    "D": ("#### ", "#   #", "#   #", "#   #", "#   #", "#   #", "#### "),
    "E": ("#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#####"),
    "F": ("#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#    "),
    "G": (" ####", "#    ", "#    ", "# ###", "#   #", "#   #", " ####"),
    "H": ("#   #", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"),
    "I": ("#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "#####"),
    "J": ("  ###", "   # ", "   # ", "   # ", "#  # ", "#  # ", " ##  "),
    "K": ("#   #", "#  # ", "# #  ", "##   ", "# #  ", "#  # ", "#   #"),
    "L": ("#    ", "#    ", "#    ", "#    ", "#    ", "#    ", "#####"),
    "M": ("#   #", "## ##", "# # #", "# # #", "#   #", "#   #", "#   #"),
    "N": ("#   #", "##  #", "# # #", "#  ##", "#   #", "#   #", "#   #"),
    "O": (" ### ", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "),
    "P": ("#### ", "#   #", "#   #", "#### ", "#    ", "#    ", "#    "),
    "Q": (" ### ", "#   #", "#   #", "#   #", "# # #", "#  # ", " ## #"),
    "R": ("#### ", "#   #", "#   #", "#### ", "# #  ", "#  # ", "#   #"),
    "S": (" ####", "#    ", "#    ", " ### ", "    #", "    #", "#### "),
    "T": ("#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "),
    "U": ("#   #", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "),
    "V": ("#   #", "#   #", "#   #", "#   #", "#   #", " # # ", "  #  "),
    "W": ("#   #", "#   #", "#   #", "# # #", "# # #", "## ##", "#   #"),
    "X": ("#   #", "#   #", " # # ", "  #  ", " # # ", "#   #", "#   #"),
    "Y": ("#   #", "#   #", " # # ", "  #  ", "  #  ", "  #  ", "  #  "),
    "Z": ("#####", "    #", "   # ", "  #  ", " #   ", "#    ", "#####"),
    "0": (" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "),
    "1": ("  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "),
    "2": (" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"),
    "3": ("#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "),
    "4": ("   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "),
    "5": ("#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "),
    "6": ("  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "),
    "7": ("#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "),
    "8": (" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "),
    "9": (" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "),
    " ": ("     ",) * 7,
    ".": ("     ", "     ", "     ", "     ", "     ", " ##  ", " ##  "),
    ",": ("     ", "     ", "     ", "     ", " ##  ", "  #  ", " #   "),
    "!": ("  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "     ", "  #  "),
    "?": (" ### ", "#   #", "    #", "   # ", "  #  ", "     ", "  #  "),
    "-": ("     ", "     ", "     ", "#####", "     ", "     ", "     "),
    "+": ("     ", "  #  ", "  #  ", "#####", "  #  ", "  #  ", "     "),
    "/": ("    #", "    #", "   # ", "  #  ", " #   ", "#    ", "#    "),
    ":": ("     ", " ##  ", " ##  ", "     ", " ##  ", " ##  ", "     "),
    "'": ("  #  ", "  #  ", " #   ", "     ", "     ", "     ", "     "),
    "%": ("##   ", "##  #", "   # ", "  #  ", " #   ", "#  ##", "   ##"),
    "$": ("  #  ", " ####", "# #  ", " ### ", "  # #", "#### ", "  #  "),
    "&": (" ##  ", "#  # ", "# #  ", " #   ", "# # #", "#  # ", " ## #"),
}


class Canvas:
    """An RGB image in memory with rectangles and bitmap text."""

    def __init__(self, width: int, height: int, background: Color = WHITE):
        self.width, self.height = width, height
        self.pixels = bytearray(bytes(background) * (width * height))

    def rect(self, x0: int, y0: int, x1: int, y1: int, color: Color) -> None:
        x0, x1 = max(0, x0), min(self.width, x1)
        row = bytes(color) * max(0, x1 - x0)
        for y in range(max(0, y0), min(self.height, y1)):
            start = (y * self.width + x0) * 3
            self.pixels[start : start + len(row)] = row

    def frame(self, x0: int, y0: int, x1: int, y1: int, color: Color, width: int = 2) -> None:
        self.rect(x0, y0, x1, y0 + width, color)
        self.rect(x0, y1 - width, x1, y1, color)
        self.rect(x0, y0, x0 + width, y1, color)
        self.rect(x1 - width, y0, x1, y1, color)

    def text(self, x: int, y: int, text: str, scale: int, color: Color) -> int:
        """Draw upper-case text; returns the x after the last glyph."""
        for char in text.upper():
            glyph = FONT.get(char, FONT["?"])
            for gy, line in enumerate(glyph):
                for gx, cell in enumerate(line):
                    if cell == "#":
                        self.rect(x + gx * scale, y + gy * scale, x + (gx + 1) * scale, y + (gy + 1) * scale, color)
            x += 6 * scale
        return x

    def text_centered(self, cx: int, y: int, text: str, scale: int, color: Color) -> None:
        self.text(cx - text_width(text, scale) // 2, y, text, scale, color)

    def button(self, x: int, y: int, label: str, scale: int, fill: Color, ink: Color, pad: int = 18) -> int:
        w = text_width(label, scale) + 2 * pad
        h = 7 * scale + 2 * pad
        self.rect(x, y, x + w, y + h, fill)
        self.text(x + pad, y + pad, label, scale, ink)
        return x + w

    def lines(self, x: int, y: int, widths: list[int], color: Color = LIGHT, height: int = 10, gap: int = 12) -> None:
        """Grey bars standing for body text."""
        for i, w in enumerate(widths):
            self.rect(x, y + i * (height + gap), x + w, y + i * (height + gap) + height, color)

    def save(self, path: Path) -> None:
        raw = b"".join(
            b"\x00" + bytes(self.pixels[y * self.width * 3 : (y + 1) * self.width * 3]) for y in range(self.height)
        )

        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        png = (
            b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png)


def text_width(text: str, scale: int) -> int:
    return len(text) * 6 * scale - scale


def nav(c: Canvas, active: str = "") -> None:
    c.rect(0, 0, c.width, 80, WHITE)
    c.rect(40, 20, 80, 60, INDIGO)
    c.text(52, 33, "A", 2, WHITE)
    c.text(95, 30, "ACME ANALYTICS", 3, INK)
    x = 560
    for item in ("PRODUCT", "PRICING", "CUSTOMERS", "LOG IN"):
        c.text(x, 35, item, 2, INDIGO if item == active else GREY)
        x += text_width(item, 2) + 28
    c.button(1010, 22, "START FREE", 2, INDIGO, WHITE, pad=11)
    c.rect(0, 79, c.width, 81, LIGHT)


def landing() -> Canvas:
    c = Canvas(1200, 2000)
    nav(c)
    # Hero (y 80-620)
    c.rect(0, 81, 1200, 620, INDIGO_PALE)
    c.text_centered(600, 140, "KNOW WHAT YOUR BUYERS", 6, NAVY)
    c.text_centered(600, 200, "THINK, IN MINUTES", 6, INDIGO)
    c.text_centered(600, 275, "SURVEY REAL B2B DECISION MAKERS AND GET ANSWERS THE SAME DAY.", 2, GREY)
    x = c.button(400, 320, "START FREE TRIAL", 2, INDIGO, WHITE)
    c.rect(x + 20, 320, x + 220, 370, WHITE)
    c.frame(x + 20, 320, x + 220, 370, INDIGO)
    c.text(x + 55, 338, "BOOK A DEMO", 2, INDIGO)
    # Dashboard mock
    c.rect(200, 410, 1000, 610, WHITE)
    c.frame(200, 410, 1000, 610, LIGHT)
    c.rect(200, 410, 1000, 440, PALE)
    for i, h in enumerate((60, 95, 80, 130, 110, 150, 140)):
        c.rect(240 + i * 60, 590 - h, 280 + i * 60, 590, INDIGO if i == 5 else (165, 180, 252))
    c.text(700, 470, "RESPONSES", 2, GREY)
    c.text(700, 500, "1,284", 5, INK)
    c.text(700, 555, "+38% THIS WEEK", 2, GREEN)
    # Logos (y 620-760)
    c.text_centered(600, 650, "TRUSTED BY 2,000+ PRODUCT AND MARKETING TEAMS", 2, GREY)
    for i in range(6):
        c.rect(110 + i * 170, 690, 240 + i * 170, 725, LIGHT)
    # Features (y 760-1240)
    c.text_centered(600, 800, "EVERYTHING YOU NEED TO TEST YOUR MESSAGE", 4, INK)
    features = (
        ("VERIFIED PANEL", "REAL PROFESSIONALS"),
        ("FAST RESULTS", "ANSWERS IN HOURS"),
        ("CLEAR REPORTS", "SHARE WITH YOUR TEAM"),
    )
    for i, (title, sub) in enumerate(features):
        x0 = 60 + i * 370
        c.rect(x0, 880, x0 + 340, 1200, WHITE)
        c.frame(x0, 880, x0 + 340, 1200, LIGHT)
        c.rect(x0 + 30, 910, x0 + 90, 970, INDIGO_PALE)
        c.rect(x0 + 48, 928, x0 + 72, 952, INDIGO)
        c.text(x0 + 30, 1000, title, 3, INK)
        c.text(x0 + 30, 1040, sub, 2, GREY)
        c.lines(x0 + 30, 1080, [280, 250, 270, 180])
    # Testimonial (y 1240-1520)
    c.rect(0, 1240, 1200, 1520, PALE)
    c.text_centered(600, 1300, "'WE REWROTE OUR HOMEPAGE IN A WEEK", 3, INK)
    c.text_centered(600, 1340, "AND DOUBLED OUR DEMO REQUESTS.'", 3, INK)
    c.rect(540, 1400, 580, 1440, (199, 210, 254))
    c.text(595, 1405, "MAYA PATEL", 2, INK)
    c.text(595, 1425, "VP MARKETING, NORTHWIND", 2, GREY)
    # Call to action (y 1520-1800)
    c.rect(0, 1520, 1200, 1800, NAVY)
    c.text_centered(600, 1590, "READY TO HEAR FROM YOUR BUYERS?", 5, WHITE)
    c.text_centered(600, 1650, "NO CREDIT CARD NEEDED. CANCEL ANYTIME.", 2, (199, 210, 254))
    c.button(505, 1700, "START FREE TRIAL", 2, WHITE, NAVY)
    # Footer (y 1800-2000)
    c.rect(0, 1800, 1200, 2000, INK)
    c.text(60, 1850, "ACME ANALYTICS", 2, WHITE)
    for i, col in enumerate(("PRODUCT", "COMPANY", "RESOURCES", "LEGAL")):
        c.text(400 + i * 190, 1850, col, 2, WHITE)
        c.lines(400 + i * 190, 1885, [110, 90, 120], color=(75, 85, 99), height=8, gap=14)
    c.text(60, 1955, "COPYRIGHT 2026 ACME ANALYTICS INC.", 1, GREY)
    return c


def pricing() -> Canvas:
    c = Canvas(1200, 1400)
    nav(c, active="PRICING")
    c.text_centered(600, 140, "SIMPLE PRICING FOR EVERY TEAM", 5, INK)
    c.text_centered(600, 200, "START FREE. UPGRADE WHEN YOU NEED MORE RESPONSES.", 2, GREY)
    c.rect(480, 250, 720, 300, PALE)
    c.rect(484, 254, 600, 296, WHITE)
    c.text(505, 268, "MONTHLY", 2, INK)
    c.text(615, 268, "YEARLY", 2, GREY)
    tiers = (
        ("STARTER", "$49", ("100 RESPONSES", "1 SEAT", "EMAIL SUPPORT")),
        ("GROWTH", "$199", ("1,000 RESPONSES", "5 SEATS", "SCREENERS", "PRIORITY SUPPORT")),
        ("ENTERPRISE", "CUSTOM", ("UNLIMITED RESPONSES", "SSO AND AUDIT LOG", "DEDICATED MANAGER")),
    )
    for i, (name, price, items) in enumerate(tiers):
        x0, highlighted = 60 + i * 370, i == 1
        c.rect(x0, 380, x0 + 340, 1100, INDIGO_PALE if highlighted else WHITE)
        c.frame(x0, 380, x0 + 340, 1100, INDIGO if highlighted else LIGHT, 3 if highlighted else 2)
        if highlighted:
            c.button(x0 + 100, 350, "MOST POPULAR", 2, INDIGO, WHITE, pad=8)
        c.text(x0 + 30, 420, name, 3, INK)
        end = c.text(x0 + 30, 470, price, 6, INDIGO if highlighted else INK)
        if price.startswith("$"):
            c.text(end + 8, 500, "/MONTH", 2, GREY)
        for j, item in enumerate(items):
            c.rect(x0 + 30, 580 + j * 50, x0 + 46, 596 + j * 50, GREEN)
            c.text(x0 + 60, 582 + j * 50, item, 2, INK)
        label = "CONTACT SALES" if price == "CUSTOM" else "START FREE TRIAL"
        fill, ink = (INDIGO, WHITE) if highlighted else (WHITE, INDIGO)
        c.rect(x0 + 30, 1010, x0 + 310, 1065, fill)
        c.frame(x0 + 30, 1010, x0 + 310, 1065, INDIGO)
        c.text_centered(x0 + 170, 1031, label, 2, ink)
    c.rect(0, 1150, 1200, 1400, PALE)
    c.text_centered(600, 1190, "FREQUENTLY ASKED QUESTIONS", 3, INK)
    for i in range(2):
        c.lines(160 + i * 460, 1250, [420, 380, 400, 300], color=LIGHT)
    return c


def concept(letter: str, accent: Color, background: Color, headline: tuple[str, str]) -> Canvas:
    c = Canvas(800, 600, background)
    c.rect(0, 0, 800, 64, WHITE)
    c.rect(30, 18, 58, 46, accent)
    c.text(70, 25, "ACME ANALYTICS", 2, INK)
    c.text_centered(400, 150, headline[0], 4, INK)
    c.text_centered(400, 195, headline[1], 4, accent)
    c.lines(200, 260, [400, 360], color=(209, 213, 219))
    c.button(300, 330, "GET STARTED", 2, accent, WHITE)
    c.rect(120, 420, 680, 580, WHITE)
    c.frame(120, 420, 680, 580, LIGHT)
    for i in range(5):
        c.rect(160 + i * 100, 540 - 20 * (i + 1), 200 + i * 100, 540, accent)
    c.text(20, 575, f"CONCEPT {letter}", 1, GREY)
    return c


def main() -> None:
    images = {
        "landing.png": landing(),
        "pricing.png": pricing(),
        "concept-a.png": concept("A", INDIGO, INDIGO_PALE, ("KNOW YOUR BUYERS", "IN MINUTES")),
        "concept-b.png": concept("B", (219, 39, 119), (253, 242, 248), ("STOP GUESSING.", "ASK YOUR MARKET.")),
        "concept-c.png": concept("C", (5, 150, 105), (236, 253, 245), ("REAL ANSWERS FROM", "REAL DECISION MAKERS")),
    }
    for name, canvas in images.items():
        canvas.save(OUT / name)
        print(f"wrote {OUT / name} ({canvas.width}x{canvas.height})", file=sys.stdout)


if __name__ == "__main__":
    main()
