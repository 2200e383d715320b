"""Interrupted ingests leave no temp stores; a damaged store is rebuilt, not kept."""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lawgraph import store
from lawgraph.ingest import store as ingest_store

LAWGRAPH = [sys.executable, "-c", "from lawgraph.api.cli import run; run()"]


def temps(directory: Path) -> list[Path]:
    return sorted(directory.glob(".lawgraph-*.db.tmp"))


def start_ingest(db: Path) -> subprocess.Popen:
    return subprocess.Popen([*LAWGRAPH, "ingest", "--db", str(db), "--force", "--no-warnings"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # fmt: skip


def wait_for_temp(proc: subprocess.Popen, directory: Path, timeout: float = 120) -> Path:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if found := temps(directory):
            return found[0]
        time.sleep(0.05)
    proc.kill()
    pytest.fail(f"no temp store appeared (exit {proc.poll()})")


def test_live_temp_store_is_kept_and_dead_one_removed(tmp_path):
    live = tmp_path / ".lawgraph-live.db.tmp"
    dead = tmp_path / ".lawgraph-dead.db.tmp"
    dead.write_bytes(b"left by a killed ingest")
    fd = os.open(live, os.O_CREAT | os.O_RDWR)
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)  # as write_store holds it
        assert ingest_store.remove_stale_temps(tmp_path) == [dead]
        assert live.exists() and not dead.exists()
    finally:
        os.close(fd)
    assert ingest_store.remove_stale_temps(tmp_path) == [live]


def test_sigterm_during_ingest_leaves_no_temp_store(tmp_path):
    proc = start_ingest(tmp_path / "lawgraph.db")
    wait_for_temp(proc, tmp_path)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode != 0, out.decode()
    assert temps(tmp_path) == [] and not (tmp_path / "lawgraph.db").exists()


def test_sigkill_then_ingest_rebuilds_a_damaged_store(ingested, tmp_path):
    db = tmp_path / "lawgraph.db"
    shutil.copy(ingested[0], db)
    proc = start_ingest(db)
    wait_for_temp(proc, tmp_path)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    assert temps(tmp_path), "SIGKILL leaves the temp store behind"
    data = bytearray(db.read_bytes())  # and the store it was to replace is damaged meanwhile
    at = data.find("TILLÅTNA OCH OTILLÅTNA".encode())
    data[at] = ord("X")
    db.write_bytes(bytes(data))
    r = subprocess.run([*LAWGRAPH, "ingest", "--db", str(db), "--no-warnings"],
                       capture_output=True, text=True, timeout=600)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "up to date" not in r.stdout and "wrote" in r.stdout  # not "up to date": rebuilt
    assert temps(tmp_path) == []
    store.open_store(db, verify=True).close()
