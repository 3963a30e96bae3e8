#!/usr/bin/env python3
"""What one 720p frame costs, the measure behind `--frame-deadline-ms`'s default (10 s): the
720p camera fixture, the end-to-end suite's 24 lines of small print (`dense_page`) and its 13 px
scene (`small_print`), each read 3 times in text and document mode at FAST and ACCURATE by a
release legibled without a deadline; prints each frame's total ms (Timing.total_us).

    python3 bench/frame_budget.py
"""
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(REPO)
os.environ.setdefault("LEGIBLED", os.path.join(REPO, ".build", "release", "legibled"))
sys.path.insert(0, os.path.join(REPO, "clients", "python"))
sys.path.insert(0, os.path.join(REPO, "clients", "python", "tests"))
from conftest import Server  # noqa: E402
from test_sessions import dense_page, small_print  # noqa: E402
from legible_client import Stream, build_image, pb  # noqa: E402


def main():
    frames = {"camera-720p": open("Tests/Fixtures/camera-720p.jpg", "rb").read(), "dense-720p": dense_page(),
              "small-print": small_print()}
    server = Server("--frame-deadline-ms", "0")
    try:
        for mode in (pb.MODE_TEXT, pb.MODE_DOCUMENT):
            for level in (pb.LEVEL_FAST, pb.LEVEL_ACCURATE):
                for name, data in frames.items():
                    stream = Stream(server.address)
                    stream.send(pb.ClientMessage(start=pb.StartSession(options=pb.RecognitionOptions(
                        mode=mode, level=level, recognize_unchanged=True))))
                    stream.receive()
                    times = []
                    for frame_id in (1, 2, 3):
                        stream.send(pb.ClientMessage(frame=pb.Frame(
                            frame_id=frame_id, image=build_image(pb.ENCODING_JPEG, data))))
                        while (message := stream.receive()).WhichOneof("message") != "result":
                            pass
                        times.append(message.result.timing.total_us / 1000)
                    stream.close()
                    print("%-13s %-14s %-12s ms %s" % (pb.Mode.Name(mode), pb.Level.Name(level), name,
                                                        " ".join("%.0f" % t for t in times)), flush=True)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
