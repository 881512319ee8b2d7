"""Credentials: an API key, or short-lived access tokens traded for it and refreshed.

Meridian takes `Authorization: Bearer <API key or access token>`. With `exchange=True` the key
is traded for an access token (`POST /api/v1/auth/token`, sent with `X-Api-Key`), which is sent
instead until shortly before it expires, then traded again; a 401 on a token (revoked key,
restarted server with another signing secret) trades once more and sends the request again.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import AsyncGenerator, Callable, Dict, Generator, Optional, Tuple

import httpx

from .errors import MeridianProblem
from .retry import is_replayable

TOKEN_PATH = "/api/v1/auth/token"


def _origin(url: httpx.URL) -> Tuple[str, str, Optional[int]]:
    default = {"http": 80, "https": 443}.get(url.scheme)
    return (url.scheme, url.host, url.port or default)


class MeridianAuth(httpx.Auth):
    """An httpx `Auth` for Meridian (see the module's description).

    `api_key`: a `mrd_...` key. `access_token`: a token obtained elsewhere, sent as it is (it is
    not refreshed). `refresh_margin`: seconds before expiry at which a token is traded again
    (never more than half its lifetime).
    """

    requires_response_body = True

    def __init__(
        self,
        *,
        token_url: str,
        api_key: Optional[str] = None,
        access_token: Optional[str] = None,
        exchange: bool = True,
        refresh_margin: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not api_key and not access_token:
            raise ValueError("give an api_key or an access_token")
        self.token_url = token_url
        self._origin = _origin(httpx.URL(token_url))
        self.api_key = api_key
        self.static_token = access_token
        self.exchange = bool(exchange and api_key)
        self.refresh_margin = refresh_margin
        self._clock = clock
        self._token: Optional[str] = None
        self._expires_at = 0.0
        self._lifetime = 0.0
        self._sync_lock = threading.Lock()
        self._async_locks: Dict[int, asyncio.Lock] = {}
        self.exchanges = 0  # how many tokens were obtained, for the curious

    # -- state ---------------------------------------------------------------------------------

    @property
    def access_token(self) -> Optional[str]:
        """The access token in use (None before the first request, or without exchange)."""
        return self._token if self.exchange else self.static_token

    @property
    def expires_in(self) -> Optional[float]:
        """Seconds until the exchanged token expires (None without one)."""
        if not self.exchange or self._token is None:
            return None
        return max(0.0, self._expires_at - self._clock())

    def invalidate(self) -> None:
        """Forget the exchanged token: the next request trades the key again."""
        self._token = None
        self._expires_at = 0.0

    def _needs_token(self) -> bool:
        if not self.exchange:
            return False
        if self._token is None:
            return True
        margin = min(self.refresh_margin, self._lifetime / 2)
        return self._clock() >= self._expires_at - margin

    def _credential(self) -> str:
        if self.exchange:
            assert self._token is not None
            return self._token
        return self.api_key or self.static_token or ""

    def token_request(self) -> httpx.Request:
        """The request that trades the API key for an access token."""
        assert self.api_key is not None
        return httpx.Request("POST", self.token_url, headers={"X-Api-Key": self.api_key})

    def store_token(self, response: httpx.Response) -> None:
        """Keeps the token of a `POST /api/v1/auth/token` answer."""
        if response.status_code != 200:
            raise MeridianProblem.from_response(response)
        data = response.json()
        token = data.get("access_token") if isinstance(data, dict) else None
        if not isinstance(token, str) or not token:
            raise ValueError("the token answer holds no access_token")
        expires_in = data.get("expires_in")
        lifetime = float(expires_in) if isinstance(expires_in, (int, float)) else 300.0
        self._token = token
        self._lifetime = lifetime
        self._expires_at = self._clock() + lifetime
        self.exchanges += 1

    def _authorize(self, request: httpx.Request) -> None:
        # Credentials go to the server the client was made for, never to a host a link names.
        if _origin(request.url) == self._origin:
            request.headers["Authorization"] = f"Bearer {self._credential()}"

    # -- flows ---------------------------------------------------------------------------------

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if self._needs_token():
            with self._sync_lock:
                if self._needs_token():
                    answer = yield self.token_request()
                    answer.read()
                    self.store_token(answer)
        sent_with = self._credential()
        self._authorize(request)
        response = yield request
        if response.status_code == 401 and self.exchange and is_replayable(request):
            with self._sync_lock:
                if self._token == sent_with:
                    self.invalidate()
                    answer = yield self.token_request()
                    answer.read()
                    self.store_token(answer)
            self._authorize(request)
            yield request

    async def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        lock = self._async_lock()
        if self._needs_token():
            async with lock:
                if self._needs_token():
                    answer = yield self.token_request()
                    await answer.aread()
                    self.store_token(answer)
        sent_with = self._credential()
        self._authorize(request)
        response = yield request
        if response.status_code == 401 and self.exchange and is_replayable(request):
            async with lock:
                if self._token == sent_with:
                    self.invalidate()
                    answer = yield self.token_request()
                    await answer.aread()
                    self.store_token(answer)
            self._authorize(request)
            yield request

    def _async_lock(self) -> asyncio.Lock:
        # One lock per event loop: an asyncio.Lock belongs to the loop it is first used in.
        key = id(asyncio.get_running_loop())
        lock = self._async_locks.get(key)
        if lock is None:
            lock = asyncio.Lock()
            self._async_locks = {key: lock}
        return lock

    # -- outside an httpx request (the telemetry WebSocket) --------------------------------------

    def bearer(self, client: httpx.Client) -> str:
        """A credential for a connection httpx does not make, trading the key if needed."""
        if self._needs_token():
            with self._sync_lock:
                if self._needs_token():
                    self.store_token(client.send(self.token_request(), auth=None))
        return self._credential()

    async def abearer(self, client: httpx.AsyncClient) -> str:
        """The asyncio twin of `bearer`."""
        if self._needs_token():
            async with self._async_lock():
                if self._needs_token():
                    self.store_token(await client.send(self.token_request(), auth=None))
        return self._credential()
