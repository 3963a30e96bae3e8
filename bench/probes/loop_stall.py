#!/usr/bin/env python3
"""How long one client's costly-to-read bytes hold legibled's event loop, which serves every
connection. For each attack below (median of --rounds): how long the server took to read the
attacker's bytes and answer what followed them (a Ping, an HTTP/2 PING; or the error that ended
the attacker's session), and the longest a polite framed session, pinging every 2 ms meanwhile,
waited for a Pong. Reading an attack should cost about what reading as many plain bytes costs
(the contrasts: one 15 MB custom word; a gRPC message in 16 KB frames).

    python3 bench/probes/loop_stall.py [--legibled PATH] [--rounds N] [--attacks NAME,...]

Attacks (framed protocol, a started session): an UpdateSession of 15 million packed scripts,
3 million language hints "en", 7 million empty custom words, 5 million empty capture goals, a
Ping followed by 5 million unknown varint fields; contrast: an UpdateSession of one 15 MB
custom word. HTTP/2 (prior knowledge, a fresh connection):
a 1 MB HEADERS block of one-byte HPACK references to an empty field; a 200 KB gRPC message in
one-byte DATA frames (2 MB on the wire), and the same message in 16 KB frames for contrast.
Stop 45's probe (release build).
"""
import argparse
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "clients", "python"))
sys.path.insert(0, os.path.join(REPO, "clients", "python", "tests"))
from legible_client import Stream, pb  # noqa: E402
from raw_protobuf import length_delimited  # noqa: E402


def update_of(entries):
    message = length_delimited(0x1A, length_delimited(0x0A, entries))  # ClientMessage.update.options
    return b"\x00" + struct.pack(">I", len(message)) + message


def big_goal():
    """RecognitionOptions.capture_goals (field 18, a two-byte tag) of one goal whose pattern has
    15 MB."""
    goal = length_delimited(0x0A, b"g") + length_delimited(0x1A, b"a" * 15_000_000)
    return b"\x92" + length_delimited(0x01, goal)


def framed_frame(size):
    message = pb.ClientMessage(frame=pb.Frame(frame_id=1, image=pb.Image(encoding=pb.ENCODING_JPEG,
                                                                          data=b"\xff" * size))).SerializeToString()
    return b"\x00" + struct.pack(">I", len(message)) + message


def ping_with_unknown_fields(count):
    message = pb.ClientMessage(ping=pb.Ping(nonce=5)).SerializeToString() + b"\x98\x06\x01" * count
    return b"\x00" + struct.pack(">I", len(message)) + message


FRAMED = {
    "framed-scripts": lambda: update_of(length_delimited(0x0A, b"\x01" * 15_000_000)),
    "framed-language-hints": lambda: update_of(b"\x12\x02en" * 3_000_000),
    "framed-custom-words": lambda: update_of(b"\x2a\x00" * 7_000_000),
    "framed-capture-goals": lambda: update_of(b"\x92\x01\x00" * 5_000_000),
    "framed-unknown-fields": lambda: ping_with_unknown_fields(5_000_000),
    "framed-one-big-custom-word": lambda: update_of(length_delimited(0x2A, b"w" * 15_000_000)),
    "framed-one-big-language-hint": lambda: update_of(length_delimited(0x12, b"e" * 15_000_000)),
    "framed-one-big-goal-pattern": lambda: update_of(big_goal()),
    "framed-15mb-frame (contrast)": lambda: framed_frame(15_000_000),
}


def h2_frame(kind, flags, stream, payload=b""):
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def literal(name, value):
    return b"\x00" + bytes([len(name)]) + name.encode() + bytes([len(value)]) + value.encode()


GRPC_STREAM = b"".join(literal(n, v) for n, v in [
    (":method", "POST"), (":scheme", "http"), (":path", "/legible.v1.Recognizer/Stream"), (":authority", "x"),
    ("content-type", "application/grpc"), ("te", "trailers")])


def data_frames(chunk):
    message = b"\x00" + struct.pack(">I", 200_000) + b"\x0a" * 200_000
    return b"".join(h2_frame(0, 0, 1, message[i:i + chunk]) for i in range(0, len(message), chunk))


HTTP2 = {
    "http2-empty-field-references": lambda: h2_frame(1, 0x5, 1, b"\x40\x00\x00" + b"\xbe" * 1_000_000),
    "http2-one-byte-data-frames": lambda: h2_frame(1, 0x4, 1, GRPC_STREAM) + data_frames(1),
    "http2-16k-data-frames": lambda: h2_frame(1, 0x4, 1, GRPC_STREAM) + data_frames(16_384),
}


def started(address):
    stream = Stream(address)
    stream.send(pb.ClientMessage(start=pb.StartSession(protocol_version=1, client_name="loop-stall")))
    while stream.receive().WhichOneof("message") != "started":
        pass
    return stream


def ping(stream, nonce):
    begun = time.monotonic()
    stream.send(pb.ClientMessage(ping=pb.Ping(nonce=nonce)))
    while True:
        message = stream.receive()
        if message is None:
            raise SystemExit("the polite session was closed")
        if message.WhichOneof("message") == "pong":
            return (time.monotonic() - begun) * 1000


class Pinger(threading.Thread):
    """Pings the polite session every 2 ms and keeps (sent at, round trip) of each."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream, self.times, self.stopping = stream, [], threading.Event()

    def run(self):
        nonce = 100
        while not self.stopping.is_set():
            nonce += 1
            begun = time.monotonic()
            self.times.append((begun, ping(self.stream, nonce)))
            time.sleep(0.002)

    def longest_between(self, start, end):
        """The longest round trip of a Ping in flight at any moment of [start, end]."""
        return max((rtt for sent, rtt in self.times if sent <= end and sent + rtt / 1000 >= start), default=0.0)


def framed_answer(stream):
    """Reads the attacker's session until its Pong or the error that ended it."""
    while True:
        message = stream.receive()
        if message is None or message.WhichOneof("message") in ("pong", "error"):
            return


def http2_answer(sock):
    """Reads the attacker's connection until a PING ACK, or until it is closed."""
    buffered = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except OSError:
            return
        if not chunk:
            return
        buffered += chunk
        while len(buffered) >= 9 and len(buffered) >= 9 + int.from_bytes(buffered[:3], "big"):
            if buffered[3] == 6 and buffered[4] & 1:
                return
            buffered = buffered[9 + int.from_bytes(buffered[:3], "big"):]


def http2_connection(path):
    """A connection past the preface, its SETTINGS exchanged (the server's 1 MiB frames apply)."""
    sock = socket.socket(socket.AF_UNIX)
    sock.connect(path)
    sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + h2_frame(4, 0, 0))
    sock.settimeout(10)
    received = b""
    while len(received) < 9 or received[3] != 4:
        received += sock.recv(65536)
    sock.sendall(h2_frame(4, 1, 0))
    return sock


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--legibled", default=os.path.join(REPO, ".build", "release", "legibled"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--attacks", default=",".join([*FRAMED, *HTTP2]), help="comma-separated names")
    args = parser.parse_args()
    attacks = args.attacks.split(",")
    for name in attacks:
        if name not in FRAMED and name not in HTTP2:
            parser.error(f"unknown attack {name}")
    folder = tempfile.mkdtemp(prefix="loop-stall-")
    path = os.path.join(folder, "s.sock")
    log = open(os.path.join(folder, "log"), "w")
    server = subprocess.Popen([args.legibled, "--listen", "unix:" + path], stderr=log)
    try:
        while not os.path.exists(path):
            time.sleep(0.05)
        time.sleep(2)  # the default engine loads
        pinger = Pinger(started("unix:" + path))
        pinger.start()
        print(f"{'attack':34} {'bytes':>10} {'read and answered, ms':>22} {'polite Ping, longest ms':>24}"
              f"   (medians of {args.rounds})")
        for name in attacks:
            payload = (FRAMED.get(name) or HTTP2[name])()
            served, longest = [], []
            for _ in range(args.rounds):
                if name in FRAMED:
                    attacker = started("unix:" + path)
                    begun = time.monotonic()
                    attacker.send_raw(payload + b"\x00\x00\x00\x00\x04\x22\x02\x08\x09")  # then Ping(nonce 9)
                    framed_answer(attacker)
                else:
                    attacker = http2_connection(path)
                    begun = time.monotonic()
                    attacker.sendall(payload + h2_frame(6, 0, 0, b"12345678"))
                    http2_answer(attacker)
                ended = time.monotonic()
                time.sleep(0.05)
                served.append((ended - begun) * 1000)
                longest.append(pinger.longest_between(begun, ended))
                attacker.close()
            print(f"{name:34} {len(payload):>10} {statistics.median(served):>22.1f} {statistics.median(longest):>24.1f}",
                  flush=True)
        pinger.stopping.set()
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
