#!/usr/bin/env python3
"""Server overhead: median end-to-end latency of one JPEG over the unix socket (legibled)
beside the median of the bare Tesseract call on the same decoded image in one process
(legible-floor). Both run with OMP_THREAD_LIMIT=1, one after the other, in this one run."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "clients", "python"))
from legible_client import Stream, pb  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--legibled", required=True)
    p.add_argument("--floor", required=True)
    p.add_argument("--image", required=True)
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--warmup", type=int, default=3)
    a = p.parse_args()
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    floor = json.loads(subprocess.run([a.floor, "--repeat", str(a.runs), "--warmup", str(a.warmup), a.image],
                                      env=env, capture_output=True, text=True, check=True).stdout)
    d = tempfile.mkdtemp()
    path = os.path.join(d, "s.sock")
    server = subprocess.Popen([a.legibled, "--listen", "unix:" + path], env=env, stderr=subprocess.DEVNULL)
    try:
        while not os.path.exists(path):
            time.sleep(0.05)
        stream = Stream("unix:" + path)
        # The same frame again and again: read each one (no unchanged skipping).
        stream.send(pb.ClientMessage(start=pb.StartSession(protocol_version=1, options=pb.RecognitionOptions(recognize_unchanged=True))))
        stream.receive()
        data = open(a.image, "rb").read()
        latencies = []
        for i in range(a.warmup + a.runs):
            t = time.perf_counter()
            stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=i + 1, image=pb.Image(encoding=pb.ENCODING_JPEG, data=data))))
            r = stream.receive().result
            elapsed = (time.perf_counter() - t) * 1000
            assert r.status == pb.FRAME_STATUS_RECOGNIZED
            if i >= a.warmup:
                latencies.append(elapsed)
    finally:
        server.terminate()
        server.wait()
    legible = statistics.median(latencies)
    print(json.dumps({"image": a.image, "runs": a.runs, "floor_median_ms": round(floor["median_ms"], 2),
                      "legible_median_ms": round(legible, 2),
                      "legible_p90_ms": round(sorted(latencies)[int(0.9 * len(latencies)) - 1], 2),
                      "overhead_ratio": round(legible / floor["median_ms"], 4)}))


if __name__ == "__main__":
    main()
