"""Retries of refused requests (429 rate limited, 503 busy or past its deadline).

Meridian answers `429 rate_limited` when the account's bucket for an area is empty and `503`
when it is busy, not ready or past a request's deadline, both with `Retry-After` (seconds), and a
refused request changes nothing. The transports here wrap httpx's own and send such a request
again after the time the server asks for (or an exponential back-off with jitter when it names
none), a bounded number of times. A request whose body cannot be sent twice (an iterator being
streamed) is never retried: its answer is returned as it is.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable, FrozenSet, Optional

import httpx


@dataclass(frozen=True)
class RetryEvent:
    """What `RetryPolicy.on_retry` is told before each wait."""

    attempt: int  # 1 for the first retry
    status: int
    delay: float  # seconds the client now waits
    retry_after: Optional[str]  # the server's Retry-After, as sent
    method: str
    url: str


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before sending a refused request again.

    `max_retries` 0 turns retries off (`RetryPolicy.disabled()`); a `Retry-After` longer than
    `max_retry_after` is not waited for (the 429 or 503 is raised instead).
    """

    max_retries: int = 3
    statuses: FrozenSet[int] = frozenset({429, 503})
    backoff: float = 0.5
    max_backoff: float = 30.0
    max_retry_after: float = 120.0
    on_retry: Optional[Callable[[RetryEvent], None]] = field(default=None, compare=False)

    @classmethod
    def disabled(cls) -> "RetryPolicy":
        return cls(max_retries=0)

    def delay(self, response: httpx.Response, attempt: int) -> Optional[float]:
        """Seconds to wait before retry number `attempt` (0-based), or None not to retry."""
        if attempt >= self.max_retries or response.status_code not in self.statuses:
            return None
        value = response.headers.get("retry-after")
        if value is not None:
            seconds = parse_retry_after(value)
            if seconds is not None:
                return seconds if seconds <= self.max_retry_after else None
        ceiling = min(self.max_backoff, self.backoff * (2.0**attempt))
        return ceiling / 2 + random.uniform(0, ceiling / 2)


def parse_retry_after(value: str, now: Optional[datetime] = None) -> Optional[float]:
    """`Retry-After` as seconds to wait: a number of seconds or an HTTP date (RFC 9110)."""
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    current = now or datetime.now(timezone.utc)
    return max(0.0, (when - current).total_seconds())


def is_replayable(request: httpx.Request) -> bool:
    """Whether the request's body can be sent again (bytes, JSON, multipart of seekable files)."""
    stream = request.stream
    if isinstance(stream, httpx.ByteStream):
        return True
    if getattr(stream, "replayable", False):
        return True
    # httpx's multipart stream seeks every file back to its start before sending it.
    return type(stream).__name__ == "MultipartStream"


class RetryTransport(httpx.BaseTransport):
    """An httpx transport that retries refused requests according to a `RetryPolicy`."""

    def __init__(
        self,
        transport: httpx.BaseTransport,
        policy: RetryPolicy,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.transport = transport
        self.policy = policy
        self._sleep = sleep

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        attempt = 0
        replayable = is_replayable(request)  # judged before a first send consumes the body
        while True:
            response = self.transport.handle_request(request)
            delay = self.policy.delay(response, attempt)
            if delay is None or not replayable:
                return response
            response.close()
            attempt += 1
            if self.policy.on_retry is not None:
                self.policy.on_retry(_event(request, response, attempt, delay))
            self._sleep(delay)

    def close(self) -> None:
        self.transport.close()


class AsyncRetryTransport(httpx.AsyncBaseTransport):
    """The asyncio twin of `RetryTransport`."""

    def __init__(self, transport: httpx.AsyncBaseTransport, policy: RetryPolicy) -> None:
        self.transport = transport
        self.policy = policy

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        attempt = 0
        replayable = is_replayable(request)  # judged before a first send consumes the body
        while True:
            response = await self.transport.handle_async_request(request)
            delay = self.policy.delay(response, attempt)
            if delay is None or not replayable:
                return response
            await response.aclose()
            attempt += 1
            if self.policy.on_retry is not None:
                self.policy.on_retry(_event(request, response, attempt, delay))
            await asyncio.sleep(delay)

    async def aclose(self) -> None:
        await self.transport.aclose()


def _event(request: httpx.Request, response: httpx.Response, attempt: int, delay: float) -> RetryEvent:
    return RetryEvent(
        attempt=attempt,
        status=response.status_code,
        delay=delay,
        retry_after=response.headers.get("retry-after"),
        method=request.method,
        url=str(request.url),
    )
