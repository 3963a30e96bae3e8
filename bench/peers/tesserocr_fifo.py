#!/usr/bin/env python3
"""tesserocr-fifo: a peer for Legible's benchmarks, not part of the product.

The server people write by default on top of tesserocr: one PyTessBaseAPI per core, each on
its own thread, fed from one FIFO queue. Every frame every client sends is queued and read in
order of arrival; nothing is dropped or skipped. It speaks Legible's protocol on a unix
socket (same framing and messages, legible.v1), so the benchmark drives both servers with the
same client:

    StartSession -> SessionStarted       Frame -> FrameResult (RECOGNIZED with Text.text and
    Ping -> Pong                                  blocks -> lines -> elements, or FAILED)
    EndSession -> (all answered) -> SessionSummary, then it closes

Every Frame is answered exactly once while its client is connected. Frames still queued when a
client disconnects are not read (no one is left to answer). Options it can ignore are ignored
(scripts, languages, level, region of interest, custom words, ...): it reads `--lang` (eng) at
PSM 11 (sparse text, as Legible's text mode) with Tesseract's defaults. It honours
Frame.orientation with PIL's transpose (cheap), so a rotated frame is not a strawman.
JPEG and PNG are decoded by Pillow (to gray), GRAY8 is passed as is; other raw encodings fail
with UNIMPLEMENTED.

    OMP_THREAD_LIMIT=1 python3 bench/peers/tesserocr_fifo.py --listen unix:/tmp/fifo.sock --workers 2

It re-executes itself with OMP_THREAD_LIMIT=1 when that is unset (libgomp reads it at load).
"""
import argparse
import io
import os
import queue
import signal
import socket
import struct
import sys
import threading
import time
import uuid

if __name__ == "__main__" and "OMP_THREAD_LIMIT" not in os.environ:
    os.environ["OMP_THREAD_LIMIT"] = "1"
    os.execv(sys.executable, [sys.executable] + sys.argv)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))
import tesserocr  # noqa: E402
from PIL import Image  # noqa: E402

from legible_client import frame as framed, pb  # noqa: E402

VERSION = "tesserocr-fifo 1 (tesserocr %s, %s)" % (
    tesserocr.__version__, tesserocr.tesseract_version().split("\n")[0])
MAX_MESSAGE_BYTES = 16 << 20
# Orientation (EXIF 1..8) -> the PIL transpose that turns the stored image upright.
TO_UPRIGHT = {
    2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


class Connection:
    """One client: a reader thread, a lock for writes, the session's counts."""

    def __init__(self, sock, server):
        self.sock = sock
        self.server = server
        self.write_lock = threading.Lock()
        self.count_lock = threading.Lock()
        self.closed = False
        self.started = False
        self.ending = False
        self.received = self.answered = self.recognized = self.failed = 0

    def send(self, message):
        data = framed(message)
        with self.write_lock:
            if self.closed:
                return
            try:
                self.sock.sendall(data)
            except OSError:
                self.close()

    def close(self):
        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def fatal(self, code, message):
        self.send(pb.ServerMessage(error=pb.Error(code=code, message=message, fatal=True)))
        self.close()

    def answered_one(self, status):
        """Counts an answer; after EndSession, the last answer sends the summary and closes."""
        with self.count_lock:
            self.answered += 1
            if status == pb.FRAME_STATUS_RECOGNIZED:
                self.recognized += 1
            elif status == pb.FRAME_STATUS_FAILED:
                self.failed += 1
            finish = self.ending and self.answered == self.received
        if finish:
            self.summary()

    def summary(self):
        self.send(pb.ServerMessage(summary=pb.SessionSummary(
            frames_received=self.received, frames_recognized=self.recognized, frames_failed=self.failed)))
        self.close()

    def read_loop(self):
        buffer = b""
        try:
            while not self.closed:
                chunk = self.sock.recv(1 << 16)
                if not chunk:
                    break
                buffer += chunk
                while len(buffer) >= 5:
                    flag, length = struct.unpack(">BI", buffer[:5])
                    if flag != 0:
                        return self.fatal(12, "compressed messages are not supported")
                    if length > MAX_MESSAGE_BYTES:
                        return self.fatal(8, "message of %d bytes is over the limit" % length)
                    if len(buffer) < 5 + length:
                        break
                    body, buffer = buffer[5:5 + length], buffer[5 + length:]
                    message = pb.ClientMessage()
                    try:
                        message.ParseFromString(body)
                    except Exception:
                        return self.fatal(3, "a message does not parse")
                    self.handle(message, time.monotonic())
        except OSError:
            pass
        finally:
            self.closed = True
            self.sock.close()

    def handle(self, message, arrived):
        kind = message.WhichOneof("message")
        if not self.started:
            if kind != "start":
                return self.fatal(9, "StartSession must come first")
            self.started = True
            self.send(pb.ServerMessage(started=pb.SessionStarted(
                session_id=uuid.uuid4().hex, server_version=VERSION, protocol_version=1,
                limits=pb.ServerLimits(max_message_bytes=MAX_MESSAGE_BYTES, workers=self.server.workers),
                available_scripts=[pb.SCRIPT_LATIN])))
        elif kind == "frame":
            if self.ending:
                self.send(pb.ServerMessage(result=pb.FrameResult(
                    frame_id=message.frame.frame_id, status=pb.FRAME_STATUS_FAILED,
                    error=pb.Error(code=9, message="frame after EndSession", frame_id=message.frame.frame_id))))
                return
            with self.count_lock:
                self.received += 1
            self.server.queue.put((self, message.frame, arrived))
        elif kind == "ping":
            self.send(pb.ServerMessage(pong=pb.Pong(nonce=message.ping.nonce)))
        elif kind == "end":
            with self.count_lock:
                self.ending = True
                finish = self.answered == self.received
            if finish:
                self.summary()
        elif kind == "start":
            self.fatal(9, "StartSession twice")
        # UpdateSession: its options are ignored, like the StartSession ones.


def decode(image, orientation):
    """A gray PIL image, upright."""
    if image.encoding in (pb.ENCODING_JPEG, pb.ENCODING_PNG):
        picture = Image.open(io.BytesIO(image.data))
        picture.draft("L", picture.size)  # JPEG: decode straight to gray
        picture = picture.convert("L")
    elif image.encoding == pb.ENCODING_GRAY8:
        stride = image.stride or image.width
        if len(image.data) < stride * image.height or not image.width or not image.height:
            raise ValueError("GRAY8 data shorter than height x stride")
        picture = Image.frombuffer("L", (image.width, image.height), image.data, "raw", "L", stride, 1)
    else:
        raise NotImplementedError("encoding %d is not supported by this peer" % image.encoding)
    if orientation in TO_UPRIGHT:
        picture = picture.transpose(TO_UPRIGHT[orientation])
    return picture


def rect(box):
    x1, y1, x2, y2 = box
    return pb.Rect(x=x1, y=y1, width=x2 - x1, height=y2 - y1)


def text_tree(api, width, height):
    """Blocks -> lines -> elements from one walk at word level."""
    RIL = tesserocr.RIL
    text = pb.Text(image_width=width, image_height=height)
    iterator = api.GetIterator()
    if iterator is None:
        return text
    block = line = None
    for word in tesserocr.iterate_level(iterator, RIL.WORD):
        content = word.GetUTF8Text(RIL.WORD)
        if content is None:
            continue
        if block is None or word.IsAtBeginningOf(RIL.BLOCK):
            block = text.blocks.add(frame=rect(word.BoundingBox(RIL.BLOCK)), confidence=word.Confidence(RIL.BLOCK) / 100)
            line = None
        if line is None or word.IsAtBeginningOf(RIL.TEXTLINE):
            line = block.lines.add(text=(word.GetUTF8Text(RIL.TEXTLINE) or "").strip(),
                                   frame=rect(word.BoundingBox(RIL.TEXTLINE)),
                                   confidence=word.Confidence(RIL.TEXTLINE) / 100)
        line.elements.add(text=content, frame=rect(word.BoundingBox(RIL.WORD)), confidence=word.Confidence(RIL.WORD) / 100)
    for b in text.blocks:
        b.text = "\n".join(l.text for l in b.lines)
    text.text = "\n".join(b.text for b in text.blocks if b.text)
    return text


def worker(server, index):
    api = tesserocr.PyTessBaseAPI(path=server.tessdata, lang=server.lang, psm=tesserocr.PSM.SPARSE_TEXT)
    api.SetVariable("debug_file", "/dev/null")
    server.ready.wait()
    while True:
        connection, message, arrived = server.queue.get()
        if connection.closed:
            continue  # its client is gone: no one to answer
        started = time.monotonic()
        result = pb.FrameResult(frame_id=message.frame_id)
        try:
            picture = decode(message.image, message.orientation)
            decoded = time.monotonic()
            api.SetImageBytes(picture.tobytes(), picture.width, picture.height, 1, picture.width)
            api.Recognize()
            recognized = time.monotonic()
            result.text.CopyFrom(text_tree(api, picture.width, picture.height))
            result.status = pb.FRAME_STATUS_RECOGNIZED
            result.timing.decode_us = int((decoded - started) * 1e6)
            result.timing.recognize_us = int((recognized - decoded) * 1e6)
        except NotImplementedError as error:
            result.status = pb.FRAME_STATUS_FAILED
            result.error.CopyFrom(pb.Error(code=12, message=str(error), frame_id=message.frame_id))
        except Exception as error:  # a bad frame fails alone
            result.status = pb.FRAME_STATUS_FAILED
            result.error.CopyFrom(pb.Error(code=3, message="cannot read the frame: %s" % error, frame_id=message.frame_id))
        finally:
            api.Clear()
        result.timing.client_timestamp_us = message.client_timestamp_us
        result.timing.queue_us = int((started - arrived) * 1e6)
        result.timing.total_us = int((time.monotonic() - arrived) * 1e6)
        connection.send(pb.ServerMessage(result=result))
        connection.answered_one(result.status)


class Server:
    def __init__(self, workers, lang, tessdata):
        self.workers = workers
        self.lang = lang
        self.tessdata = tessdata
        self.queue = queue.Queue()  # unbounded FIFO: every frame waits its turn
        self.ready = threading.Barrier(workers + 1)  # engines loaded before the socket exists


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--listen", required=True, help="unix:PATH")
    p.add_argument("--workers", type=int, default=os.cpu_count(), help="engines (threads), default: cores")
    p.add_argument("--lang", default="eng")
    p.add_argument("--tessdata", default=tesserocr.get_languages()[0])
    a = p.parse_args()
    if not a.listen.startswith("unix:"):
        p.error("--listen takes unix:PATH")
    path = a.listen[5:]
    server = Server(a.workers, a.lang, a.tessdata)
    threads = [threading.Thread(target=worker, args=(server, i), daemon=True) for i in range(a.workers)]
    for t in threads:
        t.start()
    server.ready.wait()
    if os.path.exists(path):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(128)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    print("tesserocr-fifo: listening on unix:%s with %d engines (%s)" % (path, a.workers, VERSION),
          file=sys.stderr, flush=True)
    try:
        while True:
            sock, _ = listener.accept()
            connection = Connection(sock, server)
            threading.Thread(target=connection.read_loop, daemon=True).start()
    except KeyboardInterrupt:
        pass
    finally:
        os.unlink(path)


if __name__ == "__main__":
    main()
