#!/usr/bin/env python3
"""Noise frames against a polite client (issue 18's second item).

Two clients each send one 4000x4000 GRAY8 frame of random black and white pixels and hang up
after --hold seconds; a third, polite client then sends the 640x480 label fixture and times its
answer. Run once per set of legibled flags given with --flags (repeatable).

    python3 bench/noise_frames.py [--legibled .build/release/legibled] [--hold 12]
        [--side 4000] [--give-up 60] [--mode text|document] [--flags "" --flags "--frame-deadline-ms 3000"]

Prints, per set of flags, how each noise frame was answered (and when), and how long the
polite client's frame took while the noise was being read and after its senders hung up.
"""
import argparse
import os
import random
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "clients", "python"))
from legible_client import Stream, build_image, pb  # noqa: E402

SIDE = 4000


def noise():
    """SIDE x SIDE pixels, each black or white at random (the same frame every run)."""
    raw = random.Random(7).randbytes(SIDE * SIDE)
    return raw.translate(bytes(0 if i < 128 else 255 for i in range(256)))


def noise_answer(stream, index, sent, answers):
    """Records how the noise frame was answered, and when (until its client hangs up)."""
    try:
        while (message := stream.receive()) is not None:
            if message.WhichOneof("message") == "result":
                answers[index] = (pb.FrameStatus.Name(message.result.status), time.monotonic() - sent)
                return
            if message.WhichOneof("message") == "error":
                answers[index] = (message.error.message[:40], time.monotonic() - sent)
                return
    except OSError:
        pass


def polite_answer(stream, frame_id, label):
    """Sends the label and says how it was answered and how long that took."""
    started = time.monotonic()
    stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=frame_id, image=build_image(pb.ENCODING_JPEG, label))))
    try:
        while (message := stream.receive()).WhichOneof("message") != "result":
            pass
    except TimeoutError:
        return "no answer in %.0f s" % (time.monotonic() - started)
    return "%s in %.2f s" % (pb.FrameStatus.Name(message.result.status), time.monotonic() - started)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--legibled", default=".build/release/legibled")
    p.add_argument("--hold", type=float, default=12.0)
    p.add_argument("--flags", action="append")
    p.add_argument("--give-up", type=float, default=60.0, help="seconds the polite client waits for each answer")
    p.add_argument("--side", type=int, default=4000, help="the noise frame's side in pixels")
    p.add_argument("--mode", choices=["text", "document"], default="text", help="the noise sessions' mode")
    a = p.parse_args()
    global SIDE
    SIDE = a.side
    data = noise()
    label = open(os.path.join(os.path.dirname(HERE), "Tests", "Fixtures", "label-640x480.jpg"), "rb").read()
    for flags in a.flags or [""]:
        folder = tempfile.mkdtemp(prefix="legible-noise-")
        sock = os.path.join(folder, "s.sock")
        server = subprocess.Popen([a.legibled, "--listen", "unix:" + sock, "--max-pixels", str(max(SIDE * SIDE, 40_000_000))]
                                  + shlex.split(flags), stderr=subprocess.DEVNULL,
                                  env=dict(os.environ, OMP_THREAD_LIMIT="1"))
        try:
            while not os.path.exists(sock):
                time.sleep(0.1)
            time.sleep(3)
            noisy = []
            answers = {}
            sent = time.monotonic()
            for i in range(2):
                s = Stream("unix:" + sock)
                s.send(pb.ClientMessage(start=pb.StartSession(options=pb.RecognitionOptions(
                    recognize_unchanged=True, mode=pb.MODE_DOCUMENT if a.mode == "document" else pb.MODE_TEXT))))
                s.receive()
                s.send(pb.ClientMessage(frame=pb.Frame(frame_id=1, image=build_image(
                    pb.ENCODING_GRAY8, data, SIDE, SIDE, SIDE))))
                noisy.append(s)
                threading.Thread(target=noise_answer, args=(s, i, sent, answers), daemon=True).start()
            polite = Stream("unix:" + sock)
            polite.sock.settimeout(a.give_up)
            polite.send(pb.ClientMessage(start=pb.StartSession(options=pb.RecognitionOptions(recognize_unchanged=True))))
            polite.receive()
            time.sleep(1)
            during = polite_answer(polite, 1, label)
            time.sleep(max(0.0, a.hold - (time.monotonic() - sent)))
            for s in noisy:
                s.sock.shutdown(socket.SHUT_RDWR)
                s.close()
            after = polite_answer(polite, 2, label)
            noise_text = ", ".join("%s in %.1f s" % answers[i] if i in answers else "none" for i in range(2))
            print("mode %s, flags %-45r noise answered: %s; polite frame sent 1 s after the noise: %s; "
                  "sent after the noise clients hung up at %.0f s: %s" % (a.mode, flags, noise_text, during, a.hold, after))
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
