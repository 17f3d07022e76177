#!/usr/bin/env python3
"""Renders every golden HTML report in headless Chromium to a PNG and checks
that it rendered: the expected size, and not blank (enough non-white pixels
and more than a few colours). Then prints the README's example report (the
golden lora-70b-low; with --binary, made by it in English and Chinese) to PDF
and fails when it takes more than --max-pages A4 pages (5). --keep DIR leaves
the PNGs and PDFs there to look at."""
import argparse
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WIDTH, HEIGHT = 1240, 1754  # A4 at 150 dpi
README_EXAMPLE = ["--params", "70B", "--task", "lora", "--budget", "low"]  # README.md: gpu-advise ... --format html
README_GOLDEN = "lora-70b-low"  # the same request among the golden scenarios
MAX_PAGES = 5  # 4 until issue 37 priced 7 more cards: their rows, risks and sources made the English report 5


def decode_png(data):
    """Width, height and RGB rows of an 8-bit RGB or RGBA PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, idat, header = 8, b"", None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        chunk = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        position += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, f"unsupported PNG {header}"
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def check(png_path):
    width, height, channels, rows = decode_png(png_path.read_bytes())
    if (width, height) != (WIDTH, HEIGHT):
        return f"size {width}x{height}, expected {WIDTH}x{HEIGHT}"
    inked, colours, total = 0, set(), 0
    for row in rows[::4]:
        for x in range(0, len(row), channels * 4):
            r, g, b = row[x], row[x + 1], row[x + 2]
            total += 1
            if r < 235 or g < 235 or b < 235:
                inked += 1
            colours.add((r >> 4, g >> 4, b >> 4))
    share = inked / total
    if share < 0.02:
        return f"blank: only {share:.1%} of the page has ink"
    if len(colours) < 8:
        return f"blank: only {len(colours)} colours"
    return None


def chromium_command(chromium, profile):
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            f"--user-data-dir={profile}"]


def pdf_pages(data):
    """The number of pages of a PDF as Chromium writes it: its /Type /Page
    objects, or the page tree's /Count where those are packed in object streams."""
    pages = len(re.findall(rb"/Type\s*/Page(?![A-Za-z])", data))
    counts = [int(n) for n in re.findall(rb"/Count\s+(\d+)", data)]
    return max([pages] + counts)


def print_pages(chromium, html, pdf):
    """Prints `html` to `pdf` as Chromium prints it on A4 (the report's own
    @page size and margins, no browser header or footer); its page count, or
    an error message."""
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    command = chromium_command(chromium, profile) + [
        "--no-pdf-header-footer", "--print-to-pdf-no-header", f"--print-to-pdf={pdf}", html.as_uri()]
    try:
        result = subprocess.run(command, capture_output=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    if result.returncode != 0 or not pdf.exists():
        return None, f"chromium exited {result.returncode}: {result.stderr.decode()[-500:]}"
    data = pdf.read_bytes()
    if not data.startswith(b"%PDF"):
        return None, "chromium did not write a PDF"
    pages = pdf_pages(data)
    if pages == 0:
        return None, "no pages found in the PDF"
    if b"/MediaBox [0 0 595" not in data and b"/MediaBox [0 0 594" not in data:
        return pages, "the pages are not A4 (595 x 842 pt)"
    return pages, None


def readme_reports(binary, out_dir):
    """The README example's HTML report: made by `binary` in English and
    Chinese, or the golden one (English) without a binary."""
    if not binary:
        return [("en (golden " + README_GOLDEN + ")", HERE / README_GOLDEN / "output.html", None)]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "LANG": "C", "COLUMNS": "100",
           "NO_COLOR": "1", "SOURCE_DATE_EPOCH": "1796083200"}
    reports = []
    for language in ("en", "zh"):
        path = out_dir / f"readme-example-{language}.html"
        result = subprocess.run([binary, *README_EXAMPLE, "--format", "html", "--lang", language], capture_output=True,
                                env=env, cwd=ROOT, timeout=60)
        if result.returncode != 0:
            reports.append((language, path, f"gpu-advise exited {result.returncode}: {result.stderr.decode()[-500:]}"))
            continue
        path.write_bytes(result.stdout)
        reports.append((language, path, None))
    return reports


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--binary", help="gpu-advise, to print the README example in English and Chinese")
    parser.add_argument("--max-pages", type=int, default=MAX_PAGES,
                        help=f"the most A4 pages the README example may print to ({MAX_PAGES})")
    parser.add_argument("--pages-only", action="store_true", help="only the page count, no screenshots")
    parser.add_argument("--keep")
    options = parser.parse_args()
    if not shutil.which(options.chromium):
        print(f"FAIL chromium not found ({options.chromium}); install Debian's chromium package")
        return 1
    out_dir = pathlib.Path(options.keep or tempfile.mkdtemp(prefix="gpu-advise-html-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    failures, checked = 0, 0
    for report in [] if options.pages_only else sorted(HERE.glob("*/output.html")):
        png = out_dir / (report.parent.name + ".png")
        profile = tempfile.mkdtemp(prefix="chromium-profile-")
        command = chromium_command(options.chromium, profile) + [
            f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={png}", report.as_uri()]
        result = subprocess.run(command, capture_output=True, timeout=120)
        shutil.rmtree(profile, ignore_errors=True)
        checked += 1
        if result.returncode != 0 or not png.exists():
            print(f"FAIL {report.parent.name}: chromium exited {result.returncode}: {result.stderr.decode()[-500:]}")
            failures += 1
            continue
        problem = check(png)
        if problem:
            print(f"FAIL {report.parent.name}: {problem}")
            failures += 1
    for language, html, problem in readme_reports(options.binary, out_dir):
        checked += 1
        label = f"README example [{language}]"
        pages = None
        if problem is None:
            pages, problem = print_pages(options.chromium, html, out_dir / (html.stem + ".pdf"))
        if problem is None and pages > options.max_pages:
            problem = f"prints to {pages} A4 pages, more than {options.max_pages}"
        if problem:
            print(f"FAIL {label}: {problem}")
            failures += 1
        else:
            print(f"ok {label}: {pages} A4 pages (at most {options.max_pages})")
    print(f"html: {checked - failures} passed, {failures} failed")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
