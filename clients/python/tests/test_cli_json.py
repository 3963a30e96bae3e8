"""`legible recognize --format json` is protobuf's JSON mapping of FrameResult (issue 14).

Each output line, less its leading "file" member (and "page" for a multi-page file), must be
read by Google's own `json_format.Parse` into a FrameResult, unknown fields refused, and give
back the message the server sent: field names as in the proto, enums by name, 64-bit integers
as strings, 32-bit ones as numbers, floats that read back to the same float32.

A real server never sets every field at once, so a fake one (a thread on a unix socket in the
test's folder, speaking the framed protocol) answers the CLI's frame with a FrameResult in
which every field, at every depth, is set to a value other than its default. A walk over the
message descriptor checks that it is so, which makes the test fail when a field is added to
the proto and not here. A last test parses what the real legibled answers with symbols,
candidates and entities on.

FakeServer is also used by test_cli_formats.py to see what the CLI sends.
"""
import json
import math
import os
import socket
import struct
import subprocess
import threading

import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from PIL import Image

from conftest import FIXTURES, REPO
from legible_client import pb

BUILD = os.path.dirname(os.environ.get("LEGIBLED", os.path.join(REPO, ".build", "debug", "legibled")))
LEGIBLE = os.path.join(BUILD, "legible")
FLOAT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]     # the largest float32
FLOAT_TINY = struct.unpack("<f", b"\x01\x00\x00\x00")[0]    # the smallest subnormal float32


# ---------------------------------------------------------------- a fake server


def _read_exactly(conn, count):
    data = b""
    while len(data) < count:
        chunk = conn.recv(count - len(data))
        if not chunk:
            return None
        data += chunk
    return data


class FakeServer:
    """A one-connection server on `path` that speaks the framed protocol: answers StartSession
    with SessionStarted, each Frame with `respond(frame)` (a FrameResult; its frame_id is set
    to the frame's), EndSession with a SessionSummary, then closes. Every ClientMessage it
    read is in `received`; a failure in its thread is raised again by `join`."""

    def __init__(self, path, respond, max_message_bytes=16 << 20):
        self.path = path
        self.respond = respond
        self.max_message_bytes = max_message_bytes
        self.received = []
        self.error = None
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(1)
        self.listener.settimeout(60)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    @property
    def address(self):
        return "unix:" + self.path

    def frames(self):
        return [m.frame for m in self.received if m.WhichOneof("message") == "frame"]

    def _send(self, conn, **message):
        body = pb.ServerMessage(**message).SerializeToString()
        conn.sendall(struct.pack(">BI", 0, len(body)) + body)

    def _run(self):
        try:
            conn, _ = self.listener.accept()
            with conn:
                summary = pb.SessionSummary()
                while True:
                    head = _read_exactly(conn, 5)
                    if head is None:
                        return
                    flag, length = struct.unpack(">BI", head)
                    assert flag == 0
                    message = pb.ClientMessage()
                    message.ParseFromString(_read_exactly(conn, length))
                    self.received.append(message)
                    kind = message.WhichOneof("message")
                    if kind == "start":
                        limits = pb.ServerLimits(max_message_bytes=self.max_message_bytes, pending_frames_per_session=1,
                                                 workers=1, replicas_per_script=1)
                        self._send(conn, started=pb.SessionStarted(
                            session_id="fake", server_version="fake 0.0.0", protocol_version=1, limits=limits,
                            available_scripts=[pb.SCRIPT_LATIN]))
                    elif kind == "frame":
                        summary.frames_received += 1
                        summary.frames_recognized += 1
                        result = pb.FrameResult()
                        result.CopyFrom(self.respond(message.frame))
                        result.frame_id = message.frame.frame_id
                        self._send(conn, result=result)
                    elif kind == "end":
                        self._send(conn, summary=summary)
                        return
        except BaseException as error:  # noqa: BLE001 - raised again in the test's thread
            self.error = error
        finally:
            self.listener.close()

    def join(self):
        self.thread.join(timeout=60)
        assert not self.thread.is_alive(), "the fake server is still running"
        if self.error is not None:
            raise self.error


def run_cli(*args, timeout=60):
    return subprocess.run([LEGIBLE, *args], capture_output=True, text=True, timeout=timeout)


def small_png(folder):
    path = os.path.join(folder, "img.png")
    Image.new("L", (8, 8), 255).save(path)
    return path


# ---------------------------------------------------------------- every field, set


def is_repeated(field):
    """`FieldDescriptor.is_repeated` (protobuf 6 and later; `label` before, removed in 7)."""
    if hasattr(field, "is_repeated"):
        return field.is_repeated
    return field.label == FieldDescriptor.LABEL_REPEATED


def unset_fields(message, path="FrameResult"):
    """The paths of the fields of `message`, at every depth, left at their defaults: a scalar
    at its zero value, a repeated field empty, a message field absent, a oneof with no member
    set. Repeated and nested messages are walked element by element."""
    missing = []
    set_oneof_members = {message.WhichOneof(o.name) for o in message.DESCRIPTOR.oneofs}
    for o in message.DESCRIPTOR.oneofs:
        if message.WhichOneof(o.name) is None:
            missing.append(f"{path}.{o.name} (oneof)")
    for field in message.DESCRIPTOR.fields:
        name = f"{path}.{field.name}"
        if field.containing_oneof is not None and field.name not in set_oneof_members:
            continue
        value = getattr(message, field.name)
        is_message = field.type == FieldDescriptor.TYPE_MESSAGE
        if is_repeated(field):
            if len(value) == 0:
                missing.append(name)
            elif is_message:
                for i, element in enumerate(value):
                    missing += unset_fields(element, f"{name}[{i}]")
        elif is_message:
            if not message.HasField(field.name):
                missing.append(name)
            else:
                missing += unset_fields(value, name)
        elif value == field.default_value:
            missing.append(name)
    return missing


def corners(rect):
    """corner_points as the server makes them (the legible client's model derives them from
    the frame): clockwise from the top-left."""
    x, y, w, h = rect.x, rect.y, rect.width, rect.height
    return [pb.Point(x=x, y=y), pb.Point(x=x + w, y=y), pb.Point(x=x + w, y=y + h), pb.Point(x=x, y=y + h)]


def full_frame_result():
    """A FrameResult with every field at every depth set to a value other than its default:
    negative int32s, uint64s above 2^53 (a double cannot hold them), float32s that need every
    digit, the largest and a subnormal float, strings with quotes, escapes, control and
    non-BMP characters."""
    counter = iter(range(1, 10_000))

    def rect():
        n = next(counter)
        return pb.Rect(x=-n, y=n * 3, width=n * 7 + 1, height=n * 2 + 1)

    def conf():
        return 0.1 + next(counter) / 997    # not exact in binary: the shortest text must read back

    def candidates(text):
        return [pb.Candidate(text=text + "\u00e9", confidence=conf()), pb.Candidate(text=text + "!", confidence=conf())]

    def symbol(text, brk):
        frame = rect()
        return pb.TextSymbol(text=text, frame=frame, corner_points=corners(frame), confidence=conf(),
                             candidates=candidates(text), recognized_break=pb.RecognizedBreak(type=brk, is_prefix=True))

    def element(text, brk):
        frame = rect()
        return pb.TextElement(
            text=text, frame=frame, corner_points=corners(frame), confidence=conf(),
            recognized_languages=[pb.RecognizedLanguage(language_code="en"), pb.RecognizedLanguage(language_code="de")],
            symbols=[symbol(c, brk) for c in text], candidates=candidates(text),
            recognized_break=pb.RecognizedBreak(type=brk, is_prefix=True))

    def line(text):
        frame = rect()
        return pb.TextLine(text=text, frame=frame, corner_points=corners(frame), confidence=conf(),
                           recognized_languages=[pb.RecognizedLanguage(language_code="en")],
                           elements=[element(w, pb.BREAK_TYPE_SPACE) for w in text.split()],
                           track_id=2**64 - 1 - next(counter), stable_frames=2**32 - 1,
                           script=pb.SCRIPT_DEVANAGARI, model="Devanagari")

    def paragraph(text):
        frame = rect()
        return pb.TextParagraph(text=text, frame=frame, corner_points=corners(frame), confidence=conf(),
                                recognized_languages=[pb.RecognizedLanguage(language_code="zh-Hant")],
                                words=[element(w, pb.BREAK_TYPE_EOL_SURE_SPACE) for w in text.split()],
                                recognized_break=pb.RecognizedBreak(type=pb.BREAK_TYPE_LINE_BREAK, is_prefix=True))

    texts = ['Say "hi" \\ tab\there', "\u2028 \U0001F600 \x01 \x85 \u2029 end"]
    frame = rect()
    block = pb.TextBlock(text="\n".join(texts), frame=frame, corner_points=corners(frame), confidence=conf(),
                         recognized_languages=[pb.RecognizedLanguage(language_code="en")],
                         lines=[line(t) for t in texts], paragraphs=[paragraph(t) for t in texts])
    text = pb.Text(text=block.text, blocks=[block], image_width=2**32 - 1, image_height=4321,
                   entities=[pb.Entity(kind=pb.ENTITY_KIND_PAYMENT_CARD, text="4111 1111 1111 1111",
                                       frames=[rect(), rect()]),
                             pb.Entity(kind=pb.ENTITY_KIND_URL, text="https://example.com/?q=\"x\"", frames=[rect()])])
    return pb.FrameResult(
        frame_id=1,     # the CLI's first frame; the fake server sets it to the frame's anyway
        status=pb.FRAME_STATUS_RECOGNIZED,
        text=text,
        timing=pb.Timing(client_timestamp_us=2**63 + 12345, queue_us=2**32 - 1, decode_us=7, recognize_us=8,
                         total_us=9),
        changes=pb.Changes(added=[2**64 - 1, 1], changed=[2**53 + 1], removed=[9007199254740993, 5]),
        quality=pb.QualityHints(sharpness=conf(), brightness=FLOAT_MAX, contrast=FLOAT_TINY,
                                median_text_height=-conf(),
                                hints=[pb.QUALITY_HINT_TEXT_TOO_SMALL, pb.QUALITY_HINT_LOW_CONTRAST]),
        error=pb.Error(code=-2147483648, message="m\u00fc\"\\", frame_id=2**64 - 2, fatal=True),
        orientation=pb.AppliedOrientation(orientation=pb.ORIENTATION_LEFT_MIRRORED, source=pb.ORIENTATION_SOURCE_OSD,
                                          osd_rotation_degrees=270, osd_confidence=conf()),
        skip_reason=pb.SKIP_REASON_MOVING, stable=True, scene_difference=1e-7, motion=123456.79,
        captures=[pb.Capture(goal="card \u2713", value="4111111111111111", frames=[rect(), rect()], confidence=conf(),
                             confirmations=2**32 - 1, captured=True)])


def test_the_fake_result_sets_every_field():
    assert unset_fields(full_frame_result()) == []
    # The walk does find what is missing, at any depth.
    partial = full_frame_result()
    partial.text.blocks[0].lines[1].elements[0].symbols[0].ClearField("recognized_break")
    partial.ClearField("motion")
    assert unset_fields(partial) == ["FrameResult.text.blocks[0].lines[1].elements[0].symbols[0].recognized_break",
                                     "FrameResult.motion"]


def float32(value):
    return struct.unpack("<f", struct.pack("<f", value))[0]


def normalized(value):
    """A JSON value with every float as the float32 it stands for (parsers print float32s
    with different digits; the value is what must survive)."""
    if isinstance(value, dict):
        return {k: normalized(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalized(v) for v in value]
    if isinstance(value, float):
        return float32(value)
    return value


def _unique_members(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), f"a member twice: {keys}"
    return dict(pairs)


def _no_bare_constants(name):
    raise AssertionError(f"{name} is not JSON (the mapping writes it as a string)")


def split_line(line):
    """One output line as (its top-level keys in order, the FrameResult's JSON text without
    "file" and "page"). Strict JSON: no member twice, no bare NaN or Infinity."""
    members = json.loads(line, object_pairs_hook=_unique_members, parse_constant=_no_bare_constants)
    keys = list(members)
    assert keys[0] == "file"
    members.pop("file")
    members.pop("page", None)
    return keys, json.dumps(members)


def frame_result_line(stdout):
    (line,) = stdout.splitlines()
    return split_line(line)


def test_every_field_survives_as_protobuf_json(tmp_path):
    sent = full_frame_result()
    server = FakeServer(str(tmp_path / "s.sock"), lambda frame: sent)
    image = small_png(str(tmp_path))
    out = run_cli("recognize", "--server", server.address, "--format", "json", image)
    server.join()
    assert out.returncode == 0, out.stderr
    # One line: the characters that split lines for some readers are escaped too.
    assert out.stdout.count("\n") == 1 and not {"\u2028", "\u2029", "\x85", "\r"} & set(out.stdout)
    keys, text = frame_result_line(out.stdout)
    assert keys[:3] == ["file", "frame_id", "status"] and "page" not in keys
    # Google's parser reads it, refusing any field the proto does not have...
    parsed = json_format.Parse(text, pb.FrameResult(), ignore_unknown_fields=False)
    # ...into exactly the message the server sent: nothing lost, renamed or changed.
    assert parsed == sent, (str(parsed)[:2000], str(sent)[:2000])
    assert unset_fields(parsed) == []
    # And it is what protobuf itself prints, field for field (defaults included on both sides).
    printed = json.loads(json_format.MessageToJson(parsed, preserving_proto_field_name=True,
                                                   always_print_fields_with_no_presence=True))
    assert normalized(json.loads(text)) == normalized(printed)
    # The mapping's spellings, checked where they differ from plain JSON numbers.
    ours = json.loads(text)
    assert ours["frame_id"] == "1" and ours["timing"]["client_timestamp_us"] == str(2**63 + 12345)
    assert ours["timing"]["queue_us"] == 2**32 - 1 and ours["text"]["image_width"] == 2**32 - 1
    assert ours["changes"]["added"] == [str(2**64 - 1), "1"] and ours["error"]["frame_id"] == str(2**64 - 2)
    assert ours["error"]["code"] == -2147483648 and ours["orientation"]["osd_rotation_degrees"] == 270
    assert isinstance(ours["text"]["blocks"][0]["lines"][0]["track_id"], str)
    assert ours["status"] == "FRAME_STATUS_RECOGNIZED" and ours["skip_reason"] == "SKIP_REASON_MOVING"
    assert ours["text"]["entities"][0]["kind"] == "ENTITY_KIND_PAYMENT_CARD"
    assert ours["quality"]["hints"] == ["QUALITY_HINT_TEXT_TOO_SMALL", "QUALITY_HINT_LOW_CONTRAST"]
    assert ours["quality"]["brightness"] <= FLOAT_MAX and float32(ours["quality"]["contrast"]) == FLOAT_TINY


def test_defaults_and_non_finite_floats(tmp_path):
    """A result with almost nothing set: scalars print at their defaults (parsed back as
    defaults), absent messages stay absent; NaN and the infinities are the mapping's strings."""
    sent = pb.FrameResult(status=pb.FRAME_STATUS_RECOGNIZED, scene_difference=math.inf, motion=-math.inf,
                          quality=pb.QualityHints(sharpness=math.nan))
    server = FakeServer(str(tmp_path / "s.sock"), lambda frame: sent)
    out = run_cli("recognize", "--server", server.address, "--format", "json", small_png(str(tmp_path)))
    server.join()
    assert out.returncode == 0, out.stderr
    _, text = frame_result_line(out.stdout)
    ours = json.loads(text)
    assert ours["scene_difference"] == "Infinity" and ours["motion"] == "-Infinity"
    assert ours["quality"]["sharpness"] == "NaN" and ours["quality"]["hints"] == []
    assert ours["skip_reason"] == "SKIP_REASON_UNSPECIFIED" and ours["stable"] is False
    assert not {"text", "timing", "changes", "error", "orientation"} & set(ours)
    parsed = json_format.Parse(text, pb.FrameResult(), ignore_unknown_fields=False)
    assert math.isnan(parsed.quality.sharpness) and parsed.scene_difference == math.inf
    assert parsed.motion == -math.inf and parsed.frame_id == 1
    assert not parsed.HasField("text") and not parsed.HasField("timing") and parsed.HasField("quality")


# ---------------------------------------------------------------- the real server


ENTITY_LINES = ["Call (555) 123-4567 today", "Mail info@example.com", "Visit https://example.com/shop",
                "Open 17 May 2024"]


def entities_png(folder):
    """Black DejaVu Sans on white: a phone number, an e-mail address, a URL and a date."""
    from PIL import ImageDraw, ImageFont
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 30)
    image = Image.new("L", (900, 260), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(ENTITY_LINES):
        draw.text((30, 20 + i * 58), line, font=font, fill=0)
    path = os.path.join(folder, "entities.png")
    image.save(path)
    return path


@pytest.mark.parametrize("mode", ["text", "document"])
def test_real_results_parse_and_round_trip(server, mode, tmp_path):
    camera = os.path.join(FIXTURES, "camera-720p.jpg")
    entities = entities_png(str(tmp_path))
    out = run_cli("recognize", "--server", server.address, "--format", "json", "--mode", mode, "--symbols",
                  "--max-candidates", "2", "--entities", "--recognize-unchanged", camera, entities)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 2
    results = []
    for line, file in zip(lines, [camera, entities]):
        keys, text = split_line(line)
        assert json.loads(line)["file"] == file and "page" not in keys
        parsed = json_format.Parse(text, pb.FrameResult(), ignore_unknown_fields=False)
        printed = json.loads(json_format.MessageToJson(parsed, preserving_proto_field_name=True,
                                                       always_print_fields_with_no_presence=True))
        assert normalized(json.loads(text)) == normalized(printed)
        results.append(parsed)
    for frame_id, result in enumerate(results, 1):
        assert result.status == pb.FRAME_STATUS_RECOGNIZED and result.frame_id == frame_id
        assert result.timing.total_us > 0 and result.HasField("orientation") and result.HasField("quality")
        words = [w for b in result.text.blocks for w in
                 ([e for ln in b.lines for e in ln.elements] if mode == "text"
                  else [w for p in b.paragraphs for w in p.words])]
        assert words and all(w.symbols for w in words) and any(w.candidates for w in words)
        assert all(ln.track_id for b in result.text.blocks for ln in b.lines)
    assert {e.kind for e in results[1].text.entities} == {
        pb.ENTITY_KIND_PHONE_NUMBER, pb.ENTITY_KIND_EMAIL_ADDRESS, pb.ENTITY_KIND_URL, pb.ENTITY_KIND_DATE}
