#!/usr/bin/env python3
"""Imaging cost beside recognition: starts legibled on a temporary unix socket, streams
scripts/camera_frames.py's 1280x720 scene in every encoding x a few orientations, one frame at a
time (each result awaited, so none is dropped), and reports per encoding and orientation the
medians of FrameResult.timing.decode_us (decode + orient + crop) and recognize_us and their
ratio, then the overall medians and ratio: a table on stdout and one JSON line at the end.
Progress goes to stderr. Runs with OMP_THREAD_LIMIT=1 as bench/overhead.py does."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import camera_frames as cf  # noqa: E402
from legible_client import Stream, build_image, pb  # noqa: E402

ORIENTATIONS = {"up": 1, "right": 6, "down": 3, "leftMirrored": 5}


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--legibled", default=os.path.join(HERE, "..", ".build", "release", "legibled"),
                   help="the server binary (default: .build/release/legibled)")
    p.add_argument("--repeat", type=int, default=10, help="frames per encoding and orientation (default 10)")
    p.add_argument("--warmup", type=int, default=2, help="unmeasured frames first (default 2)")
    p.add_argument("--encodings", default=",".join(cf.ENCODINGS), help="comma-separated, default all")
    p.add_argument("--orientations", default=",".join(ORIENTATIONS), help="comma-separated, default all four")
    a = p.parse_args()
    encodings = [e.strip().upper() for e in a.encodings.split(",") if e.strip()]
    orientations = [o.strip() for o in a.orientations.split(",") if o.strip()]

    upright, _ = cf.scene()
    images = {}
    for o in orientations:
        stored = cf.to_stored(upright, ORIENTATIONS[o])
        for e in encodings:
            data, width, height, stride = cf.encode(stored, cf.ENCODINGS[e])
            images[e, o] = build_image(cf.ENCODINGS[e], data, width, height, stride)

    d = tempfile.mkdtemp(prefix="legible-bench-")
    path = os.path.join(d, "s.sock")
    log = open(os.path.join(d, "log"), "w")
    server = subprocess.Popen([a.legibled, "--listen", "unix:" + path],
                              env=dict(os.environ, OMP_THREAD_LIMIT="1"), stderr=log)
    rows = {}
    failures = {}
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(path):
            if server.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"legibled did not start; see {log.name}")
            time.sleep(0.05)
        stream = Stream("unix:" + path)
        stream.send(pb.ClientMessage(start=pb.StartSession(protocol_version=1, client_name="bench-imaging",
                                                            options=pb.RecognitionOptions(recognize_unchanged=True))))
        assert stream.receive().WhichOneof("message") == "started"
        frame_id = 0
        for (e, o), image in images.items():
            decode, recognize = [], []
            for i in range(a.warmup + a.repeat):
                frame_id += 1
                stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=frame_id, image=image, orientation=ORIENTATIONS[o])))
                message = stream.receive()
                if message is None:
                    sys.exit(f"legibled closed the stream; see {log.name}")
                r = message.result
                if r.status != pb.FRAME_STATUS_RECOGNIZED:
                    failures[f"{e}/{o}"] = f"{pb.FrameStatus.Name(r.status)} {r.error.code} {r.error.message}"
                    break
                if i >= a.warmup:
                    decode.append(r.timing.decode_us)
                    recognize.append(r.timing.recognize_us)
            if decode:
                rows[e, o] = (decode, recognize)
            print(f"{e:6s} {o:13s} {'done' if decode else 'FAILED: ' + failures[f'{e}/{o}']}", file=sys.stderr)
        stream.close()
    finally:
        server.terminate()
        server.wait(timeout=60)

    def ratio(d, r):
        return d / r if r else float("nan")

    print(f"{'encoding':8s} {'orientation':13s} {'decode_us':>10s} {'recognize_us':>13s} {'ratio':>8s}")
    table = []
    for (e, o), (decode, recognize) in rows.items():
        md, mr = statistics.median(decode), statistics.median(recognize)
        table.append({"encoding": e, "orientation": o, "decode_us": md, "recognize_us": mr, "ratio": round(ratio(md, mr), 4)})
        print(f"{e:8s} {o:13s} {md:10.0f} {mr:13.0f} {ratio(md, mr):8.4f}")
    all_decode = [v for d, _ in rows.values() for v in d]
    all_recognize = [v for _, r in rows.values() for v in r]
    overall = {}
    if all_decode:
        md, mr = statistics.median(all_decode), statistics.median(all_recognize)
        overall = {"decode_us": md, "recognize_us": mr, "ratio": round(ratio(md, mr), 4)}
        print(f"{'overall':8s} {'':13s} {md:10.0f} {mr:13.0f} {ratio(md, mr):8.4f}")
    for key, why in failures.items():
        print(f"failed: {key}: {why}")
    print(json.dumps({"legibled": a.legibled, "repeat": a.repeat, "size": list(upright.size), "rows": table,
                      "overall": overall, "failed": failures}))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
