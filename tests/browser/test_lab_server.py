"""The test server's own promises: it finds a free port, and it stops with its kernels however a test ends."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import requests

from .lab import JupyterLab

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


def test_a_lab_whose_port_is_taken_starts_on_another_and_stops_with_its_kernels_when_the_block_raises(tmp_path):
    (tmp_path / "root").mkdir()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with (
            pytest.raises(ZeroDivisionError),
            JupyterLab.running(tmp_path / "root", tmp_path / "home", ROOT, port=port) as lab,
        ):
            assert lab.port != port
            kernel = requests.post(f"{lab.base_url}/api/kernels", params={"token": lab.token}, timeout=60).json()
            connection = tmp_path / "home" / "runtime" / f"kernel-{kernel['id']}.json"
            assert connection.is_file()
            raise ZeroDivisionError("a test failing while the lab runs")
    assert lab.process is not None and lab.process.poll() is not None
    assert not connection.exists(), "the kernel was not shut down (its connection file is left)"
    with pytest.raises(requests.ConnectionError):
        requests.get(lab.base_url, timeout=5)
    assert "is already in use" in lab.log.read_text()
