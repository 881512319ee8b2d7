"""Fixtures: a real Meridian server and an account on it."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the package, when not installed

from server import REPO, Server  # noqa: E402

from meridian_client import Meridian  # noqa: E402

#: Access tokens last 8 s on the test server, so that the client's refresh before expiry (half
#: the lifetime at most) happens while the tour runs, not only in theory.
TOKEN_TTL_SECONDS = 8

SERVER_ENV = {
    "MERIDIAN_AUTH__ACCESS_TOKEN_TTL": f"{TOKEN_TTL_SECONDS}s",
    # The tour's webhook receiver is a plain-HTTP server on the loopback address.
    "MERIDIAN_WEBHOOKS__ALLOW_HTTP": "true",
    "MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS": "true",
    "MERIDIAN_WEBHOOKS__RETRY_SCHEDULE": '["1s", "2s"]',
}


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    running = Server(env=SERVER_ENV)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="session")
def m(server: Server) -> Iterator[Meridian]:
    client, created = Meridian.sign_up(server.url, name="Ada", email=f"ada-{uuid.uuid4().hex[:8]}@example.com")
    assert created.api_key.startswith("mrd_")
    with client:
        yield client
