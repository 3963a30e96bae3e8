#!/usr/bin/env python3
"""Capture goals measured (make bench-capture, ~1 min): how many frames a capture takes, what a
goal costs the server per result, and the bytes an app receives with goals against what it
would have to receive to filter the text itself.

  frames   a business card drifting before the camera (the frames of clients/python/tests/
           test_capture.py), one session per goal set, frames sent one at a time: the frame at
           which each goal was captured, for confirmations 1, 2, 3 (the default) and 5.
  cost     `legible-floor --detector --capture ...` on one card frame and on the 720p camera
           fixture: microseconds to find the goals' values in a result (the engine thread's
           work per frame; the median of 1,000), beside the recognition's milliseconds.
  bytes    per result of the default session: the whole FrameResult (what an app filtering on
           its side must receive, text tree and boxes included) against its captures alone
           (what it needs with goals), serialized protobuf.

    python3 bench/capture_goals.py [--legibled .build/release/legibled] [--json bench/out/capture_goals.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "clients", "python"))
sys.path.insert(0, os.path.join(REPO, "clients", "python", "tests"))
from conftest import Server  # noqa: E402  (the tests' legibled runner)
from legible_client import pb  # noqa: E402
from test_capture import card_frame, goal, open_session, result_of, send_frame  # noqa: E402  (the same card)

SERIAL = r"[A-Z]{2}-\d{6}"


def goals(confirmations):
    return [goal("phone", entity=pb.ENTITY_KIND_PHONE_NUMBER, confirmations=confirmations, end=True),
            goal("email", entity=pb.ENTITY_KIND_EMAIL_ADDRESS, confirmations=confirmations, end=True),
            goal("serial", pattern=SERIAL, confirmations=confirmations, end=True)]


def run_session(server, confirmations, frames=20):
    """{goal: frame captured at}, and per result (whole FrameResult bytes, captures' bytes)."""
    stream, reply = open_session(server, goals(confirmations), recognize_unchanged=True)
    assert reply.WhichOneof("message") == "started", reply
    captured, sizes = {}, []
    for frame_id in range(1, frames + 1):
        send_frame(stream, frame_id, card_frame(frame_id))
        result = result_of(stream, frame_id)
        if result.DESCRIPTOR.name != "FrameResult":
            break
        sizes.append((len(result.SerializeToString()), len(pb.FrameResult(captures=result.captures).SerializeToString())))
        for capture in result.captures:
            if capture.captured:
                captured[capture.goal] = frame_id
        if len(captured) == 3:
            break
    stream.close()
    return captured, sizes


def floor_cost(legibled, image_path):
    floor = os.path.join(os.path.dirname(legibled), "legible-floor")
    argv = [floor, "--detector", "--repeat", "5", "--warmup", "1", "--capture", "phone", "--capture", "email",
            "--capture", "re:" + SERIAL, image_path]
    out = subprocess.run(argv, capture_output=True, text=True, check=True, env={**os.environ, "OMP_THREAD_LIMIT": "1"})
    print("$ OMP_THREAD_LIMIT=1 " + " ".join(os.path.relpath(a, REPO) if a.startswith(REPO) else a for a in argv),
          file=sys.stderr)
    return json.loads(out.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--legibled", default=os.path.join(REPO, ".build", "release", "legibled"))
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()
    os.environ["LEGIBLED"] = os.path.abspath(args.legibled)
    figures = {"frames": {}, "cost": {}, "bytes": {}}
    server = Server("--workers", "1")
    try:
        for confirmations in (1, 2, 3, 5):
            captured, sizes = run_session(server, confirmations)
            figures["frames"][confirmations] = captured
            print("confirmations %d: captured at frame %s" % (confirmations, captured))
            if confirmations == 3:
                whole = statistics.median(s[0] for s in sizes)
                captures = statistics.median(s[1] for s in sizes)
                figures["bytes"] = {"frame_result": whole, "captures": captures, "results": len(sizes)}
                print("bytes per result (median of %d): whole FrameResult %d, its captures %d (%.1f %%)" % (
                    len(sizes), whole, captures, 100 * captures / whole))
    finally:
        server.stop()
    folder = tempfile.mkdtemp(prefix="legible-capture-")
    card = os.path.join(folder, "card.jpg")
    with open(card, "wb") as f:
        f.write(card_frame(1))
    for name, path in (("card", card), ("camera-720p", os.path.join(REPO, "Tests", "Fixtures", "camera-720p.jpg"))):
        row = floor_cost(args.legibled, path)
        figures["cost"][name] = {"capture_us": row["capture_us"], "found": row["captures_found"],
                                 "recognize_ms": row["median_ms"]}
        print("%s: finding 3 goals' values %.1f us per result (%d found), recognition %.1f ms" % (
            name, row["capture_us"], row["captures_found"], row["median_ms"]))
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)


if __name__ == "__main__":
    main()
