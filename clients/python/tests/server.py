"""Starts the real `meridian` binary for the tests.

The binary is `$MERIDIAN_BIN`, else `target/debug/meridian` of the repository this folder is in
(built with `cargo build -p meridian --bin meridian` when it is not there yet).
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, List, Mapping, Optional

REPO = Path(__file__).resolve().parents[3]
_LISTENING = re.compile(r"listening on (http|dns) (\S+)")
_build_lock = threading.Lock()


def binary() -> Path:
    given = os.environ.get("MERIDIAN_BIN")
    if given:
        return Path(given)
    path = REPO / "target" / "debug" / "meridian"
    with _build_lock:
        if not path.exists():
            subprocess.run(["cargo", "build", "-p", "meridian", "--bin", "meridian"], cwd=REPO, check=True)
    return path


class Server:
    """A running server on free ports, with a fresh data folder; `stop()` kills it."""

    def __init__(self, env: Optional[Mapping[str, str]] = None, startup_timeout: float = 120.0) -> None:
        self.data_dir = tempfile.mkdtemp(prefix="meridian-py-")
        # MERIDIAN_BIN names the binary for the tests; the server reads every other MERIDIAN_*
        # variable as configuration and refuses keys it does not know.
        environment = {k: v for k, v in os.environ.items() if k != "MERIDIAN_BIN"}
        environment["MERIDIAN_LOG__LEVEL"] = "warn"
        environment.update(env or {})
        self.process = subprocess.Popen(
            [
                str(binary()),
                "--data-dir",
                self.data_dir,
                "serve",
                "--http",
                "127.0.0.1:0",
                "--dns",
                "127.0.0.1:0",
            ],
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        self.output: List[str] = []
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        # Keep reading the output for as long as the server runs: a full pipe would block it.
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        addresses: Dict[str, str] = {}
        deadline = time.monotonic() + startup_timeout
        while len(addresses) < 2:
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop()
                raise RuntimeError("the server did not start:\n" + "".join(self.output[-50:]))
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                self.stop()
                raise RuntimeError("the server exited:\n" + "".join(self.output[-50:]))
            match = _LISTENING.search(line)
            if match:
                addresses[match.group(1)] = match.group(2)
        self.http = addresses["http"]
        self.dns_host, _, port = addresses["dns"].rpartition(":")
        self.dns_port = int(port)
        self.url = f"http://{self.http}"

    def _drain(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)
            self._lines.put(line)
        self._lines.put(None)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        self._reader.join(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)
