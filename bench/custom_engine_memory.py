#!/usr/bin/env python3
"""Memory of custom engines against the pool's estimate (issue 18: --custom-engine-mb).

Starts legibled, warms the default engine, then opens sessions that each ask for different
custom words (so each needs an engine of its own), reads one 720p frame in each and closes it,
printing the server's VmRSS (and its peak), with its engine worker processes', after each. The pool keeps at most --max-custom-engines
such engines and at most --custom-engine-mb of them by its estimate, unloading the least recently
used: RSS should level off near the default engine's RSS plus that budget.

    python3 bench/custom_engine_memory.py [--legibled .build/release/legibled] [--engines 24]
        [-- legibled flags, e.g. --max-custom-engines 24]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "clients", "python"))
from legible_client import Stream, build_image, pb  # noqa: E402

sys.path.insert(0, HERE)
import run as bench_run  # noqa: E402  (children(pid))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--legibled", default=".build/release/legibled")
    p.add_argument("--engines", type=int, default=24)
    p.add_argument("flags", nargs="*", help="more legibled flags")
    a = p.parse_args()
    folder = tempfile.mkdtemp(prefix="legible-custom-")
    sock = os.path.join(folder, "s.sock")
    server = subprocess.Popen([a.legibled, "--listen", "unix:" + sock] + a.flags, stderr=subprocess.DEVNULL,
                              env=dict(os.environ, OMP_THREAD_LIMIT="1"))
    frame = open(os.path.join(os.path.dirname(HERE), "Tests", "Fixtures", "camera-720p.jpg"), "rb").read()

    def status(field):
        """The field summed over the server and its engine worker processes (each engine is a
        worker of its own unless --engine-isolation none)."""
        total = 0
        for pid in [server.pid] + bench_run.children(server.pid):
            try:
                with open("/proc/%d/status" % pid) as f:
                    total += int(next(line for line in f if line.startswith(field)).split()[1])
            except (OSError, StopIteration):
                pass
        return total // 1024

    def read_one(options):
        stream = Stream("unix:" + sock)
        stream.send(pb.ClientMessage(start=pb.StartSession(options=options)))
        stream.receive()
        stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=1, image=build_image(pb.ENCODING_JPEG, frame))))
        while (message := stream.receive()).WhichOneof("message") != "result":
            pass
        stream.close()
        return message.result

    try:
        while not os.path.exists(sock):
            time.sleep(0.1)
        read_one(pb.RecognitionOptions(recognize_unchanged=True))
        base = status("VmRSS")
        print("default engine warm: RSS %d MB" % base)
        for i in range(a.engines):
            result = read_one(pb.RecognitionOptions(custom_words=["Legible%d" % i], recognize_unchanged=True))
            print("custom engine %2d: RSS %d MB (+%d), peak %d MB, %s" % (
                i + 1, status("VmRSS"), status("VmRSS") - base, status("VmHWM"), pb.FrameStatus.Name(result.status)))
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
