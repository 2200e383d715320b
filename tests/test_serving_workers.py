"""``lawgraph serve --workers N``: worker processes with a listening socket each."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lawgraph.api import workers

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not workers.supported(), reason="needs SO_REUSEPORT")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid: int) -> list[int]:
    """The worker processes of the server ``pid``."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text().rsplit(")", 1)[1].split()
                cmd = (d / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat[1]) == pid and b"spawn_main" in cmd:
                out.append(int(d.name))
    return out


def connections(pid: int, port: int) -> int:
    """Established TCP connections of ``pid`` on the server port (from /proc)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    count = 0
    for line in Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]:
        f = line.split()
        if f[3] == "01" and int(f[1].split(":")[1], 16) == port and f[9] in inodes:
            count += 1
    return count


def get(sock: socket.socket, path: str = "/api/health") -> bytes:
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    return data


@pytest.fixture()
def serving(ingested):
    port = free_port()
    exe = Path(sys.executable).parent / "lawgraph"
    proc = subprocess.Popen([str(exe), "serve", "--db", str(ingested[0]), "--port", str(port),
                             "--workers", "2"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode()
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0 and b" 200 " in get(s):
                break
        time.sleep(0.2)
    while len(children(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    yield proc, port
    if proc.poll() is None:
        proc.terminate()  # the supervisor stops its workers
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_new_connections_are_spread_over_the_workers(serving):
    proc, port = serving
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(40)]
    try:
        for s in socks:  # opened at once, as a load balancer or a burst of clients does
            assert get(s).startswith(b"HTTP/1.1 200")
        workers_ = [p for p in children(proc.pid) if connections(p, port)]
        counts = sorted(connections(p, port) for p in children(proc.pid))
        assert len(workers_) == 2 and sum(counts) == 40
        assert counts[0] >= 8, f"connections per worker: {counts}"  # shared socket: often 0-3
    finally:
        for s in socks:
            s.close()


def test_a_dead_worker_is_replaced_and_sigterm_stops_all(serving):
    proc, port = serving
    first = children(proc.pid)
    os.kill(first[0], signal.SIGKILL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        now = children(proc.pid)
        if len(now) == 2 and first[0] not in now:
            break
        time.sleep(0.2)
    assert len(now) == 2 and first[0] not in now
    for _ in range(10):
        with socket.create_connection(("127.0.0.1", port)) as s:
            assert get(s).startswith(b"HTTP/1.1 200")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0
    assert not [p for p in now if Path(f"/proc/{p}").exists()]


def test_workers_stop_when_the_supervisor_is_killed(serving):
    proc, _ = serving
    now = children(proc.pid)
    proc.kill()  # SIGKILL: the supervisor cannot stop its workers itself
    proc.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and [p for p in now if Path(f"/proc/{p}").exists()]:
        time.sleep(0.2)
    assert not [p for p in now if Path(f"/proc/{p}").exists()], "orphaned workers still run"


def test_a_taken_port_is_a_clear_error(ingested):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError):
            workers.check_free("127.0.0.1", port)
        from click.testing import CliRunner

        from lawgraph.api.cli import main

        r = CliRunner().invoke(main, ["serve", "--db", str(ingested[0]), "--port", str(port),
                                      "--workers", "2"])  # fmt: skip
        assert r.exit_code != 0 and "cannot listen on" in r.output
