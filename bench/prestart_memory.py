#!/usr/bin/env python3
"""Memory a stranger can make legibled hold before authentication (issue 18's third item).

40 connections to a legibled with --auth-token-file each declare a message and trickle its bytes
without ever sending a token: first 16 MiB declared (refused at the header now), then 119,000
bytes (just under the largest valid StartSession, the most a stream takes before its session has
started). Prints legibled's RSS before and after each.

    python3 bench/prestart_memory.py [--legibled .build/release/legibled]
"""
import argparse
import os
import socket
import struct
import subprocess
import tempfile
import time


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--legibled", default=".build/release/legibled")
    p.add_argument("--connections", type=int, default=40)
    a = p.parse_args()
    folder = tempfile.mkdtemp(prefix="legible-prestart-")
    sock = os.path.join(folder, "s.sock")
    tokens = os.path.join(folder, "tokens")
    with open(tokens, "w") as f:
        f.write("s3cret\n")
    server = subprocess.Popen([a.legibled, "--listen", "unix:" + sock, "--auth-token-file", tokens],
                              stderr=subprocess.DEVNULL)
    try:
        while not os.path.exists(sock):
            time.sleep(0.1)
        time.sleep(3)  # the default engine loads

        def rss():
            with open("/proc/%d/status" % server.pid) as f:
                return int(next(line for line in f if line.startswith("VmRSS")).split()[1]) // 1024

        base = rss()
        for declared, body in ((16 << 20, 16 << 20), (119_000, 118_000)):
            connections = []
            for _ in range(a.connections):
                c = socket.socket(socket.AF_UNIX)
                c.connect(sock)
                c.sendall(b"\x00" + struct.pack(">I", declared))
                connections.append(c)
            sent, started = 0, time.time()
            while sent < body and time.time() - started < 8:
                for c in connections:
                    try:
                        c.send(b"\x0a" * 16384)
                    except OSError:
                        pass  # refused and closed by the server
                sent += 16384
                time.sleep(0.05)
            print("%d connections declaring %d bytes, %d sent on each: RSS %d -> %d MB" % (
                a.connections, declared, min(sent, body), base, rss()))
            for c in connections:
                c.close()
            time.sleep(1)
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
