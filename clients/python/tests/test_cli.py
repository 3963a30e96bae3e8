"""The thin client `legible recognize` against the real server."""
import os
import subprocess
import json

from conftest import FIXTURES, REPO

LEGIBLE = os.path.join(os.path.dirname(os.environ.get("LEGIBLED", os.path.join(REPO, ".build", "debug", "legibled"))), "legible")


def run(*args):
    return subprocess.run([LEGIBLE, *args], capture_output=True, text=True, timeout=120)


def test_prints_text(server):
    out = run("recognize", "--server", server.address, os.path.join(FIXTURES, "label-640x480.jpg"))
    assert out.returncode == 0, out.stderr
    want = [l["text"] for l in json.load(open(os.path.join(FIXTURES, "label-640x480.json")))["lines"]]
    assert out.stdout.splitlines() == want


def test_json_has_protocol_field_names(server):
    out = run("recognize", "--server", server.address, "--format", "json", os.path.join(FIXTURES, "label-640x480.jpg"))
    assert out.returncode == 0, out.stderr
    tree = json.loads(out.stdout)
    line = tree["blocks"][0]["lines"][0]
    assert {"text", "frame", "corner_points", "confidence", "recognized_languages", "elements"} <= set(line)
    assert tree["image_width"] == 640


def test_exit_codes(server):
    bad = run("recognize", "--server", server.address, os.path.join(FIXTURES, "not-a-jpeg.jpg"))
    assert bad.returncode == 1 and "Not a JPEG file" in bad.stderr
    unreachable = run("recognize", "--server", "unix:/nonexistent/x.sock", os.path.join(FIXTURES, "label-640x480.jpg"))
    assert unreachable.returncode == 2 and unreachable.stderr.count("\n") == 1
    usage = run("recognize", "--format", "xml", "f.jpg")
    assert usage.returncode == 64
    helped = run("recognize", "--help")
    assert helped.returncode == 0 and "USAGE: legible recognize" in helped.stdout
