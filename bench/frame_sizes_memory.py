#!/usr/bin/env python3
"""Memory as one client sends frames of ever new sizes: one JPEG of each of 400 random sizes
(200-1900 px a side, seed 1, a word of text on gray), FAST, one session, each answered before the
next; legibled's VmRSS every 50 frames, summed with its engine worker processes'. Extra arguments go to legibled.

    python3 bench/frame_sizes_memory.py [LEGIBLED FLAGS...]
"""
import sys, os, io, random, subprocess, tempfile, time
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(REPO)
sys.path.insert(0, "clients/python")
from legible_client import Stream, build_image, pb
from PIL import Image, ImageDraw
folder = tempfile.mkdtemp(); sock = os.path.join(folder, "s.sock")
extra = sys.argv[1:]
server = subprocess.Popen([".build/release/legibled", "--listen", "unix:" + sock] + extra, stderr=subprocess.DEVNULL)
while not os.path.exists(sock): time.sleep(0.1)
time.sleep(3)
sys.path.insert(0, "bench")
import run as bench_run  # children(pid): the engine worker processes, where the frames are read
def vmrss(pid): return int([l for l in open("/proc/%d/status" % pid) if l.startswith("VmRSS")][0].split()[1]) // 1024
def rss(): return sum(vmrss(pid) for pid in [server.pid] + bench_run.children(server.pid))
st = Stream("unix:" + sock); st.send(pb.ClientMessage(start=pb.StartSession(options=pb.RecognitionOptions(recognize_unchanged=True)))); st.receive()
rng = random.Random(1)
print("start", rss())
for i in range(400):
    w, h = rng.randrange(200, 1900), rng.randrange(200, 1900)
    im = Image.new("L", (w, h), 220); ImageDraw.Draw(im).text((10, h // 2), "HELLO %d" % i, fill=10)
    b = io.BytesIO(); im.save(b, "JPEG"); 
    st.send(pb.ClientMessage(frame=pb.Frame(frame_id=i + 1, image=build_image(pb.ENCODING_JPEG, b.getvalue()))))
    while st.receive().WhichOneof("message") != "result": pass
    if (i + 1) % 50 == 0: print(i + 1, "frames of distinct sizes: RSS", rss(), "MB", flush=True)
server.terminate(); server.wait()
