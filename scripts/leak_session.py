#!/usr/bin/env python3
"""One Legible session that drives every decoder and the C interop behind each frame, for leak
checks: `make leak-check` runs it against legibled under valgrind, and
clients/python/tests/test_leaks.py uses it to watch the server's resident memory.

Every frame is read (recognize_unchanged), in document mode with symbols, 3 candidates and
entities, so each one goes through protobuf-c unpack/free, a decoder (libturbojpeg, Leptonica's
PNG reader, or a raw buffer; EXIF on the JPEGs), Leptonica's Pix, Tesseract's result and choice
iterators and the strings they return, and protobuf-c packing of the result. Frames cycle
through the seven encodings and two orientations (up, and right: the transposed copy).

    python3 scripts/leak_session.py --server unix:PATH [--frames-per-encoding 20]

With --bad-frames it then sends frames that fail (a truncated JPEG, a corrupt PNG, a raw
buffer shorter than its geometry), since error paths are where frees are most often missed.

Prints one line: frames sent and the count per status. Exits 1 unless every good frame was
recognized and every bad one failed.
"""
import argparse
import functools
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))
import camera_frames as cf  # noqa: E402
from legible_client import Stream, build_image, pb  # noqa: E402

ENCODINGS = [pb.ENCODING_JPEG, pb.ENCODING_PNG, pb.ENCODING_GRAY8, pb.ENCODING_RGBA8, pb.ENCODING_BGRA8,
             pb.ENCODING_NV12, pb.ENCODING_I420]
ORIENTATIONS = [pb.ORIENTATION_UP, pb.ORIENTATION_RIGHT]
# Short lines a 320x240 frame holds, with a phone number and an e-mail address for entities.
LINES = [("Parcel 7325 ready", 26), ("Call +49 30 1234567", 22), ("ops@example.com", 22)]

OPTIONS = dict(mode=pb.MODE_DOCUMENT, include_symbols=True, max_candidates=3, detect_entities=True,
               recognize_unchanged=True)


@functools.lru_cache(maxsize=None)
def frames(width=320, height=240):
    """[(pb.Image, orientation)]: every encoding in both orientations, ~30 ms each to read."""
    upright, _ = cf.scene(width=width, height=height, lines=LINES, perspective=1.0)
    out = []
    for orientation in ORIENTATIONS:
        stored = cf.to_stored(upright, orientation)
        for encoding in ENCODINGS:
            data, w, h, stride = cf.encode(stored, encoding)
            if encoding == pb.ENCODING_JPEG:
                # The JPEG carries the orientation in EXIF instead, so libexif runs too.
                data = cf.jpeg_with_exif(stored, orientation)
                out.append((build_image(encoding, data), pb.ORIENTATION_UNSPECIFIED))
            else:
                out.append((build_image(encoding, data, w, h, stride), orientation))
    return out


def bad_frames():
    """[(pb.Image, orientation)] that decode to nothing: each must be answered FAILED."""
    images = frames()
    jpeg, png = images[0][0].data, images[1][0].data
    corrupt_png = png[:64] + bytes(b ^ 0x5A for b in png[64:200]) + png[200:]
    return [
        (build_image(pb.ENCODING_JPEG, jpeg[: len(jpeg) // 2]), pb.ORIENTATION_UP),
        (build_image(pb.ENCODING_PNG, corrupt_png), pb.ORIENTATION_UP),
        (build_image(pb.ENCODING_NV12, bytes(1000), 320, 240, 320), pb.ORIENTATION_RIGHT),
    ]


class Session:
    """A started session with the options above; `read` sends one frame and awaits its result."""

    def __init__(self, address):
        self.stream = Stream(address)
        self.stream.send(pb.ClientMessage(start=pb.StartSession(client_name="leak-session",
                                                                options=pb.RecognitionOptions(**OPTIONS))))
        reply = self.stream.receive()
        assert reply is not None and reply.WhichOneof("message") == "started", reply
        self.sent = 0
        self.statuses = {}

    def read(self, image, orientation):
        self.sent += 1
        self.stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=self.sent, image=image, orientation=orientation)))
        reply = self.stream.receive()
        assert reply is not None and reply.WhichOneof("message") == "result", reply
        assert reply.result.frame_id == self.sent, reply
        name = pb.FrameStatus.Name(reply.result.status)
        self.statuses[name] = self.statuses.get(name, 0) + 1
        return reply.result

    def end(self):
        self.stream.send(pb.ClientMessage(end=pb.EndSession()))
        while (reply := self.stream.receive()) is not None:
            if reply.WhichOneof("message") == "summary":
                break
        self.stream.close()
        return reply.summary if reply is not None else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="unix:PATH or tcp:HOST:PORT")
    parser.add_argument("--frames-per-encoding", type=int, default=20)
    parser.add_argument("--bad-frames", type=int, default=0, help="failing frames of each kind to send after")
    args = parser.parse_args()
    session = Session(args.server)
    images = frames()
    good = args.frames_per_encoding * len(ENCODINGS)
    for index in range(good):
        session.read(*images[index % len(images)])
    bad = bad_frames() * args.bad_frames
    for image, orientation in bad:
        session.read(image, orientation)
    summary = session.end()
    print(f"leak session: {session.sent} frames, {session.statuses}, summary received: {summary is not None}")
    expected = {"FRAME_STATUS_RECOGNIZED": good, **({"FRAME_STATUS_FAILED": len(bad)} if bad else {})}
    sys.exit(0 if session.statuses == expected and summary is not None else 1)


if __name__ == "__main__":
    main()
