"""Frames in: every encoding in every orientation, EXIF, auto-orientation (OSD), regions of
interest, quality hints and the input guards, end to end against the real legibled.

The frames come from scripts/camera_frames.py (deterministic; its truth boxes are ink boxes
after the perspective warp, in upright pixels). Frames are sent one at a time and each result
awaited, so none is dropped by the latest-wins slot.
"""
import functools
import io
import os
import statistics
import struct
import sys
import zlib

import numpy as np
import pytest
from PIL import Image

from conftest import REPO
from legible_client import Stream, build_image, pb, sensor_to_upright, upright_size, upright_to_sensor
from test_end_to_end import cer, end, start

sys.path.insert(0, os.path.join(REPO, "scripts"))
import camera_frames as cf  # noqa: E402

INVALID_ARGUMENT, RESOURCE_EXHAUSTED = 3, 8

# Bounds. On these clean synthetic frames Tesseract reads every word exactly and its word boxes
# are within 1 px of the truth (measured with JPEG and GRAY8 upright); the bounds leave room for
# a server whose decoders differ slightly, not for a wrong transform.
MAX_CER = 0.02          # character error rate of a frame's whole text against the truth
MAX_CER_SPREAD = 0.01   # largest minus smallest per-orientation mean CER
BOX_TOLERANCE = 3       # px, on each edge of a word's box, in upright coordinates
WRONG_CER = 0.3         # a frame read the wrong way up: at least this many character errors


def assert_read_as_sent(result, truth):
    """The frame was read as sent, not turned upright: its text is wrong, or — a frame turned a
    quarter, whose lines the line reader reads along their length — every line runs down or up
    the frame as sent (a tall box) instead of across it."""
    if cer(result.text.text, cf.truth_text(truth)) <= WRONG_CER:
        lines = [line for block in result.text.blocks for line in block.lines]
        assert lines and all(line.frame.height > 2 * line.frame.width for line in lines), result.text.text

ALL_ORIENTATIONS = list(range(1, 9))
ENCODINGS = list(cf.ENCODINGS.items())   # name -> pb.Encoding number
OSD_ROTATION = {pb.ORIENTATION_RIGHT: 90, pb.ORIENTATION_DOWN: 180, pb.ORIENTATION_LEFT: 270}


# ---------------------------------------------------------------- frames (generated once)

@functools.lru_cache(maxsize=None)
def the_scene():
    return cf.scene()


@functools.lru_cache(maxsize=None)
def odd_scene():
    return cf.scene(width=641, height=479)


@functools.lru_cache(maxsize=None)
def the_page():
    return cf.page()


@functools.lru_cache(maxsize=None)
def quality_frames():
    return cf.quality_frames()


def jpeg(image, quality=92):
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=quality)
    return buffer.getvalue()


def png(image):
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def encoded(stored, encoding):
    """The pb.Image of a stored RGB image in one encoding (generator layout, padded strides)."""
    data, width, height, stride = cf.encode(stored, encoding)
    return build_image(encoding, data, width, height, stride)


# ---------------------------------------------------------------- protocol helpers

def session(server, **options):
    stream = Stream(server.address)
    start(stream, **options)
    return stream


def recognize(stream, frame_id, image, orientation=pb.ORIENTATION_UP, roi=None):
    """Sends one frame and returns its FrameResult (the next message must be it)."""
    frame = pb.Frame(frame_id=frame_id, image=image, orientation=orientation)
    if roi is not None:
        frame.region_of_interest.CopyFrom(rect(*roi))
    stream.send(pb.ClientMessage(frame=frame))
    message = stream.receive()
    assert message is not None and message.WhichOneof("message") == "result", message
    assert message.result.frame_id == frame_id, message
    return message.result


def rect(x, y, width, height):
    return pb.Rect(x=x, y=y, width=width, height=height)


def around(box, margin=12):
    """An ROI (x, y, w, h) a margin around a truth box."""
    x, y, w, h = box
    return (x - margin, y - margin, w + 2 * margin, h + 2 * margin)


def words_of(result):
    return [e for b in result.text.blocks for line in b.lines for e in line.elements]


def edge_error(box, frame):
    x, y, w, h = box
    return max(abs(frame.x - x), abs(frame.y - y),
               abs(frame.x + frame.width - (x + w)), abs(frame.y + frame.height - (y + h)))


def unmatched_words(result, lines, tolerance=BOX_TOLERANCE):
    """Truth words with no result word of the same text within `tolerance` px on every edge."""
    words = words_of(result)
    missing = []
    for line in lines:
        for word in line["words"]:
            errors = [edge_error(word["box"], w.frame) for w in words if w.text == word["text"]]
            if not errors or min(errors) > tolerance:
                missing.append((word["text"], word["box"], min(errors) if errors else None))
    return missing


def text_of(lines):
    return "\n".join(line["text"] for line in lines)


def assert_reads(result, truth, lines=None):
    """Recognized, the text within MAX_CER, every word's box within BOX_TOLERANCE, upright size."""
    lines = truth["lines"] if lines is None else lines
    assert result.status == pb.FRAME_STATUS_RECOGNIZED, result
    assert cer(result.text.text, text_of(lines)) <= MAX_CER, result.text.text
    assert unmatched_words(result, lines) == []
    assert (result.text.image_width, result.text.image_height) == (truth["width"], truth["height"])


def assert_failed(result, code):
    assert result.status == pb.FRAME_STATUS_FAILED, result
    assert result.error.code == code, result.error
    assert result.error.message, "a failed frame says why"
    assert not result.error.fatal


def assert_orientation(result, orientation, source):
    applied = result.orientation
    assert (applied.orientation, applied.source) == (orientation, source), applied


# ---------------------------------------------------------------- every encoding x orientation

@pytest.fixture(scope="module")
def matrix(server):
    """The scene stored in each of the 8 orientations x 7 encodings, one session, one at a time.

    Returns {(orientation, encoding name): (FrameResult, stored image)} and the summary.
    """
    upright, _ = the_scene()
    stream = session(server)
    results = {}
    frame_id = 0
    for orientation in ALL_ORIENTATIONS:
        stored = cf.to_stored(upright, orientation)
        for name, encoding in ENCODINGS:
            frame_id += 1
            results[orientation, name] = (recognize(stream, frame_id, encoded(stored, encoding), orientation), stored)
    rest, summary = end(stream)
    assert rest == []
    return results, summary


def test_matrix_every_frame_answered_once_and_recognized(matrix):
    results, summary = matrix
    assert len({r.frame_id for r, _ in results.values()}) == 56
    failed = {key: (r.status, r.error.code, r.error.message) for key, (r, _) in results.items()
              if r.status != pb.FRAME_STATUS_RECOGNIZED}
    assert failed == {}
    assert (summary.frames_received, summary.frames_recognized) == (56, 56)


def test_matrix_reads_the_text_in_every_encoding_and_orientation(matrix):
    _, truth = the_scene()
    want = cf.truth_text(truth)
    bad = {key: round(cer(r.text.text, want), 3) for key, (r, _) in matrix[0].items()
           if cer(r.text.text, want) > MAX_CER}
    assert bad == {}


def test_matrix_cer_does_not_depend_on_orientation(matrix):
    _, truth = the_scene()
    want = cf.truth_text(truth)
    means = {o: statistics.mean(cer(matrix[0][o, name][0].text.text, want) for name, _ in ENCODINGS)
             for o in ALL_ORIENTATIONS}
    print("\nper-orientation mean CER:", {o: round(m, 4) for o, m in means.items()})
    assert max(means.values()) - min(means.values()) <= MAX_CER_SPREAD, means


def test_matrix_word_boxes_are_in_upright_coordinates(matrix):
    _, truth = the_scene()
    bad = {key: unmatched_words(r, truth["lines"]) for key, (r, _) in matrix[0].items()}
    assert {key: missing for key, missing in bad.items() if missing} == {}


def test_matrix_reports_upright_size_and_client_orientation(matrix):
    _, truth = the_scene()
    bad = {}
    for (orientation, name), (r, stored) in matrix[0].items():
        got = (r.text.image_width, r.text.image_height, r.orientation.orientation, r.orientation.source)
        want = (truth["width"], truth["height"], orientation, pb.ORIENTATION_SOURCE_CLIENT)
        if got != want:
            bad[orientation, name] = got
    assert bad == {}


@pytest.mark.parametrize("name", ["GRAY8", "NV12", "I420", "BGRA8"])
def test_odd_sized_raw_frames_read_right(server, name):
    upright, truth = odd_scene()
    stream = session(server)
    for frame_id, orientation in enumerate([pb.ORIENTATION_UP, pb.ORIENTATION_RIGHT], 1):
        stored = cf.to_stored(upright, orientation)
        result = recognize(stream, frame_id, encoded(stored, cf.ENCODINGS[name]), orientation)
        assert_reads(result, truth)
        assert_orientation(result, orientation, pb.ORIENTATION_SOURCE_CLIENT)


def test_raw_frames_with_the_minimum_stride_read_right(server):
    upright, truth = odd_scene()
    stream = session(server)
    for frame_id, (name, encoding) in enumerate(ENCODINGS[2:], 1):
        data, width, height, stride = cf.encode(upright, encoding, stride_padding=False)
        for sent_stride in (stride, 0):   # 0 means the minimum
            result = recognize(stream, frame_id * 2 + (sent_stride == 0),
                               build_image(encoding, data, width, height, sent_stride))
            assert_reads(result, truth)


# ---------------------------------------------------------------- upright_to_sensor

def test_upright_to_sensor_and_back_are_inverse_and_crop_the_same_pixels():
    rng = np.random.default_rng(7)
    upright = Image.fromarray(rng.integers(0, 256, (37, 53), dtype=np.uint8), "L")
    for orientation in ALL_ORIENTATIONS:
        stored = cf.to_stored(upright, orientation)
        assert upright_size(orientation, *stored.size) == upright.size
        for box in [(0, 0, 53, 37), (5, 7, 11, 13), (40, 30, 13, 7)]:
            s = upright_to_sensor(box, orientation, *stored.size)
            assert sensor_to_upright(s, orientation, *stored.size) == box
            crop = stored.crop((s[0], s[1], s[0] + s[2], s[1] + s[3]))
            want = upright.crop((box[0], box[1], box[0] + box[2], box[1] + box[3]))
            assert np.array_equal(np.asarray(cf.to_upright(crop, orientation)), np.asarray(want)), (orientation, box)
        as_rect = upright_to_sensor(rect(5, 7, 11, 13), orientation, *stored.size)
        assert isinstance(as_rect, pb.Rect)
        assert (as_rect.x, as_rect.y, as_rect.width, as_rect.height) == upright_to_sensor((5, 7, 11, 13), orientation, *stored.size)


@pytest.mark.parametrize("orientation", [2, 3, 5, 6, 7, 8])
def test_result_boxes_mapped_to_the_sensor_crop_the_same_ink(matrix, orientation):
    upright, _ = the_scene()
    result, stored = matrix[0][orientation, "GRAY8"]
    gray_up, gray_stored = upright.convert("L"), stored.convert("L")
    words = words_of(result)
    assert words
    for word in words:
        f = word.frame
        s = upright_to_sensor(f, orientation, *stored.size)
        crop = gray_stored.crop((s.x, s.y, s.x + s.width, s.y + s.height))
        want = gray_up.crop((f.x, f.y, f.x + f.width, f.y + f.height))
        assert np.array_equal(np.asarray(cf.to_upright(crop, orientation)), np.asarray(want)), word.text
        assert np.asarray(crop).min() < 110, f"no ink in the sensor crop of {word.text!r}"


# ---------------------------------------------------------------- EXIF

@pytest.mark.parametrize("orientation", [pb.ORIENTATION_RIGHT, pb.ORIENTATION_DOWN, pb.ORIENTATION_LEFT,
                                         pb.ORIENTATION_UP_MIRRORED])
def test_exif_orientation_is_applied_when_the_frame_does_not_say(server, orientation):
    upright, truth = the_scene()
    stored = cf.to_stored(upright, orientation)
    image = build_image(pb.ENCODING_JPEG, cf.jpeg_with_exif(stored, orientation))
    stream = session(server)
    result = recognize(stream, 1, image, pb.ORIENTATION_UNSPECIFIED)
    assert_reads(result, truth)
    assert_orientation(result, orientation, pb.ORIENTATION_SOURCE_EXIF)
    # The frame's own orientation wins over EXIF: read as sent, in the stored frame's geometry.
    result = recognize(stream, 2, image, pb.ORIENTATION_UP)
    assert result.status == pb.FRAME_STATUS_RECOGNIZED
    assert_orientation(result, pb.ORIENTATION_UP, pb.ORIENTATION_SOURCE_CLIENT)
    assert (result.text.image_width, result.text.image_height) == stored.size
    assert_read_as_sent(result, truth)


def test_no_exif_and_no_orientation_means_up_by_default(server):
    upright, truth = the_scene()
    stream = session(server)
    for frame_id, image in enumerate([build_image(pb.ENCODING_JPEG, jpeg(upright)), encoded(upright, pb.ENCODING_GRAY8)], 1):
        result = recognize(stream, frame_id, image, pb.ORIENTATION_UNSPECIFIED)
        assert_reads(result, truth)
        assert_orientation(result, pb.ORIENTATION_UP, pb.ORIENTATION_SOURCE_DEFAULT)


# ---------------------------------------------------------------- auto orientation (OSD)

@pytest.mark.parametrize("stored_as,sent,encoding", [
    (pb.ORIENTATION_RIGHT, pb.ORIENTATION_UP, pb.ENCODING_JPEG),
    (pb.ORIENTATION_DOWN, pb.ORIENTATION_UNSPECIFIED, pb.ENCODING_JPEG),
    (pb.ORIENTATION_LEFT, pb.ORIENTATION_UP, pb.ENCODING_GRAY8),
])
def test_auto_orientation_turns_a_rotated_page_upright(server, stored_as, sent, encoding):
    upright, truth = the_page()
    image = encoded(cf.to_stored(upright, stored_as), encoding)
    stream = session(server, auto_orientation=True)
    result = recognize(stream, 1, image, sent)
    assert_reads(result, truth)
    applied = result.orientation
    assert applied.source == pb.ORIENTATION_SOURCE_OSD, applied
    # The stored pixels were turned upright by the stored orientation in all.
    assert applied.orientation == stored_as, applied
    assert applied.osd_rotation_degrees == OSD_ROTATION[stored_as], applied
    assert applied.osd_confidence > 0, applied
    # Without auto_orientation the same frame is read as sent: not right.
    plain = session(server)
    result = recognize(plain, 1, image, sent)
    assert result.status == pb.FRAME_STATUS_RECOGNIZED
    assert result.orientation.source != pb.ORIENTATION_SOURCE_OSD
    assert_read_as_sent(result, truth)


def test_auto_orientation_leaves_an_upright_page_up(server):
    upright, truth = the_page()
    stream = session(server, auto_orientation=True)
    result = recognize(stream, 1, build_image(pb.ENCODING_JPEG, jpeg(upright)), pb.ORIENTATION_UP)
    assert_reads(result, truth)
    assert result.orientation.orientation == pb.ORIENTATION_UP, result.orientation
    assert result.orientation.source == pb.ORIENTATION_SOURCE_CLIENT, result.orientation
    assert result.orientation.osd_rotation_degrees == 0, result.orientation


# ---------------------------------------------------------------- region of interest

def test_session_roi_reads_only_that_line_in_full_image_coordinates(server):
    upright, truth = the_scene()
    lines = truth["lines"]
    stream = session(server, region_of_interest=rect(*around(lines[1]["box"])))
    result = recognize(stream, 1, encoded(upright, pb.ENCODING_JPEG))
    assert_reads(result, truth, lines=[lines[1]])
    for other in lines[:1] + lines[2:]:
        assert other["words"][0]["text"] not in result.text.text


def test_frame_roi_overrides_the_session_roi(server):
    upright, truth = the_scene()
    lines = truth["lines"]
    stream = session(server, region_of_interest=rect(*around(lines[1]["box"])))
    result = recognize(stream, 1, encoded(upright, pb.ENCODING_GRAY8), roi=around(lines[3]["box"]))
    assert_reads(result, truth, lines=[lines[3]])
    # The next frame without its own ROI is back to the session's.
    result = recognize(stream, 2, encoded(upright, pb.ENCODING_GRAY8))
    assert_reads(result, truth, lines=[lines[1]])


def test_roi_partly_outside_the_image_is_clipped(server):
    upright, truth = the_scene()
    line = truth["lines"][2]
    x, y, w, h = around(line["box"])
    stream = session(server)
    result = recognize(stream, 1, encoded(upright, pb.ENCODING_JPEG), roi=(-200, y, truth["width"] + 400, h))
    assert_reads(result, truth, lines=[line])


def test_bad_rois_fail_that_frame_only(server):
    upright, truth = the_scene()
    image = encoded(upright, pb.ENCODING_GRAY8)
    stream = session(server)
    for frame_id, roi in enumerate([(truth["width"] + 10, 0, 100, 100),   # wholly right of the image
                                    (-300, -300, 200, 200),               # wholly above-left
                                    (100, 100, 0, 50),                    # empty: width 0
                                    (100, 100, 50, 0)], 1):               # empty: height 0
        assert_failed(recognize(stream, frame_id, image, roi=roi), INVALID_ARGUMENT)
    line = truth["lines"][0]
    assert_reads(recognize(stream, 9, image, roi=around(line["box"])), truth, lines=[line])
    _, summary = end(stream)
    assert (summary.frames_received, summary.frames_failed, summary.frames_recognized) == (5, 4, 1)


@pytest.mark.parametrize("orientation", [pb.ORIENTATION_RIGHT, pb.ORIENTATION_DOWN_MIRRORED])
def test_roi_is_in_upright_coordinates_of_a_rotated_frame(server, orientation):
    upright, truth = the_scene()
    line = truth["lines"][4]
    stream = session(server)
    image = encoded(cf.to_stored(upright, orientation), pb.ENCODING_NV12)
    result = recognize(stream, 1, image, orientation, roi=around(line["box"]))
    assert_reads(result, truth, lines=[line])


# ---------------------------------------------------------------- quality hints

def gray_stats(image):
    gray = np.asarray(image.convert("L"), np.float64)
    return gray.mean(), np.percentile(gray, 99) - np.percentile(gray, 1)


def test_quality_hints_fire_on_their_frames_only(server):
    frames = quality_frames()
    stream = session(server)
    got = {}
    for frame_id, (name, (image, _)) in enumerate(frames.items(), 1):
        result = recognize(stream, frame_id, build_image(pb.ENCODING_JPEG, jpeg(image)))
        assert result.status == pb.FRAME_STATUS_RECOGNIZED, result
        q = result.quality
        got[name] = q
        mean, spread = gray_stats(image)
        print(f"\nquality {name:15s} sharpness={q.sharpness:9.2f} brightness={q.brightness:6.1f} "
              f"contrast={q.contrast:6.1f} median_text_height={q.median_text_height:5.1f} "
              f"hints={[pb.QualityHint.Name(h) for h in q.hints]}  (client: mean={mean:.1f} p1-p99={spread:.1f})")
    want = {"blurry": pb.QUALITY_HINT_BLURRY, "too_dark": pb.QUALITY_HINT_TOO_DARK,
            "low_contrast": pb.QUALITY_HINT_LOW_CONTRAST, "text_too_small": pb.QUALITY_HINT_TEXT_TOO_SMALL}
    assert list(got["clean"].hints) == [], got["clean"]
    for name, hint in want.items():
        assert hint in got[name].hints, (name, got[name])
        # Exposure is not focus: a dark or flat frame is not also called blurry.
        assert name == "blurry" or pb.QUALITY_HINT_BLURRY not in got[name].hints, (name, got[name])
        assert list(got[name].hints) == sorted(got[name].hints), "hints come in enum order"
    clean = got["clean"]
    assert got["blurry"].sharpness < clean.sharpness / 4
    assert got["too_dark"].brightness < 40 < clean.brightness
    assert got["low_contrast"].contrast < clean.contrast / 4
    assert 0 <= got["text_too_small"].median_text_height < 16 <= clean.median_text_height
    for name, q in got.items():
        mean, spread = gray_stats(frames[name][0])
        assert abs(q.brightness - mean) < 6, (name, q.brightness, mean)
        assert abs(q.contrast - spread) < 6, (name, q.contrast, spread)
        assert q.sharpness > 0 and 0 <= q.contrast <= 255
    _, truth = frames["clean"]
    heights = [w["box"][3] for line in truth["lines"] for w in line["words"]]
    assert abs(clean.median_text_height - statistics.median(heights)) <= 4


def test_quality_is_measured_inside_the_roi(server):
    upright, truth = the_scene()
    line = truth["lines"][0]
    stream = session(server)
    whole = recognize(stream, 1, encoded(upright, pb.ENCODING_GRAY8))
    part = recognize(stream, 2, encoded(upright, pb.ENCODING_GRAY8), roi=around(line["box"]))
    x, y, w, h = around(line["box"])
    mean, _ = gray_stats(upright.crop((x, y, x + w, y + h)))
    assert abs(part.quality.brightness - mean) < 6, (part.quality.brightness, mean)
    assert part.quality.brightness < whole.quality.brightness   # more ink per pixel in the line


# ---------------------------------------------------------------- guards

def small_jpeg(width=64, height=48):
    return jpeg(Image.new("L", (width, height), 200))


def jpeg_claiming(width, height):
    """A small baseline JPEG whose SOF0 header claims width x height."""
    data = bytearray(small_jpeg())
    at = data.index(b"\xff\xc0")
    # FFC0, length (2), precision (1), height (2), width (2)
    data[at + 5:at + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def png_claiming(width, height):
    """A small PNG whose IHDR claims width x height (CRC recomputed)."""
    data = bytearray(png(Image.new("L", (64, 48), 200)))
    assert data[12:16] == b"IHDR"
    data[16:24] = struct.pack(">II", width, height)
    data[29:33] = struct.pack(">I", zlib.crc32(bytes(data[12:29])))
    return bytes(data)


def raw_short_by_one(encoding, width=65, height=49):
    data, w, h, stride = cf.encode(Image.new("RGB", (width, height), (200, 180, 160)), encoding)
    assert len(data) == cf.required_length(encoding, w, h, stride)
    return build_image(encoding, data[:-1], w, h, stride)


def guard_cases():
    upright, _ = the_scene()
    scene_jpeg, scene_png = jpeg(upright), png(upright)
    gray = bytes(64 * 48)
    rng = np.random.default_rng(3)
    return [
        ("JPEG claiming 20000x20000", build_image(pb.ENCODING_JPEG, jpeg_claiming(20000, 20000)), RESOURCE_EXHAUSTED),
        ("JPEG claiming 17000x100", build_image(pb.ENCODING_JPEG, jpeg_claiming(17000, 100)), RESOURCE_EXHAUSTED),
        ("PNG claiming 20000x20000", build_image(pb.ENCODING_PNG, png_claiming(20000, 20000)), RESOURCE_EXHAUSTED),
        ("truncated JPEG", build_image(pb.ENCODING_JPEG, scene_jpeg[:len(scene_jpeg) // 2]), INVALID_ARGUMENT),
        ("garbage as JPEG", build_image(pb.ENCODING_JPEG, rng.integers(0, 256, 5000, dtype=np.uint8).tobytes()), INVALID_ARGUMENT),
        ("truncated PNG", build_image(pb.ENCODING_PNG, scene_png[:len(scene_png) // 2]), INVALID_ARGUMENT),
        ("GRAY8 one byte short", raw_short_by_one(pb.ENCODING_GRAY8), INVALID_ARGUMENT),
        ("BGRA8 one byte short", raw_short_by_one(pb.ENCODING_BGRA8), INVALID_ARGUMENT),
        ("NV12 one byte short", raw_short_by_one(pb.ENCODING_NV12), INVALID_ARGUMENT),
        ("I420 one byte short", raw_short_by_one(pb.ENCODING_I420), INVALID_ARGUMENT),
        ("GRAY8 stride < width", build_image(pb.ENCODING_GRAY8, gray, 64, 48, 63), INVALID_ARGUMENT),
        ("BGRA8 stride < 4 * width", build_image(pb.ENCODING_BGRA8, bytes(4 * 64 * 48), 64, 48, 255), INVALID_ARGUMENT),
        ("NV12 stride < width rounded up to even", build_image(pb.ENCODING_NV12, bytes(66 * 75), 65, 49, 65), INVALID_ARGUMENT),
        ("GRAY8 width 0", build_image(pb.ENCODING_GRAY8, gray, 0, 48, 64), INVALID_ARGUMENT),
        ("GRAY8 height 0", build_image(pb.ENCODING_GRAY8, gray, 64, 0, 64), INVALID_ARGUMENT),
    ]


def test_guards_fail_that_frame_with_its_code_and_the_session_goes_on(server):
    upright, truth = odd_scene()
    good = encoded(upright, pb.ENCODING_GRAY8)
    stream = session(server)
    frame_id = 0
    wrong = {}
    for name, image, code in guard_cases():
        frame_id += 1
        result = recognize(stream, frame_id, image)
        if (result.status, result.error.code) != (pb.FRAME_STATUS_FAILED, code) or not result.error.message:
            wrong[name] = (pb.FrameStatus.Name(result.status), result.error.code, result.error.message)
        frame_id += 1
        after = recognize(stream, frame_id, good)
        if after.status != pb.FRAME_STATUS_RECOGNIZED or cer(after.text.text, cf.truth_text(truth)) > MAX_CER:
            wrong[name + ", then a good frame"] = (pb.FrameStatus.Name(after.status), after.error.message)
    assert wrong == {}
    _, summary = end(stream)
    n = len(guard_cases())
    assert (summary.frames_received, summary.frames_failed, summary.frames_recognized) == (2 * n, n, n)


def test_tiny_images_are_recognized_as_empty(server):
    stream = session(server)
    for frame_id, image in enumerate([build_image(pb.ENCODING_GRAY8, bytes([200] * 16), 4, 4, 4),
                                      build_image(pb.ENCODING_JPEG, small_jpeg(1, 1))], 1):
        result = recognize(stream, frame_id, image)
        assert result.status == pb.FRAME_STATUS_RECOGNIZED, result
        assert result.text.text == "" and len(result.text.blocks) == 0, result.text
