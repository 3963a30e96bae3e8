"""Protobuf fields written out byte by byte, for messages no generated client would send (a
list of millions of entries, a string of megabytes): the hardening tests and
bench/probes/loop_stall.py build their attacks with it."""


def length_delimited(tag, payload):
    """A field of wire type 2: its tag byte, its length as a varint, its payload."""
    length, n = b"", len(payload)
    while True:
        length += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
        n >>= 7
        if not n:
            return bytes([tag]) + length + payload
