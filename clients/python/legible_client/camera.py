"""legible camera client: streams a webcam, a video file or an image folder to legibled and shows
what it reads.

    python3 -m legible_client.camera --source clip.mp4 --out-video annotated.mp4

Threads, and why none of them ever queues frames:

    main:     capture at the source's rate ─▶ Mailbox.offer() (refused → skipped locally)
                                              └▶ Timeline.add() (only when drawing)
    sender:   Mailbox.take() → encode → Stream.send()   (one frame in flight at most)
    receiver: Stream.receive() → Ledger (latency) → print → Timeline.resolve()
    render:   Timeline.next() → draw_overlay() → PNG/JPEG files, MP4, window handoff

At the end (source exhausted, --max-frames, --duration, q in the window, Ctrl-C or SIGTERM) the
client sends EndSession, waits for the server's SessionSummary and checks that every frame it
sent got exactly one result.
"""
from __future__ import annotations

import argparse
import math
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from . import Stream, TLSFiles, pb
from .frames import ENCODINGS, LEVELS, MODES, ORIENTATIONS, SCRIPTS, STATUS_NAMES, encode_frame, parse_orientation
from .ledger import Answer, Ledger, percentile
from .mailbox import Mailbox, MailboxClosed
from .output import OutputError, Renderer, Timeline, window_support
from .overlay import Box, lines_of
from .sources import Source, SourceError, open_source

PROG = "python3 -m legible_client.camera"
CLIENT_NAME = "legible-camera/0.1"
EXIT_OK, EXIT_FRAMES_FAILED, EXIT_ENVIRONMENT, EXIT_USAGE = 0, 1, 2, 64
DEFAULT_SERVERS = ("unix:legible.sock", "tcp:127.0.0.1:7480")
SEND_TIMEOUT = 30.0       # s the last send may stay blocked at the end before giving up
SUMMARY_TIMEOUT = 120.0   # s to wait for the SessionSummary after EndSession
STATUS_CODES = {3: "INVALID_ARGUMENT", 4: "DEADLINE_EXCEEDED", 8: "RESOURCE_EXHAUSTED", 9: "FAILED_PRECONDITION",
                12: "UNIMPLEMENTED", 13: "INTERNAL", 14: "UNAVAILABLE", 16: "UNAUTHENTICATED"}


class CameraError(Exception):
    """Ends the run with a message on stderr and `exit_code`."""

    def __init__(self, message: str, exit_code: int = EXIT_ENVIRONMENT) -> None:
        super().__init__(message)
        self.exit_code = exit_code


# ---------------------------------------------------------------- command line

DESCRIPTION = """\
Streams frames from a webcam, a video file or a folder of images to a Legible server
(legibled) and reports what it reads: one line per frame with its status and latency, and at
the end a summary checked against the server's SessionSummary. Draws the recognized lines and
words on the frames: in a window (--show), as image files (--out-dir) or as an MP4 (--out-video).

Frames are captured at the source's rate and never queued: while the previous frame is still
being sent (the socket is full) a new frame is skipped locally and counted."""

EPILOG = f"""\
sources (--source):
  /dev/video0, 0      a webcam, by device or index; frames come at the camera's own rate
  clip.mp4            a video file, played at its own fps (or --fps)
  shots/              a folder of images, in name order, at --fps (default 10)

orientations (--orientation): how the stored pixels turn upright, EXIF 1..8:
  {", ".join(f"{name} ({number})" for name, number in ORIENTATIONS.items())}

output:
  one line per frame on stdout:  frame ID STATUS LATENCY [lines and text]
  STATUS is recognized, dropped, skipped (the server's), failed (with its code) or
  skipped locally; LATENCY runs from sending the frame to its result. Then a summary:
  frames sent and skipped locally, counts per status, latency p50/p90/p99, and the
  server's SessionSummary. Boxes: words blue, lines orange, stable lines green.

examples:
  # watch a webcam through the local server (needs opencv-python, not -headless)
  {PROG} --source /dev/video0 --show

  # a portrait phone video, headless: an annotated MP4 and a summary
  {PROG} --source clip.mp4 --orientation right --out-video annotated.mp4

  # stills at 2 fps over TCP, boxes drawn back on the stored (sensor) frames
  {PROG} --source shots/ --fps 2 --server tcp:10.0.0.5:7480 --draw-on sensor --out-dir out/

  # ten seconds of a webcam, accurate level, only a region of interest, summary only
  {PROG} --source 0 --duration 10 --level accurate --roi 100,200,800,300 --quiet

exit status:
  0   every frame sent was answered exactly once and none failed
  1   some frames failed, the results did not add up against the SessionSummary, or
      a --capture goal was not captured
  2   cannot reach the server, the session broke, or the environment lacks something
      (camera busy, OpenCV without a GUI for --show, no MP4 encoder)
  64  usage error: a bad flag or value, or no such source
"""


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors exit 64 (EX_USAGE) rather than 2, which means "environment" here."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _roi(text: str) -> Box:
    try:
        x, y, w, h = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected x,y,w,h in pixels, got {text!r}") from None
    if w <= 0 or h <= 0 or x < 0 or y < 0:
        raise argparse.ArgumentTypeError(f"need x, y >= 0 and w, h > 0, got {text!r}")
    return x, y, w, h


def _server(text: str) -> str:
    if not (text.startswith("unix:") and len(text) > 5) and not (text.startswith("tcp:") and ":" in text[4:]):
        raise argparse.ArgumentTypeError(f"expected unix:PATH or tcp:HOST:PORT, got {text!r}")
    return text


def _orientation(text: str) -> int:
    try:
        return parse_orientation(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _positive(kind: type) -> Callable[[str], Any]:
    """An argparse type: a number of `kind` above 0."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value > 0 or (isinstance(value, float) and not math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"must be > 0, got {text!r}")
        return value
    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, usage=f"{PROG} --source SRC [options]", description=DESCRIPTION, epilog=EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    src = parser.add_argument_group("source")
    src.add_argument("--source", required=True, metavar="SRC", help="/dev/videoN or an index, a video file, or an image folder")
    src.add_argument("--fps", type=_positive(float), metavar="F",
                     help="frame rate: an image folder's (default 10), a video's instead of its own, or asked of a webcam")
    src.add_argument("--orientation", type=_orientation, default=pb.ORIENTATION_UP, metavar="NAME",
                     help="how the stored frames turn upright: up (default), right, down, left, ...-mirrored, or 1..8")
    src.add_argument("--encoding", choices=list(ENCODINGS), default="jpeg", metavar="ENC",
                     help=f"how frames are sent: {', '.join(ENCODINGS)} (default jpeg)")
    src.add_argument("--jpeg-quality", type=int, default=90, metavar="Q", help="JPEG quality 1..100 (default 90)")
    src.add_argument("--max-frames", type=_positive(int), metavar="N", help="stop after capturing N frames")
    src.add_argument("--duration", type=_positive(float), metavar="S", help="stop after S seconds")

    rec = parser.add_argument_group("recognition")
    rec.add_argument("--server", type=_server, metavar="ADDR",
                     help="unix:PATH or tcp:HOST:PORT (default: unix:legible.sock, then tcp:127.0.0.1:7480)")
    rec.add_argument("--transport", choices=["framed", "grpc"], default="framed",
                     help="framed: Legible's own framing (default); grpc: the Recognizer/Stream call over HTTP/2 "
                          "(grpcio), as a stock gRPC client; the same session either way")
    rec.add_argument("--tls-ca", metavar="FILE",
                     help="speak TLS to a tcp: server whose certificate this CA (PEM) signed (legibled --tls-cert)")
    rec.add_argument("--tls-cert", metavar="FILE", help="with --tls-ca: this client's certificate (mutual TLS)")
    rec.add_argument("--tls-key", metavar="FILE", help="the private key of --tls-cert")
    rec.add_argument("--script", action="append", choices=list(SCRIPTS), metavar="NAME",
                     help=f"script to read, repeatable: {', '.join(SCRIPTS)} (default: the server's, latin)")
    rec.add_argument("--language", action="append", metavar="BCP47", help="language hint such as en or de, repeatable")
    rec.add_argument("--mode", choices=list(MODES), default="text", help="text: lines and words (default); document: paragraphs")
    rec.add_argument("--level", choices=list(LEVELS), default="fast", help="fast (default) or accurate")
    rec.add_argument("--roi", type=_roi, metavar="x,y,w,h", help="read only this region, in upright pixels")
    rec.add_argument("--stable-after", type=_positive(int), default=3, metavar="N",
                     help="a line held for N results is stable and drawn green (default 3)")
    rec.add_argument("--wait-for-steady", action="store_true", help="let the server skip frames while the camera moves")
    rec.add_argument("--recognize-unchanged", action="store_true", help="read frames even when nothing changed since the last one")
    rec.add_argument("--capture", action="append", type=_capture_goal, metavar="GOAL",
                     help="look for phone, email, url, date, card (Luhn-checked) or re:PATTERN (RE2, within a line), "
                          "repeatable: candidates are drawn in magenta, a value the server confirmed in yellow and "
                          "printed as 'captured GOAL: VALUE'")
    rec.add_argument("--confirmations", type=_positive(int), default=3, metavar="N",
                     help="results a value must be read in to be captured (default 3)")
    rec.add_argument("--stop-on-capture", action="store_true",
                     help="end the session once every --capture goal is captured")

    out = parser.add_argument_group("output")
    out.add_argument("--show", action="store_true", help="show the overlay in a window (q or Esc stops)")
    out.add_argument("--out-dir", metavar="DIR", help="write each annotated frame to DIR/frame-ID.png")
    out.add_argument("--out-format", choices=["png", "jpg"], default="png", help="image format for --out-dir (default png)")
    out.add_argument("--out-video", metavar="FILE.mp4", help="write the annotated frames as an MP4 (mp4v) at the source's fps")
    out.add_argument("--draw-on", choices=["upright", "sensor"], default="upright",
                     help="draw on the upright view (default) or map the boxes back onto the stored frame")
    out.add_argument("-q", "--quiet", action="store_true", help="no per-frame lines, only the summary")
    return parser


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parses the command line; exits 0 for --help and 64 on a usage error."""
    args = build_parser().parse_args(argv)
    if not 1 <= args.jpeg_quality <= 100:
        build_parser().error(f"--jpeg-quality must be 1..100, got {args.jpeg_quality}")
    if (args.tls_cert is None) != (args.tls_key is None) or (args.tls_cert and not args.tls_ca):
        build_parser().error("--tls-cert and --tls-key go together, with --tls-ca")
    if args.tls_ca and not (args.server or "").startswith("tcp:"):
        build_parser().error("--tls-ca needs --server tcp:HOST:PORT (unix sockets are served in cleartext)")
    return args


CAPTURE_KINDS = {"phone": pb.ENTITY_KIND_PHONE_NUMBER, "email": pb.ENTITY_KIND_EMAIL_ADDRESS, "url": pb.ENTITY_KIND_URL,
                 "date": pb.ENTITY_KIND_DATE, "card": pb.ENTITY_KIND_PAYMENT_CARD}


def _capture_goal(text: str) -> str:
    if text in CAPTURE_KINDS or (text.startswith("re:") and len(text) > 3):
        return text
    raise argparse.ArgumentTypeError(f"expected phone, email, url, date, card or re:PATTERN, got {text!r}")


def capture_goals(args: argparse.Namespace) -> list[pb.CaptureGoal]:
    """The --capture goals: entity kinds by name, patterns as re1, re2, ... in order."""
    goals, patterns = [], 0
    for text in args.capture or []:
        goal = pb.CaptureGoal(confirmations=args.confirmations)
        if text.startswith("re:"):
            patterns += 1
            goal.name, goal.pattern = f"re{patterns}", text[3:]
        else:
            goal.name, goal.entity = text, CAPTURE_KINDS[text]
        goals.append(goal)
    return goals


def recognition_options(args: argparse.Namespace) -> pb.RecognitionOptions:
    options = pb.RecognitionOptions(
        scripts=[SCRIPTS[s] for s in args.script or []], language_hints=args.language or [],
        mode=MODES[args.mode], level=LEVELS[args.level], stable_after=args.stable_after,
        wait_for_steady=args.wait_for_steady, recognize_unchanged=args.recognize_unchanged,
        capture_goals=capture_goals(args))
    if args.roi:
        x, y, w, h = args.roi
        options.region_of_interest.CopyFrom(pb.Rect(x=x, y=y, width=w, height=h))
    return options


# ---------------------------------------------------------------- connection


def connect(server: str | None, transport: str = "framed", tls: TLSFiles | None = None) -> tuple[Stream, str]:
    """The stream to `server`, or to the first default address that answers, over `transport`
    (the framed protocol, or a gRPC Stream call with the same interface), with `tls` over TLS."""
    candidates = [server] if server else list(DEFAULT_SERVERS)
    failures = []
    for address in candidates:
        try:
            if transport == "grpc":
                from .grpc_stream import GRPCStream
                return GRPCStream(address, tls=tls), address
            return Stream(address, tls=tls), address
        except OSError as error:
            failures.append(f"{address}: {error.strerror or error}")
    raise CameraError("cannot reach the server (" + "; ".join(failures) + ")"
                      + ("" if server else ". Start one with `make run`, or pass --server"))


def start_session(stream: Stream, options: pb.RecognitionOptions) -> pb.SessionStarted:
    try:
        stream.send(pb.ClientMessage(start=pb.StartSession(protocol_version=1, client_name=CLIENT_NAME, options=options)))
        reply = stream.receive()
    except OSError as error:
        raise CameraError(f"the server closed the connection at StartSession: {error}") from None
    if reply is None:
        raise CameraError("the server closed the connection at StartSession")
    if reply.WhichOneof("message") == "error":
        raise CameraError(f"the server refused the session: {_error_text(reply.error)}")
    if reply.WhichOneof("message") != "started":
        raise CameraError(f"expected SessionStarted, got {reply.WhichOneof('message')}")
    return reply.started


def _error_text(error: pb.Error) -> str:
    return f"code {error.code} {STATUS_CODES.get(error.code, '')}: {error.message}".replace(" :", ":")


# ---------------------------------------------------------------- printing


class Printer:
    """Per-frame lines on stdout (one lock: the capture loop and the receiver both print)."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self._lock = threading.Lock()

    def say(self, text: str, stream=None) -> None:
        with self._lock:
            print(text, file=stream or sys.stdout, flush=True)

    def skipped_locally(self, frame_id: int) -> None:
        if not self.quiet:
            self.say(f"frame {frame_id:>6}  skipped locally (previous frame still sending)")

    def result(self, answer: Answer, result: pb.FrameResult, stable_after: int) -> None:
        if answer.duplicate or answer.unknown:
            what = "duplicate result" if answer.duplicate else "result for a frame never sent"
            self.say(f"frame {result.frame_id:>6}  {what}!", sys.stderr)
        if self.quiet:
            return
        status = STATUS_NAMES.get(result.status, str(result.status))
        line = f"frame {result.frame_id:>6}  {status:<10} {answer.latency * 1000:8.1f} ms"
        if result.status == pb.FRAME_STATUS_FAILED:
            line += f"  {_error_text(result.error)}"
        elif result.status == pb.FRAME_STATUS_SKIPPED and result.skip_reason:
            line += f"  ({pb.SkipReason.Name(result.skip_reason).removeprefix('SKIP_REASON_').lower()})"
        if result.status in (pb.FRAME_STATUS_RECOGNIZED, pb.FRAME_STATUS_SKIPPED):
            lines = [ln for ln, _ in lines_of(result.text)]
            stable = sum(1 for ln in lines if result.stable or getattr(ln, "stable_frames", 0) >= stable_after)
            line += f"  {len(lines)} lines ({stable} stable)"
            if result.text.text:
                text = " | ".join(result.text.text.splitlines())
                line += f"  {text[:70] + '...' if len(text) > 70 else text}"
        self.say(line)


# ---------------------------------------------------------------- the run


@dataclass
class Outgoing:
    """A captured frame on its way to the sender."""

    frame_id: int
    image: np.ndarray
    captured_us: int


@dataclass
class Report:
    """What a run did; `exit_code` follows the documented exit status."""

    address: str = ""
    captured: int = 0
    skipped_locally: int = 0
    sent: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    latencies_ms: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    summary: pb.SessionSummary | None = None
    problems: list[str] = field(default_factory=list)
    broken: str | None = None            # why the session broke, if it did
    last_recognized: pb.FrameResult | None = None
    written: int = 0
    interrupted: bool = False
    goals: list[str] = field(default_factory=list)     # --capture goals' names
    captures: dict[str, str] = field(default_factory=dict)   # goal -> the value that captured it

    @property
    def exit_code(self) -> int:
        if self.broken:
            return EXIT_ENVIRONMENT
        if self.problems or self.counts.get("failed", 0):
            return EXIT_FRAMES_FAILED
        if any(goal not in self.captures for goal in self.goals):
            return EXIT_FRAMES_FAILED
        return EXIT_OK


class Connection:
    """The session's sender and receiver threads around one Stream."""

    def __init__(self, stream: Stream, args: argparse.Namespace, printer: Printer, timeline: Timeline | None) -> None:
        self.stream = stream
        self.args = args
        self.printer = printer
        self.timeline = timeline
        self.ledger = Ledger()
        self.mailbox: Mailbox[Outgoing] = Mailbox()
        self.summary: pb.SessionSummary | None = None
        self.broken: str | None = None
        self.last_recognized: pb.FrameResult | None = None
        self.finished = threading.Event()     # the receiver saw the end of the stream
        self.goals = [goal.name for goal in capture_goals(args)]
        self.captures: dict[str, str] = {}    # goal -> the value the server captured it with
        self.all_captured = threading.Event()
        self.encoding = ENCODINGS[args.encoding]
        self._sender = threading.Thread(target=self._send_loop, name="legible-send", daemon=True)
        self._receiver = threading.Thread(target=self._receive_loop, name="legible-receive", daemon=True)

    def start(self) -> None:
        self._sender.start()
        self._receiver.start()

    def _send_loop(self) -> None:
        while (item := self.mailbox.take()) is not None:
            try:
                image = encode_frame(item.image, self.encoding, self.args.jpeg_quality)
                message = pb.ClientMessage(frame=pb.Frame(frame_id=item.frame_id, image=image,
                                                          orientation=self.args.orientation,
                                                          client_timestamp_us=item.captured_us))
                self.ledger.book_send(item.frame_id)
                self.stream.send(message)
            except Exception as error:  # a broken socket, or a frame OpenCV cannot encode: end the run
                self.broken = self.broken or f"sending frame {item.frame_id} failed: {error}"
                self.mailbox.close()
            finally:
                self.mailbox.done()

    def _receive_loop(self) -> None:
        try:
            while (message := self.stream.receive()) is not None:
                kind = message.WhichOneof("message")
                if kind == "result":
                    self._on_result(message.result)
                elif kind == "summary":
                    self.summary = message.summary
                elif kind == "error":
                    self.printer.say(f"server error: {_error_text(message.error)}", sys.stderr)
                    if message.error.fatal:
                        self.broken = f"the server ended the session: {_error_text(message.error)}"
            if self.summary is None and self.broken is None:
                self.broken = "the server closed the connection before the SessionSummary"
        except OSError as error:
            if self.summary is None and self.broken is None:
                self.broken = f"connection lost: {error}"
        finally:
            self.finished.set()

    def _on_result(self, result: pb.FrameResult) -> None:
        answer = self.ledger.book_result(result)
        if result.status == pb.FRAME_STATUS_RECOGNIZED:
            self.last_recognized = result
        self.printer.result(answer, result, self.args.stable_after)
        for capture in result.captures:
            if capture.captured:
                self.captures[capture.goal] = capture.value
                self.printer.say(f"captured {capture.goal}: {capture.value}")
        if self.goals and all(goal in self.captures for goal in self.goals):
            self.all_captured.set()
        if self.timeline is not None:
            self.timeline.resolve(result)

    def finish_sending(self) -> None:
        """Lets the last frame go out, then sends EndSession (on this thread: the sender is done)."""
        self.mailbox.close()
        self._sender.join(SEND_TIMEOUT)
        if self._sender.is_alive():
            self.broken = self.broken or f"the last frame was still not sent after {SEND_TIMEOUT:.0f} s"
            self.abort()
            return
        if self.broken is None and not self.finished.is_set():
            try:
                self.stream.send(pb.ClientMessage(end=pb.EndSession()))
            except OSError as error:
                self.broken = f"sending EndSession failed: {error}"

    def abort(self) -> None:
        """Cuts the connection (wakes a blocked send or receive)."""
        self.stream.abort()


def _open_outputs(args: argparse.Namespace, fps: float) -> tuple[Timeline | None, Renderer | None]:
    if not (args.show or args.out_dir or args.out_video):
        return None, None
    timeline = Timeline()
    try:
        renderer = Renderer(timeline, orientation=args.orientation, draw_on=args.draw_on,
                            stable_after=args.stable_after, roi=args.roi, fps=fps, out_dir=args.out_dir,
                            out_format=args.out_format, out_video=args.out_video, window=args.show)
    except OutputError as error:
        raise CameraError(str(error)) from None
    return timeline, renderer


class StopRequests:
    """SIGINT and SIGTERM during a run: the first asks for a clean end (the capture loop stops,
    EndSession is sent, the summary awaited), the second aborts (KeyboardInterrupt).

    Handlers are installed only on the main thread (elsewhere Python cannot); a run started on
    another thread is stopped by setting `requested`."""

    def __init__(self) -> None:
        self.requested = threading.Event()
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopRequests:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc_info: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    def _handle(self, signum: int, frame: object) -> None:
        if self.requested.is_set():
            raise KeyboardInterrupt()
        self.requested.set()


def _capture(source: Source, args: argparse.Namespace, connection: Connection, timeline: Timeline | None,
             renderer: Renderer | None, printer: Printer, report: Report, stop: threading.Event) -> None:
    """The capture loop: runs at the source's rate until the source ends, a limit is reached,
    the window is closed, the connection breaks, or `stop` is set."""
    start = time.monotonic()
    while not stop.is_set():
        if args.max_frames and report.captured >= args.max_frames:
            return
        if args.duration and time.monotonic() - start >= args.duration:
            return
        if connection.broken or connection.finished.is_set():
            return
        if args.stop_on_capture and connection.all_captured.is_set():
            printer.say("every goal captured: ending the session", sys.stderr)
            return
        if source.paced:
            delay = start + report.captured / source.fps - time.monotonic()
            if delay > 0:
                time.sleep(delay)
                if stop.is_set():
                    return
        image = source.read()
        if image is None:
            return
        report.captured += 1
        frame_id = report.captured
        if timeline is not None:
            timeline.add(frame_id, image)
        try:
            accepted = connection.mailbox.offer(Outgoing(frame_id, image, time.time_ns() // 1000))
        except MailboxClosed:
            accepted = False
        if not accepted:
            if timeline is not None:
                timeline.skip_local(frame_id)
            printer.skipped_locally(frame_id)
        if renderer is not None and renderer.window and renderer.show_newest() in (ord("q"), 27):
            return


def run(args: argparse.Namespace, stop: StopRequests | None = None) -> Report:
    """Streams the source to the server and reports (prints the summary too). Raises CameraError
    for what keeps the run from starting (exit 2 or 64). `stop`: the run's stop requests (one
    that handles SIGINT/SIGTERM is made when none is given)."""
    if args.show and (why := window_support()):
        raise CameraError(why)
    try:
        source = open_source(args.source, args.fps)
    except SourceError as error:
        raise CameraError(str(error), EXIT_USAGE if error.usage else EXIT_ENVIRONMENT) from None
    printer = Printer(args.quiet)
    report = Report()
    stream: Stream | None = None
    try:
        tls = TLSFiles(args.tls_ca, args.tls_cert, args.tls_key) if args.tls_ca else None
        stream, report.address = connect(args.server, args.transport, tls)
        started = start_session(stream, recognition_options(args))
        timeline, renderer = _open_outputs(args, source.fps)
        printer.say(f"connected to {report.address} (legibled {started.server_version}, session {started.session_id}); "
                    f"streaming {source.description} at {source.fps:g} fps", sys.stderr)
        connection = Connection(stream, args, printer, timeline)
        connection.start()
        if renderer is not None:
            renderer.start()
        with stop or StopRequests() as requests:
            try:
                _capture(source, args, connection, timeline, renderer, printer, report, requests.requested)
            except KeyboardInterrupt:
                requests.requested.set()
            except SourceError as error:
                printer.say(f"source: {error}", sys.stderr)
            if requests.requested.is_set():
                report.interrupted = True
                printer.say("interrupted: ending the session (Ctrl-C again to abort)", sys.stderr)
            try:
                connection.finish_sending()
                deadline = time.monotonic() + SUMMARY_TIMEOUT
                while not connection.finished.wait(0.05 if args.show else 0.5):
                    if renderer is not None and renderer.window:
                        renderer.show_newest()
                    if time.monotonic() > deadline:
                        connection.broken = connection.broken or f"no SessionSummary within {SUMMARY_TIMEOUT:.0f} s"
                        connection.abort()
                        break
            except KeyboardInterrupt:
                connection.broken = connection.broken or "aborted before the SessionSummary arrived"
                connection.abort()
                connection.finished.wait(5)
        _fill_report(report, connection)
        if timeline is not None and renderer is not None:
            timeline.close()
            renderer.join()
            report.written = renderer.written
            if renderer.error is not None:
                report.broken = report.broken or f"output: {renderer.error}"
        print_summary(report, printer)
        return report
    finally:
        source.close()
        if stream is not None:
            stream.close()


def _fill_report(report: Report, connection: Connection) -> None:
    ledger = connection.ledger
    report.skipped_locally = report.captured - connection.mailbox.accepted
    report.sent = ledger.sent
    report.counts = ledger.counts()
    report.summary = connection.summary
    report.broken = connection.broken
    report.last_recognized = connection.last_recognized
    report.goals = connection.goals
    report.captures = dict(connection.captures)
    report.problems = ledger.problems(connection.summary) if connection.summary is not None or not connection.broken else []
    for name, status in [("all", None), *((STATUS_NAMES[s], s) for s in sorted(STATUS_NAMES))]:
        values = [v * 1000 for v in ledger.latencies(status)]
        if values:
            report.latencies_ms[name] = (percentile(values, 50), percentile(values, 90), percentile(values, 99))


def print_summary(report: Report, printer: Printer) -> None:
    out = [f"summary: {report.captured} frames captured, {report.sent} sent, {report.skipped_locally} skipped locally"
           + (" (interrupted)" if report.interrupted else "")]
    for name in ("recognized", "dropped", "skipped", "failed"):
        count = report.counts.get(name, 0)
        row = f"  {name:<11}{count:>6}"
        if name in report.latencies_ms:
            p50, p90, p99 = report.latencies_ms[name]
            row += f"   latency p50 {p50:7.1f} ms  p90 {p90:7.1f} ms  p99 {p99:7.1f} ms"
        out.append(row)
    if "all" in report.latencies_ms:
        p50, p90, p99 = report.latencies_ms["all"]
        out.append(f"  {'all':<11}{sum(report.counts.values()):>6}   latency p50 {p50:7.1f} ms  p90 {p90:7.1f} ms  p99 {p99:7.1f} ms")
    s = report.summary
    if s is not None:
        out.append(f"server: received {s.frames_received}, recognized {s.frames_recognized}, dropped {s.frames_dropped}, "
                   f"skipped {s.frames_skipped}, failed {s.frames_failed}")
    for goal in report.goals:
        out.append(f"captured {goal}: {report.captures[goal]}" if goal in report.captures else f"not captured: {goal}")
    if report.broken:
        out.append(f"error: {report.broken}")
    for problem in report.problems:
        out.append(f"MISMATCH: {problem}")
    if not report.broken and not report.problems:
        out.append(f"ok: every one of the {report.sent} frames sent was answered exactly once")
    if report.written:
        out.append(f"wrote {report.written} annotated frames")
    printer.say("\n".join(out))


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status (see --help)."""
    try:
        args = parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    try:
        return run(args).exit_code
    except CameraError as error:
        print(f"legible camera: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("legible camera: interrupted", file=sys.stderr)
        return EXIT_ENVIRONMENT


if __name__ == "__main__":
    sys.exit(main())
