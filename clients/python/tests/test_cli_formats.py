"""`legible recognize` reads every image format Leptonica reads (issue 14).

TIFF (one frame per page), BMP, GIF, WebP, PNM and JPEG 2000 are decoded by the client with
Leptonica and sent as 8-bit gray (GRAY8, or PNG when over the server's message limit; 1-bit
images as 1-bit PNG); JPEG and PNG go as they are, except a PNG with transparency, which is
flattened onto white first. A file that is no image is refused before anything is sent (exit
64, one line naming the formats read); one that looks like an image but does not decode is
reported and the other files are still read (exit 1).

Images are rendered here with Pillow in DejaVu Sans and read by the real legibled and
Tesseract over a unix socket; a fake server (test_cli_json.FakeServer) shows what is sent.

Tesseract's own test page (phototest.tif) is not among the fixtures: no Debian 12 package
ships it (tesseract-ocr, python3-tesserocr, librust-tesseract-*-dev and ocrmypdf-doc were
looked at), and the multi-page TIFFs made here cover what it would.
"""
import io
import json
import os
import re
import subprocess

import pytest
from google.protobuf import json_format
from PIL import Image, ImageDraw, ImageFont, features

from legible_client import pb
from test_cli_json import LEGIBLE, FakeServer, run_cli, split_line
from conftest import FIXTURES, run_with_terminal_stderr
from test_end_to_end import cer

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
# Clean 30 px DejaVu Sans on a plain background is read without a mistake in every format
# (measured CER 0.0 for every page and format below); the bound leaves room for one wrong
# character per line of ~25 without letting a wrong page, a black page or a skipped page
# (CER near 1) through.
MAX_CER = 0.05
# Three letter-size pages (100 dpi) laid out alike: their 32x18 luma thumbnails differ by
# about 0.4 gray levels (measured), under the server's unchanged-frame threshold (1.5), so a
# session that skips unchanged frames answers pages 2 and 3 SKIPPED with page 1's text
# (measured too) unless the client has every page read.
PAGE_SIZE = (850, 1100)
PAGES = [
    ["Invoice number 4417 for March", "Paid by bank transfer today"],
    ["Delivery note for order 8812", "Two boxes left the warehouse"],
    ["Warranty card of the blender", "Keep it with your receipt now"],
]
LINES = ["Quick brown foxes jump over", "the lazy dog 0123456789"]


def render(lines, mode="L", size=(760, 200), background=255, ink=0):
    font = ImageFont.truetype(FONT, 30)
    image = Image.new(mode, size, background)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((30, 40 + i * 60), line, font=font, fill=ink)
    return image


def multipage_tiff(path, pages=PAGES, **save):
    images = [render(lines, size=PAGE_SIZE) for lines in pages]
    images[0].save(path, save_all=True, append_images=images[1:], **save)
    return path


def assert_reads(text, lines, what=""):
    got = " ".join(text.split())
    want = " ".join(lines)
    assert cer(got, want) <= MAX_CER, (what, got, want)


def png_with_alpha(mode):
    """Black text on a fully transparent background whose colour is black too: alpha ignored,
    the page is black on black."""
    if mode == "RGBA":
        return render(LINES, "RGBA", background=(0, 0, 0, 0), ink=(0, 0, 0, 255))
    if mode == "LA":
        return render(LINES, "LA", background=(0, 0), ink=(0, 255))
    image = render(LINES, "P", background=0, ink=1)       # palette: index 0 transparent
    image.putpalette([0, 0, 0, 0, 0, 0])
    image.info["transparency"] = 0
    return image


# Each format: how Pillow writes it (a function of the path).
FORMATS = {
    "bmp-rgb": lambda p: render(LINES).convert("RGB").save(p, "BMP"),
    "bmp-1bit": lambda p: render(LINES).convert("1").save(p, "BMP"),
    "gif": lambda p: render(LINES).save(p, "GIF"),
    "webp-lossy": lambda p: render(LINES).convert("RGB").save(p, "WEBP", quality=85),
    "webp-alpha": lambda p: png_with_alpha("RGBA").save(p, "WEBP", lossless=True),
    "pgm": lambda p: render(LINES).save(p, "PPM"),
    "ppm": lambda p: render(LINES).convert("RGB").save(p, "PPM"),
    "pbm": lambda p: render(LINES).convert("1").save(p, "PPM"),
    "tiff-1bit-g4": lambda p: render(LINES).convert("1").save(p, "TIFF", compression="group4"),
    "tiff-16bit": lambda p: render(LINES).convert("I").point(lambda v: v * 257).convert("I;16").save(p, "TIFF"),
    "tiff-rgba-lzw": lambda p: png_with_alpha("RGBA").save(p, "TIFF", compression="tiff_lzw"),
    "png-rgba": lambda p: png_with_alpha("RGBA").save(p, "PNG"),
    "png-gray-alpha": lambda p: png_with_alpha("LA").save(p, "PNG"),
    "png-palette-transparent": lambda p: png_with_alpha("P").save(p, "PNG", transparency=0),
    "jpeg2000": lambda p: render(LINES).save(p, "JPEG2000"),
}


def write(tmp_path, kind):
    path = str(tmp_path / f"image-{kind}")
    FORMATS[kind](path)
    return path


# ---------------------------------------------------------------- multi-page TIFF


def test_multipage_tiff_reads_every_page_in_order(server, tmp_path):
    tiff = multipage_tiff(str(tmp_path / "pages.tif"))
    out = run_cli("recognize", "--server", server.address, tiff)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""   # no page was skipped as unchanged
    # As tesseract prints a multi-page TIFF: the pages' texts apart by form feeds.
    pages = out.stdout.split("\f")
    assert len(pages) == 3
    for text, lines in zip(pages, PAGES):
        assert_reads(text, lines, tiff)


def test_multipage_tiff_compressed_pages(server, tmp_path):
    tiff = multipage_tiff(str(tmp_path / "pages-lzw.tif"), PAGES[:2], compression="tiff_lzw")
    out = run_cli("recognize", "--server", server.address, tiff)
    assert out.returncode == 0, out.stderr
    pages = out.stdout.split("\f")
    assert len(pages) == 2
    for text, lines in zip(pages, PAGES):
        assert_reads(text, lines)


def test_multipage_tiff_in_json_one_line_per_page(server, tmp_path):
    tiff = multipage_tiff(str(tmp_path / "pages.tif"))
    single = str(tmp_path / "single.tif")
    render(LINES).save(single)
    out = run_cli("recognize", "--server", server.address, "--format", "json", tiff, single)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 4
    for index, line in enumerate(lines):
        keys, text = split_line(line)
        result = json_format.Parse(text, pb.FrameResult(), ignore_unknown_fields=False)
        assert result.frame_id == index + 1 and result.status == pb.FRAME_STATUS_RECOGNIZED
        if index < 3:
            # "page" follows "file" on a file with several pages, counted from 1.
            assert keys[:3] == ["file", "page", "frame_id"]
            member = json.loads(line)
            assert member["file"] == tiff and member["page"] == index + 1
            assert_reads(result.text.text, PAGES[index])
        else:
            # A single-page TIFF is one image: no "page".
            assert keys[:2] == ["file", "frame_id"]
            assert_reads(result.text.text, LINES)


def test_multipage_tiff_in_tsv_numbers_pages_under_one_header(server, tmp_path):
    tiff = multipage_tiff(str(tmp_path / "pages.tif"))
    out = run_cli("recognize", "--server", server.address, "--format", "tsv", tiff)
    assert out.returncode == 0, out.stderr
    rows = out.stdout.split("\n")
    assert rows[0].startswith("level\tpage_num\t") and rows[-1] == ""
    assert sum(row.startswith("level\t") for row in rows) == 1
    table = [row.split("\t") for row in rows[1:-1]]
    assert [row[1] for row in table if row[0] == "1"] == ["1", "2", "3"]
    for page, lines in enumerate(PAGES, 1):
        words = [row[11] for row in table if row[0] == "5" and row[1] == str(page)]
        assert_reads(" ".join(words), lines)


def test_several_files_with_pages_in_text(server, tmp_path):
    tiff = multipage_tiff(str(tmp_path / "pages.tif"), PAGES[:2])
    bmp = write(tmp_path, "bmp-rgb")
    out = run_cli("recognize", "--server", server.address, tiff, bmp)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.split(f"\n==> {bmp} <==\n")
    assert first.startswith(f"==> {tiff} <==\n")
    pages = first[len(f"==> {tiff} <==\n"):].split("\f")
    assert len(pages) == 2
    for text, lines in zip(pages, PAGES):
        assert_reads(text, lines)
    assert_reads(second, LINES)


def test_multipage_tiff_from_standard_input(server, tmp_path):
    tiff = multipage_tiff(str(tmp_path / "pages.tif"))
    with open(tiff, "rb") as f:
        out = subprocess.run([LEGIBLE, "recognize", "--server", server.address, "-"],
                             input=f.read(), capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr
    pages = out.stdout.decode().split("\f")
    assert len(pages) == 3
    for text, lines in zip(pages, PAGES):
        assert_reads(text, lines)


def test_annotate_a_multipage_tiff_writes_one_png_per_page(server, tmp_path):
    tiff = multipage_tiff(str(tmp_path / "pages.tif"))
    out = run_cli("recognize", "--server", server.address, "--annotate", str(tmp_path / "boxes.png"), tiff)
    assert out.returncode == 0, out.stderr
    assert not (tmp_path / "boxes.png").exists()
    for page in (1, 2, 3):
        image = Image.open(tmp_path / f"boxes-page{page}.png").convert("RGB")
        assert image.size == PAGE_SIZE
        # Red line boxes were drawn around the text.
        rgb = image.tobytes()
        assert any(r > 150 and g < 80 and b < 80 for r, g, b in zip(rgb[0::3], rgb[1::3], rgb[2::3]))
    bmp = write(tmp_path, "bmp-rgb")
    out = run_cli("recognize", "--server", server.address, "--annotate-dir", str(tmp_path / "ann"), tiff, bmp)
    assert out.returncode == 0, out.stderr
    assert sorted(os.listdir(tmp_path / "ann")) == ["image-bmp-rgb.png", "pages-page1.png", "pages-page2.png",
                                                    "pages-page3.png"]


def test_progress_bar_names_the_page(server, tmp_path):
    tiff = multipage_tiff(str(tmp_path / "pages.tif"))
    bmp = write(tmp_path, "bmp-rgb")
    code, terminal, _ = run_with_terminal_stderr(
        [LEGIBLE, "recognize", "--server", server.address, tiff, bmp], raw=True)
    assert code == 0
    # The bar names the file, then the page being read (a long name keeps its end).
    assert re.search(rb"\] 0/2 \S*pages\.tif\x1b\[K", terminal), terminal
    assert re.search(rb"\] 0/2 \S*pages\.tif page 3\x1b\[K", terminal), terminal
    assert re.search(rb"\] 1/2 \S*image-bmp-rgb\x1b\[K", terminal), terminal


# ---------------------------------------------------------------- one image per format


@pytest.mark.parametrize("kind", sorted(FORMATS))
def test_each_format_is_read(server, tmp_path, kind):
    if kind == "jpeg2000" and not features.check("jpg_2000"):
        pytest.skip("this Pillow writes no JPEG 2000")
    path = write(tmp_path, kind)
    out = run_cli("recognize", "--server", server.address, path)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    assert_reads(out.stdout, LINES, kind)


def test_tesseracts_own_test_page(server):
    """phototest.tif, Tesseract's test page (tesseract-ocr/test, testing/phototest.tif,
    Apache-2.0): a 1-bit 640x480 TIFF, the file the issue found refused."""
    out = run_cli("recognize", "--server", server.address, os.path.join(FIXTURES, "phototest.tif"))
    assert out.returncode == 0, out.stderr
    want = ("This is a lot of 12 point text to test the\nocr code and see if it works on all types\n"
            "of file format.\nThe quick brown dog jumped over the\nlazy fox. The quick brown dog jumped\n"
            "over the lazy fox. The quick brown dog\njumped over the lazy fox. The quick\n"
            "brown dog jumped over the lazy fox.")
    assert cer(out.stdout.strip(), want) < 0.02, out.stdout


# ---------------------------------------------------------------- what is sent


def sent_frames(tmp_path, *files, max_message_bytes=16 << 20):
    """The ClientMessages the CLI sent for `files` to a fake server that reads every frame."""
    server = FakeServer(str(tmp_path / "fake.sock"), lambda frame: pb.FrameResult(status=pb.FRAME_STATUS_RECOGNIZED),
                        max_message_bytes=max_message_bytes)
    out = run_cli("recognize", "--server", server.address, *files)
    server.join()
    assert out.returncode == 0, out.stderr
    return server.received


def gray_of(frame):
    assert frame.image.encoding == pb.ENCODING_GRAY8 and frame.image.stride in (0, frame.image.width)
    assert len(frame.image.data) == frame.image.width * frame.image.height
    return Image.frombytes("L", (frame.image.width, frame.image.height), frame.image.data)


def test_jpeg_and_opaque_png_are_sent_as_they_are(tmp_path):
    jpeg = str(tmp_path / "a.jpg")
    render(LINES).convert("RGB").save(jpeg, quality=90)
    png = str(tmp_path / "b.png")
    render(LINES).convert("RGB").save(png)
    palette = str(tmp_path / "c.png")
    render(LINES).convert("P").save(palette)          # a palette without transparency
    frames = [m.frame for m in sent_frames(tmp_path, jpeg, png, palette) if m.WhichOneof("message") == "frame"]
    assert [f.image.encoding for f in frames] == [pb.ENCODING_JPEG, pb.ENCODING_PNG, pb.ENCODING_PNG]
    for frame, path in zip(frames, [jpeg, png, palette]):
        with open(path, "rb") as f:
            assert frame.image.data == f.read()


def test_decoded_formats_are_sent_as_gray(tmp_path):
    bmp = write(tmp_path, "bmp-rgb")
    alpha = write(tmp_path, "png-rgba")
    one_bit = write(tmp_path, "tiff-1bit-g4")
    frames = [m.frame for m in sent_frames(tmp_path, bmp, alpha, one_bit) if m.WhichOneof("message") == "frame"]
    # Colour as gray, pixel for pixel (Leptonica's luma and Pillow's differ by rounding only).
    want = render(LINES)
    got = gray_of(frames[0])
    assert got.size == want.size
    assert max(abs(a - b) for a, b in zip(got.tobytes(), want.tobytes())) <= 1
    # Transparency flattened onto white: the text stays dark, the background turns white.
    flat = gray_of(frames[1])
    assert max(abs(a - b) for a, b in zip(flat.tobytes(), want.tobytes())) <= 2
    # A 1-bit image as a 1-bit PNG: small, and the same pixels.
    assert frames[2].image.encoding == pb.ENCODING_PNG
    png = Image.open(io.BytesIO(frames[2].image.data))
    assert png.mode == "1" and png.tobytes() == render(LINES).convert("1").tobytes()


def test_gray_over_the_message_limit_goes_as_png(tmp_path):
    bmp = write(tmp_path, "bmp-rgb")          # 760 x 200: 152,000 bytes of GRAY8
    frames = [m.frame for m in sent_frames(tmp_path, bmp, max_message_bytes=100_000)
              if m.WhichOneof("message") == "frame"]
    assert frames[0].image.encoding == pb.ENCODING_PNG
    png = Image.open(io.BytesIO(frames[0].image.data))
    assert png.mode == "L" and png.size == (760, 200)


def test_pages_are_read_even_when_they_look_alike(tmp_path):
    """Pages 2... of a file are sent in a session that reads unchanged frames (UpdateSession),
    and the user's options come back after the file."""
    tiff = multipage_tiff(str(tmp_path / "pages.tif"))
    jpeg = str(tmp_path / "a.jpg")
    render(LINES).convert("RGB").save(jpeg)
    received = sent_frames(tmp_path, jpeg, tiff, jpeg)
    kinds = [m.WhichOneof("message") for m in received]
    assert kinds == ["start", "frame", "frame", "update", "frame", "frame", "update", "frame", "end"]
    assert not received[0].start.options.recognize_unchanged
    assert received[3].update.options.recognize_unchanged
    assert not received[6].update.options.recognize_unchanged
    assert [m.frame.frame_id for m in received if m.WhichOneof("message") == "frame"] == [1, 2, 3, 4, 5]


# ---------------------------------------------------------------- what is refused


def test_a_file_that_is_no_image_is_refused_in_one_line(server, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("Not an image at all, just words.\n")
    good = write(tmp_path, "bmp-rgb")
    for server_address in (server.address, "unix:/nonexistent/x.sock"):   # refused before connecting
        out = run_cli("recognize", "--server", server_address, good, str(text))
        assert out.returncode == 64 and out.stdout == ""
        (line,) = out.stderr.splitlines()
        assert line.startswith(f"Error: {text}: not an image")
        for name in ("JPEG", "PNG", "TIFF", "BMP", "GIF", "WebP", "PNM", "JPEG 2000"):
            assert name in line, name
    pdf = tmp_path / "doc.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    for path in (pdf, empty):
        out = run_cli("recognize", "--server", server.address, str(path))
        assert out.returncode == 64 and len(out.stderr.splitlines()) == 1 and "not an image" in out.stderr


def test_truncated_images_are_reported_and_the_others_read(server, tmp_path):
    broken = []
    for kind in ("bmp-rgb", "gif", "webp-lossy", "ppm", "jpeg2000"):
        path = write(tmp_path, kind)
        with open(path, "rb") as f:
            data = f.read()
        cut = str(tmp_path / f"cut-{kind}")
        with open(cut, "wb") as f:
            f.write(data[:len(data) // 3])
        broken.append(cut)
    tiff = multipage_tiff(str(tmp_path / "pages.tif"))
    with open(tiff, "rb") as f:
        data = f.read()
    cut_tiff = str(tmp_path / "cut-pages.tif")     # pages 1 and 2 whole, page 3 cut short
    with open(cut_tiff, "wb") as f:
        f.write(data[:-5000])
    header_only = str(tmp_path / "header-only.tif")
    with open(header_only, "wb") as f:
        f.write(data[:64])
    good = write(tmp_path, "bmp-1bit")
    out = run_cli("recognize", "--server", server.address, *broken, cut_tiff, header_only, good)
    assert out.returncode == 1
    errors = out.stderr.splitlines()
    # Each is named with what went wrong, on one line, and nothing else is said (no decoder's
    # own messages).
    for path in broken:
        assert f"legible: {path}: the {kind_name(path)} image does not decode (truncated or corrupt)" in errors
    assert len(errors) == len(broken) + 2
    assert f"legible: {cut_tiff}: page 3 of the TIFF does not decode (truncated or corrupt); no later page is read" \
        in errors
    assert f"legible: {header_only}: the TIFF image does not decode (truncated or corrupt)" in errors
    # The good pages and the good file are still read; the page that did not decode is there,
    # empty, so that the file's text still splits into one part per page.
    tiff_text = out.stdout.split(f"==> {cut_tiff} <==\n")[1].split("\n==> ")[0]
    pages = tiff_text.split("\f")
    assert len(pages) == 3 and pages[2].strip() == ""
    assert_reads(pages[0], PAGES[0])
    assert_reads(pages[1], PAGES[1])
    assert f"==> {header_only} <==" not in out.stdout
    assert_reads(out.stdout.split(f"==> {good} <==\n")[1], LINES)


def kind_name(path):
    """The format's name as the CLI prints it, from write()'s file names."""
    return {"bmp": "BMP", "gif": "GIF", "webp": "WebP", "ppm": "PNM", "jpeg2000": "JPEG 2000"}[
        path.rsplit("cut-", 1)[1].split("-")[0]]


def test_stream_refuses_what_it_would_have_to_decode(tmp_path):
    tiff = multipage_tiff(str(tmp_path / "pages.tif"))
    out = run_cli("stream", "--server", "unix:/nonexistent/x.sock", "--fps", "5", tiff)
    assert out.returncode == 64
    (line,) = out.stderr.splitlines()
    assert "a TIFF image; stream sends JPEG and PNG files as they are" in line
