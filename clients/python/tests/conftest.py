import os
import subprocess
import sys
import tempfile
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
FIXTURES = os.path.join(REPO, "Tests", "Fixtures")

# Under a sanitizer (make test-asan/test-tsan, LEGIBLE_SANITIZED=1) the server runs several
# times slower: time bounds that are about behaviour, not cost, get this much more room.
SANITIZED = os.environ.get("LEGIBLE_SANITIZED") == "1"
SLOWDOWN = 5 if SANITIZED else 1


class Server:
    """The real legibled binary on a temporary unix socket."""

    def __init__(self, *flags, wait_for_engine=True, env=None):
        self.dir = tempfile.mkdtemp(prefix="legible-test-")
        self.path = os.path.join(self.dir, "s.sock")
        self.address = "unix:" + self.path
        binary = os.environ.get("LEGIBLED", os.path.join(REPO, ".build", "debug", "legibled"))
        self.log = open(os.path.join(self.dir, "log"), "w+")
        self.process = subprocess.Popen([binary, "--listen", self.address, *flags], stderr=self.log,
                                        env=None if env is None else {**os.environ, **env})
        deadline = time.monotonic() + 60
        while not os.path.exists(self.path):
            assert self.process.poll() is None, self.read_log()
            assert time.monotonic() < deadline, "legibled did not start"
            time.sleep(0.05)
        # The default script's engine loads at start (with the line detector it compiles the
        # detection model for the common frame sizes, ~1.2 s): tests measure a warm server.
        while wait_for_engine and time.monotonic() < deadline and self.process.poll() is None:
            log = self.read_log()
            if "engine loaded" in log or "engine failed" in log:
                break
            time.sleep(0.05)

    def read_log(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=60)


def run_with_terminal_stderr(args, raw=False, timeout=60):
    """Runs `args` with stderr on a pseudo-terminal (as a user's shell has it) and stdout piped;
    returns (exit code, the bytes the terminal got, stdout). `raw` turns off the line
    discipline's output processing, so the bytes are exactly what was written."""
    import pty
    import tty
    master, slave = pty.openpty()
    if raw:
        tty.setraw(slave)
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    terminal = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO once the last writer has closed the terminal
            break
        if not chunk:
            break
        terminal += chunk
    os.close(master)
    stdout = process.stdout.read()
    process.stdout.close()
    return process.wait(timeout=timeout), terminal, stdout


@pytest.fixture(scope="module")
def server():
    s = Server()
    yield s
    s.stop()
