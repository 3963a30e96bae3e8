#!/usr/bin/env python3
"""Drives a legibled under callgrind (bench/profile.sh): one session, 10 reads of the same
1280x720 camera frame (recognize_unchanged, so every one is read)."""
import io
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import camera_frames as cf  # noqa: E402
from legible_client import Stream, build_image, pb  # noqa: E402

address = sys.argv[1]
image, _ = cf.scene()
buffer = io.BytesIO()
image.save(buffer, "JPEG", quality=90)
data = buffer.getvalue()
stream = Stream(address)
stream.send(pb.ClientMessage(start=pb.StartSession(options=pb.RecognitionOptions(recognize_unchanged=True))))
assert stream.receive().WhichOneof("message") == "started"
began = time.time()
for index in range(10):
    stream.send(pb.ClientMessage(frame=pb.Frame(frame_id=index + 1, image=build_image(pb.ENCODING_JPEG, data))))
    result = stream.receive().result
    assert result.status == pb.FRAME_STATUS_RECOGNIZED, result
stream.send(pb.ClientMessage(end=pb.EndSession()))
stream.receive()
print(f"10 frames in {time.time() - began:.1f} s under callgrind", file=sys.stderr)
