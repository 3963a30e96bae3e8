#!/usr/bin/python3
"""Runs legibled under the seccomp filters systemd would install for deploy/legibled.service,
and has it do real work: every script's engine, ACCURATE, OSD, /metrics, then a SIGTERM drain.

Reads from the unit file: SystemCallFilter= (groups expanded by `systemd-analyze
syscall-filter`; a call outside them kills the process with SIGSYS, as systemd does),
RestrictAddressFamilies= (other families: EAFNOSUPPORT) and MemoryDenyWriteExecute= (mmap
writable and executable, mprotect/pkey_mprotect adding PROT_EXEC, shmat with SHM_EXEC: EPERM,
as systemd's filter does), and the Environment= lines. What needs the service manager
(DynamicUser, ProtectSystem and the other mount namespaces) is not reproduced here;
`systemd-analyze verify` checks the file itself.

Needs Debian's python3-seccomp and systemd (for systemd-analyze); `make check-sandbox` installs
them when missing. Usage: deploy/check-sandbox.py [--legibled PATH] [--legible PATH]
"""
import argparse
import errno
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import seccomp

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FAMILIES = {"AF_UNIX": socket.AF_UNIX, "AF_INET": socket.AF_INET, "AF_INET6": socket.AF_INET6}


def unit_settings(path):
    """{key: [values in order]} of the [Service] section."""
    settings, section = {}, None
    for line in open(path):
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Service]" and "=" in line:
            key, _, value = line.partition("=")
            settings.setdefault(key, []).append(value)
    return settings


def expand(group, seen=None):
    """The system calls of a systemd group such as @system-service, nested groups included."""
    seen = set() if seen is None else seen
    if not group.startswith("@"):
        return {group}
    if group in seen:
        return set()
    seen.add(group)
    out = subprocess.run(["systemd-analyze", "syscall-filter", group], capture_output=True, text=True, check=True)
    names = set()
    for line in out.stdout.splitlines()[1:]:
        item = line.strip()
        if item and not item.startswith("#"):
            names |= expand(item, seen)
    return names


def allowed_syscalls(filters):
    """systemd's rule: the first SystemCallFilter= decides allow list or deny list; later
    lines add to it, or (with ~) take away from it."""
    allowed = set()
    for index, value in enumerate(filters):
        deny = value.startswith("~")
        names = set().union(*(expand(item) for item in value.lstrip("~").split()))
        if index == 0 and deny:
            sys.exit("check-sandbox: a deny-list SystemCallFilter= is not handled")
        allowed = allowed - names if deny else allowed | names
    return allowed


def build_filters(settings):
    filters = []
    if "SystemCallFilter" in settings:
        allow = seccomp.SyscallFilter(defaction=seccomp.KILL_PROCESS)
        for name in sorted(allowed_syscalls(settings["SystemCallFilter"])):
            try:
                allow.add_rule(seccomp.ALLOW, name)
            except (RuntimeError, ValueError):
                pass  # not a system call on this architecture
        filters.append(allow)
    guard = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    if settings.get("MemoryDenyWriteExecute", ["no"])[-1] == "yes":
        write_exec = 0x2 | 0x4  # PROT_WRITE | PROT_EXEC
        guard.add_rule(seccomp.ERRNO(errno.EPERM), "mmap", seccomp.Arg(2, seccomp.MASKED_EQ, write_exec, write_exec))
        for call in ("mprotect", "pkey_mprotect"):
            guard.add_rule(seccomp.ERRNO(errno.EPERM), call, seccomp.Arg(2, seccomp.MASKED_EQ, 0x4, 0x4))
        guard.add_rule(seccomp.ERRNO(errno.EPERM), "shmat", seccomp.Arg(2, seccomp.MASKED_EQ, 0o100000, 0o100000))
    if "RestrictAddressFamilies" in settings:
        keep = {FAMILIES[name] for name in settings["RestrictAddressFamilies"][-1].split()}
        for family in range(0, 64):
            if family not in keep:
                guard.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.EQ, family))
    filters.insert(0, guard)  # loaded first: the allow list must still permit execve after
    return filters


def environment(settings):
    env = {}
    for value in settings.get("Environment", []):
        for assignment in shlex.split(value):
            key, _, val = assignment.partition("=")
            env[key] = val
    return env


def get(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, ""
    except OSError:
        return None, ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unit", default=os.path.join(HERE, "legibled.service"))
    parser.add_argument("--legibled", default=os.path.join(REPO, ".build", "release", "legibled"))
    parser.add_argument("--legible", default=None)
    args = parser.parse_args()
    legible = args.legible or os.path.join(os.path.dirname(args.legibled), "legible")
    settings = unit_settings(args.unit)
    filters = build_filters(settings)
    folder = tempfile.mkdtemp(prefix="legible-sandbox-")
    sock = os.path.join(folder, "legible.sock")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        metrics = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEGIBLE_")}
    env.update(environment(settings))
    # The unit's own addresses are for a real host; here a temporary socket and a free port.
    env["LEGIBLE_LISTEN"] = "unix:" + sock
    env["LEGIBLE_METRICS"] = f"tcp:127.0.0.1:{metrics}"

    def sandbox():
        for f in filters:
            f.load()

    log = open(os.path.join(folder, "legibled.log"), "w+")
    server = subprocess.Popen([args.legibled], env=env, stderr=log, preexec_fn=sandbox)
    problems = []
    try:
        deadline = time.monotonic() + 60
        while get(metrics, "/readyz")[0] != 200:
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"legibled did not become ready (exit {server.returncode}): {open(log.name).read()}")
            time.sleep(0.1)
        image = os.path.join(REPO, "Tests", "Fixtures", "camera-720p.jpg")
        runs = [["--script", s] for s in ("latin", "chinese", "devanagari", "japanese", "korean")]
        runs += [["--level", "accurate"], ["--auto-orientation"], ["--script", "latin", "--script", "devanagari"]]
        for flags in runs:
            out = subprocess.run([legible, "recognize", "--server", "unix:" + sock, *flags, image],
                                 capture_output=True, text=True, timeout=120)
            ok = out.returncode == 0 and server.poll() is None
            print(f"{'ok  ' if ok else 'FAIL'} recognize {' '.join(flags)}: {out.stdout.strip().splitlines()[:1]}")
            if not ok:
                problems.append(f"recognize {flags}: exit {out.returncode} {out.stderr.strip()}")
        status, page = get(metrics, "/metrics")
        rss = re.search(r"^process_resident_memory_bytes (\S+)", page, re.M)
        print(f"{'ok  ' if status == 200 else 'FAIL'} /metrics {status}, resident {float(rss.group(1)) / 2**20:.0f} MB"
              if rss else f"FAIL /metrics {status}")
        if status != 200:
            problems.append("/metrics")
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=60)
        print(f"{'ok  ' if code == 0 else 'FAIL'} SIGTERM: exit {code}")
        if code != 0:
            problems.append(f"exit {code}" + (" (SIGSYS: a system call outside the filter)" if code == -31 else ""))
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    if problems:
        print(open(log.name).read()[-2000:])
        sys.exit("check-sandbox: " + "; ".join(problems))
    print(f"check-sandbox: legibled works under {args.unit}'s system-call filter, address families and W^X rule")


if __name__ == "__main__":
    main()
