"""Live twin telemetry over the WebSocket `/api/v1/realtime/twin/{id}`, with resume.

Frames are JSON: readings `{"sensorId", "value", "ts"}` and notices with a `type` (`hello`
first on every connection, `clock`, `gap`, `subscribed`, `error`). When the connection drops
(anything but the server closing it for good), the helper connects again with
`since=<the newest reading it delivered>` so that the readings ingested meanwhile are replayed
from the store first; readings it already delivered are not delivered twice. A new `hello`
notice marks each reconnection.

Needs the `websockets` package (`pip install "meridian-client[telemetry]"`).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from datetime import datetime, timedelta, timezone
from typing import Any, Awaitable, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union
from urllib.parse import urlencode

from dateutil.parser import isoparse

from .errors import MeridianProblem, TelemetryClosed

#: Close codes after which the helper does not reconnect: the twin was deleted (1000), the
#: client sent a binary frame (1003) or messages the server did not understand (1008).
FINAL_CLOSE_CODES = frozenset({1000, 1003, 1008})

Message = Dict[str, Any]


def _load_websockets() -> Any:
    try:
        import websockets
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise ImportError('the telemetry helper needs websockets: pip install "meridian-client[telemetry]"') from error
    return websockets


def rfc3339(when: datetime) -> str:
    """An instant as Meridian writes it: UTC, milliseconds, `Z`."""
    utc = when.astimezone(timezone.utc)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def _instant(value: Union[str, datetime]) -> datetime:
    when = isoparse(value) if isinstance(value, str) else value
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


class _Resume:
    """What has been delivered, to resume after a drop without delivering anything twice."""

    def __init__(self, since: Optional[Union[str, datetime]], sensors: Optional[Sequence[str]]) -> None:
        self.since = _instant(since) if since is not None else None
        self.sensors = list(sensors) if sensors is not None else None
        self.delivered: Dict[str, datetime] = {}
        self.newest: Optional[datetime] = None
        self.resumed = False  # this connection replays from `since` after a drop
        self.live = True

    def query(self) -> str:
        params: List[Tuple[str, str]] = []
        since = self.since
        if self.newest is not None:
            # `since` is exclusive; a millisecond earlier catches other sensors' readings stamped
            # in the same millisecond, and the per-sensor check below drops what was delivered.
            since = self.newest - timedelta(milliseconds=1)
        if since is not None:
            params.append(("since", rfc3339(since)))
        if self.sensors is not None:
            params.append(("sensors", ",".join(self.sensors)))
        return urlencode(params)

    def accept(self, message: Message) -> bool:
        """Whether to deliver a message; keeps track of the readings delivered."""
        kind = message.get("type")
        if kind == "hello":
            clock = message.get("clock")
            self.live = not isinstance(clock, dict) or clock.get("mode", "live") == "live"
            return True
        if kind == "clock":
            clock = message.get("clock")
            self.live = not isinstance(clock, dict) or clock.get("mode", "live") == "live"
            return True
        if kind is not None or "sensorId" not in message or "ts" not in message:
            return True
        sensor = str(message["sensorId"])
        try:
            ts = _instant(str(message["ts"]))
        except (ValueError, OverflowError):
            return True
        previous = self.delivered.get(sensor)
        if self.resumed and self.live and previous is not None and ts <= previous:
            return False
        if self.live:
            self.delivered[sensor] = ts if previous is None else max(ts, previous)
            self.newest = ts if self.newest is None else max(ts, self.newest)
        return True


def _close_code(error: Exception) -> Optional[int]:
    """The close code the server chose, when it closed the connection (not when it dropped)."""
    received = getattr(error, "rcvd", None)
    sent = getattr(error, "sent", None)
    if received is None or (sent is not None and not getattr(error, "rcvd_then_sent", False)):
        return None
    code = getattr(received, "code", None)
    return code if isinstance(code, int) else None


def _problem_of(error: Exception) -> Optional[MeridianProblem]:
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    if response is None or not isinstance(status, int):
        return None
    raw_headers = getattr(response, "headers", None)
    headers: Dict[str, str] = {}
    if raw_headers is not None and hasattr(raw_headers, "raw_items"):
        headers = {k: v for k, v in raw_headers.raw_items()}
    body = getattr(response, "body", b"") or b""
    return MeridianProblem.from_parts(
        status, headers, bytes(body), method="GET", reason=str(getattr(response, "reason_phrase", ""))
    )


def _connect_options(websockets: Any, headers: Mapping[str, str], open_timeout: float) -> Dict[str, Any]:
    options: Dict[str, Any] = {"additional_headers": dict(headers), "open_timeout": open_timeout}
    major = int(str(websockets.__version__).split(".")[0])
    if major >= 15:
        options["proxy"] = None  # a twin is reached directly, never through a system proxy
    return options


class Telemetry:
    """A blocking iterator over a twin's telemetry (see the module's description).

    Made by `Meridian.telemetry(...)`; `with` (or `connect()`) opens the connection at once,
    otherwise the first `recv` does. `next(t)` or `t.recv(timeout)` waits for the next message;
    `t.readings()` yields readings only; `t.close()` ends it.
    """

    def __init__(
        self,
        url: str,
        headers: Callable[[], Mapping[str, str]],
        *,
        since: Optional[Union[str, datetime]] = None,
        sensors: Optional[Sequence[str]] = None,
        reconnect: bool = True,
        max_reconnects: int = 5,
        backoff: float = 0.5,
        open_timeout: float = 10.0,
    ) -> None:
        self._websockets = _load_websockets()
        from websockets.sync.client import connect

        self._connect_fn = connect
        self.url = url
        self._headers = headers
        self.state = _Resume(since, sensors)
        self.reconnect = reconnect
        self.max_reconnects = max_reconnects
        self.backoff = backoff
        self.open_timeout = open_timeout
        self.reconnects = 0
        self._failures = 0
        self._ws: Any = None
        self._closed = False

    # -- connection ----------------------------------------------------------------------------

    def _open(self) -> None:
        query = self.state.query()
        target = self.url + ("?" + query if query else "")
        options = _connect_options(self._websockets, self._headers(), self.open_timeout)
        if "legacy" in inspect.signature(self._connect_fn).parameters:
            options["legacy"] = True  # websockets 17+: a plain connection, managed here
        try:
            self._ws = self._connect_fn(target, **options)
        except self._websockets.exceptions.InvalidStatus as error:
            problem = _problem_of(error)
            if problem is not None:
                raise problem from error
            raise

    def _drop(self, error: Exception) -> None:
        code = _close_code(error)
        self._ws = None
        if self._closed:
            raise TelemetryClosed("the telemetry stream is closed", code) from error
        if code in FINAL_CLOSE_CODES or not self.reconnect:
            raise TelemetryClosed(f"the telemetry socket closed (code {code})", code) from error
        self._failures += 1
        if self._failures > self.max_reconnects:
            raise TelemetryClosed(f"gave up reconnecting after {self.max_reconnects} attempts", code) from error
        time.sleep(min(10.0, self.backoff * (2 ** (self._failures - 1))))
        self.state.resumed = True
        self.reconnects += 1

    # -- messages ------------------------------------------------------------------------------

    def recv(self, timeout: Optional[float] = None) -> Message:
        """The next message; `TimeoutError` when none comes within `timeout` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._closed:
                raise TelemetryClosed("the telemetry stream is closed")
            if self._ws is None:
                try:
                    self._open()
                except (OSError, self._websockets.exceptions.InvalidHandshake) as error:
                    if isinstance(error, self._websockets.exceptions.InvalidStatus):
                        raise
                    self._drop(error)
                    continue
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                raw = self._ws.recv(timeout=left)
            except self._websockets.exceptions.ConnectionClosed as error:
                self._drop(error)
                continue
            self._failures = 0
            if isinstance(raw, bytes):
                raw = raw.decode("utf-8")
            message = json.loads(raw)
            if not isinstance(message, dict):
                continue
            if self.state.accept(message):
                return message

    def __iter__(self) -> Iterator[Message]:
        return self

    def __next__(self) -> Message:
        try:
            return self.recv()
        except TelemetryClosed as error:
            if self._closed or error.code == 1000:  # closed here, or the twin was deleted
                raise StopIteration from None
            raise

    def readings(self, timeout: Optional[float] = None) -> Iterator[Message]:
        """Readings only (notices are skipped); each waits at most `timeout` seconds."""
        while True:
            try:
                message = self.recv(timeout)
            except TelemetryClosed as error:
                if self._closed or error.code == 1000:
                    return
                raise
            if "type" not in message:
                yield message

    def subscribe(self, sensors: Optional[Sequence[str]]) -> None:
        """Changes the sensors followed (None: all); kept across reconnections."""
        self.state.sensors = list(sensors) if sensors is not None else None
        if self._ws is not None:
            self._ws.send(json.dumps({"type": "subscribe", "sensors": self.state.sensors}))

    @property
    def connection(self) -> Any:
        """The current `websockets` connection (None between connections)."""
        return self._ws

    def close(self) -> None:
        self._closed = True
        if self._ws is not None:
            self._ws.close()
            self._ws = None

    def connect(self) -> "Telemetry":
        """Opens the connection now (it is otherwise opened by the first `recv`), so that
        readings ingested from now on are received."""
        if self._ws is None and not self._closed:
            self._open()
        return self

    def __enter__(self) -> "Telemetry":
        return self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncTelemetry:
    """The asyncio twin of `Telemetry`: `async for message in t`, `await t.recv(timeout)`."""

    def __init__(
        self,
        url: str,
        headers: Callable[[], Awaitable[Mapping[str, str]]],
        *,
        since: Optional[Union[str, datetime]] = None,
        sensors: Optional[Sequence[str]] = None,
        reconnect: bool = True,
        max_reconnects: int = 5,
        backoff: float = 0.5,
        open_timeout: float = 10.0,
    ) -> None:
        self._websockets = _load_websockets()
        from websockets.asyncio.client import connect

        self._connect_fn = connect
        self.url = url
        self._headers = headers
        self.state = _Resume(since, sensors)
        self.reconnect = reconnect
        self.max_reconnects = max_reconnects
        self.backoff = backoff
        self.open_timeout = open_timeout
        self.reconnects = 0
        self._failures = 0
        self._ws: Any = None
        self._closed = False

    async def _open(self) -> None:
        query = self.state.query()
        target = self.url + ("?" + query if query else "")
        options = _connect_options(self._websockets, await self._headers(), self.open_timeout)
        try:
            self._ws = await self._connect_fn(target, **options)
        except self._websockets.exceptions.InvalidStatus as error:
            problem = _problem_of(error)
            if problem is not None:
                raise problem from error
            raise

    async def _drop(self, error: Exception) -> None:
        code = _close_code(error)
        self._ws = None
        if self._closed:
            raise TelemetryClosed("the telemetry stream is closed", code) from error
        if code in FINAL_CLOSE_CODES or not self.reconnect:
            raise TelemetryClosed(f"the telemetry socket closed (code {code})", code) from error
        self._failures += 1
        if self._failures > self.max_reconnects:
            raise TelemetryClosed(f"gave up reconnecting after {self.max_reconnects} attempts", code) from error
        await asyncio.sleep(min(10.0, self.backoff * (2 ** (self._failures - 1))))
        self.state.resumed = True
        self.reconnects += 1

    async def recv(self, timeout: Optional[float] = None) -> Message:
        """The next message; `asyncio.TimeoutError` when none comes within `timeout` seconds."""
        if timeout is None:
            return await self._recv()
        return await asyncio.wait_for(self._recv(), timeout)

    async def _recv(self) -> Message:
        while True:
            if self._closed:
                raise TelemetryClosed("the telemetry stream is closed")
            if self._ws is None:
                try:
                    await self._open()
                except (OSError, self._websockets.exceptions.InvalidHandshake) as error:
                    if isinstance(error, self._websockets.exceptions.InvalidStatus):
                        raise
                    await self._drop(error)
                    continue
            try:
                raw = await self._ws.recv()
            except self._websockets.exceptions.ConnectionClosed as error:
                await self._drop(error)
                continue
            self._failures = 0
            if isinstance(raw, bytes):
                raw = raw.decode("utf-8")
            message = json.loads(raw)
            if isinstance(message, dict) and self.state.accept(message):
                return message

    def __aiter__(self) -> "AsyncTelemetry":
        return self

    async def __anext__(self) -> Message:
        try:
            return await self.recv()
        except TelemetryClosed as error:
            if self._closed or error.code == 1000:  # closed here, or the twin was deleted
                raise StopAsyncIteration from None
            raise

    async def subscribe(self, sensors: Optional[Sequence[str]]) -> None:
        """Changes the sensors followed (None: all); kept across reconnections."""
        self.state.sensors = list(sensors) if sensors is not None else None
        if self._ws is not None:
            await self._ws.send(json.dumps({"type": "subscribe", "sensors": self.state.sensors}))

    @property
    def connection(self) -> Any:
        """The current `websockets` connection (None between connections)."""
        return self._ws

    async def close(self) -> None:
        self._closed = True
        if self._ws is not None:
            await self._ws.close()
            self._ws = None

    async def connect(self) -> "AsyncTelemetry":
        """Opens the connection now (see `Telemetry.connect`)."""
        if self._ws is None and not self._closed:
            await self._open()
        return self

    async def __aenter__(self) -> "AsyncTelemetry":
        return await self.connect()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
