#!/usr/bin/env python3
"""Writes the seed corpus of fuzz target (e), http2 (fuzz/http2/corpus), and its regression
input (Tests/Fixtures/fuzz-regressions/http2): what a gRPC client writes on a connection after
the preface, as raw HTTP/2 frames with HPACK literal fields, behind HTTP2Harness's header (a
mode byte, then the 8-byte seed that cuts the bytes into chunks)."""
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CORPUS = os.path.join(ROOT, "fuzz", "http2", "corpus")
REGRESSIONS = os.path.join(ROOT, "Tests", "Fixtures", "fuzz-regressions", "http2")

PREFACE, ANSWER_AS_THEY_COME, INTERFERE, GO_AWAY = 1, 2, 4, 8
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 0, 1, 2, 3, 4, 6, 7, 8, 9
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4


def frame(kind, flags, stream, payload=b""):
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def literal(name, value):
    """A field without indexing, no Huffman coding (short names and values)."""
    name, value = name.encode(), value.encode()
    return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value


def request(path, content_type="application/grpc", extra=()):
    fields = [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "localhost"),
              ("content-type", content_type), ("te", "trailers"), *extra]
    return b"".join(literal(n, v) for n, v in fields)


def message(payload):
    return b"\x00" + struct.pack(">I", len(payload)) + payload


def seed(mode, chunking, body):
    return bytes([mode]) + struct.pack("<Q", chunking) + body


START = frame(SETTINGS, 0, 0) + frame(SETTINGS, ACK, 0)
RECOGNIZE, STREAM = "/legible.v1.Recognizer/Recognize", "/legible.v1.Recognizer/Stream"

SEEDS = {
    "unary": seed(PREFACE, 1, START + frame(HEADERS, END_HEADERS, 1, request(RECOGNIZE))
                  + frame(DATA, END_STREAM, 1, message(b"\x12\x03abc"))),
    "stream-three-messages": seed(PREFACE | ANSWER_AS_THEY_COME, 2, START + frame(HEADERS, END_HEADERS, 1, request(STREAM))
                                  + frame(DATA, 0, 1, message(b"one") + message(b"tw")) + frame(DATA, 0, 1, b"o")
                                  + frame(DATA, END_STREAM, 1, message(b"three"))),
    "two-streams-interleaved": seed(PREFACE | INTERFERE, 3, START + frame(HEADERS, END_HEADERS, 1, request(STREAM))
                                    + frame(HEADERS, END_HEADERS, 3, request(STREAM)) + frame(DATA, 0, 3, message(b"b"))
                                    + frame(DATA, 0, 1, message(b"a")) + frame(RST_STREAM, 0, 3, struct.pack(">I", 8))
                                    + frame(DATA, END_STREAM, 1, b"")),
    "refused-requests": seed(PREFACE, 4, START
                             + frame(HEADERS, END_HEADERS | END_STREAM, 1, request(RECOGNIZE, "text/plain"))
                             + frame(HEADERS, END_HEADERS | END_STREAM, 3, request("/legible.v1.Recognizer/Nope"))
                             + frame(HEADERS, END_HEADERS | END_STREAM, 5, request(RECOGNIZE, extra=[("grpc-encoding", "gzip")]))
                             + frame(HEADERS, END_HEADERS | END_STREAM, 7, request(RECOGNIZE, extra=[("grpc-timeout", "123456789S")]))
                             + frame(HEADERS, END_HEADERS | END_STREAM, 9, request(RECOGNIZE, extra=[("authorization", "Basic x")]))),
    "message-too-large": seed(PREFACE, 5, START + frame(HEADERS, END_HEADERS, 1, request(STREAM))
                              + frame(DATA, END_STREAM, 1, message(b"x" * 5000))),
    "ping-window-priority": seed(PREFACE, 6, START + frame(PING, 0, 0, b"12345678") + frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 1 << 20))
                                 + frame(HEADERS, END_HEADERS, 1, request(STREAM)) + frame(PRIORITY, 0, 1, struct.pack(">IB", 0, 16))
                                 + frame(WINDOW_UPDATE, 0, 1, struct.pack(">I", 4096)) + frame(DATA, END_STREAM, 1, message(b"p"))),
    "client-trailers": seed(PREFACE, 7, START + frame(HEADERS, END_HEADERS, 1, request(STREAM)) + frame(DATA, 0, 1, message(b"t"))
                            + frame(HEADERS, END_HEADERS | END_STREAM, 1, literal("x-trailer", "1"))),
    "continuation": seed(PREFACE, 8, START + frame(HEADERS, 0, 1, request(STREAM)[:20])
                         + frame(CONTINUATION, END_HEADERS, 1, request(STREAM)[20:]) + frame(DATA, END_STREAM, 1, message(b"c"))),
    "drain-with-calls-open": seed(PREFACE | GO_AWAY | ANSWER_AS_THEY_COME, 9, START + frame(HEADERS, END_HEADERS, 1, request(STREAM))
                                  + frame(DATA, 0, 1, message(b"d")) + frame(HEADERS, END_HEADERS, 3, request(STREAM))
                                  + frame(GOAWAY, 0, 0, struct.pack(">II", 3, 0))),
    "no-preface": seed(0, 10, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
}

# An HPACK literal added to the table with an empty name and value (0x40 0x00 0x00), then one-byte
# references to it (0xbe, dynamic entry 62): before header lists were sized with 32 octets per
# field, these fields had size 0, never reached the limit, and each was summed over the ones
# before (found by hand at stop 45: 60 KB held the event loop for 2.7 s).
REGRESSION = {
    "empty-field-references": seed(PREFACE, 11, START + frame(HEADERS, END_HEADERS | END_STREAM, 1,
                                                              b"\x40\x00\x00" + b"\xbe" * 16000)
                                   + frame(HEADERS, END_HEADERS | END_STREAM, 3, request(RECOGNIZE))),
}

for folder, seeds in ((CORPUS, SEEDS), (REGRESSIONS, REGRESSION)):
    os.makedirs(folder, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    print(f"{os.path.relpath(folder, ROOT)}: {len(seeds)} inputs")
