"""Errors raised by the client: problem documents, jobs, webhooks, telemetry."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

import httpx

PROBLEM_MEDIA_TYPE = "application/problem+json"


class MeridianError(Exception):
    """Base class of every error the client raises itself."""


@dataclass(frozen=True)
class FieldError:
    """One invalid field of a request, located by a JSON pointer (RFC 6901)."""

    pointer: str
    code: str
    detail: str


class MeridianProblem(MeridianError):
    """An error answer: an RFC 7807 problem document (`application/problem+json`).

    `code` is Meridian's stable machine-readable code (`validation_failed`, `rate_limited`, ...),
    `status` the HTTP status, `errors` one `FieldError` per invalid field with its JSON pointer,
    `request_id` the id to quote when asking about it. An error answer that is not a problem
    document (a proxy's HTML page, a WMS exception report) is raised too, with `code`
    `http_<status>` and the body kept in `body`.
    """

    def __init__(
        self,
        *,
        status: int,
        code: str,
        title: str,
        detail: str = "",
        type: str = "about:blank",
        errors: Optional[List[FieldError]] = None,
        request_id: Optional[str] = None,
        document: Optional[Mapping[str, Any]] = None,
        body: bytes = b"",
        headers: Optional[Mapping[str, str]] = None,
        method: Optional[str] = None,
        url: Optional[str] = None,
    ) -> None:
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.type = type
        self.errors: List[FieldError] = list(errors or [])
        self.request_id = request_id
        self.document: Dict[str, Any] = dict(document or {})
        self.body = body
        self.headers: Dict[str, str] = {k.lower(): v for k, v in (headers or {}).items()}
        self.method = method
        self.url = url
        super().__init__(self._message())

    def _message(self) -> str:
        where = f" ({self.method} {self.url})" if self.method and self.url else ""
        text = f"{self.status} {self.code}: {self.detail or self.title}{where}"
        if self.errors:
            text += "; " + "; ".join(f"{e.pointer or '/'}: {e.code}" for e in self.errors)
        if self.request_id:
            text += f" [request {self.request_id}]"
        return text

    @property
    def pointers(self) -> List[str]:
        """The JSON pointers of the invalid fields, in the order the server gave them."""
        return [e.pointer for e in self.errors]

    @property
    def retry_after(self) -> Optional[float]:
        """`Retry-After` of the answer in seconds (429 and 503), when it gave one."""
        from .retry import parse_retry_after

        value = self.headers.get("retry-after")
        return parse_retry_after(value) if value is not None else None

    @classmethod
    def from_parts(
        cls,
        status: int,
        headers: Mapping[str, str],
        body: bytes,
        *,
        method: Optional[str] = None,
        url: Optional[str] = None,
        reason: str = "",
    ) -> "MeridianProblem":
        """Builds the error from an answer's status, headers and body."""
        lowered = {k.lower(): v for k, v in headers.items()}
        content_type = lowered.get("content-type", "").split(";")[0].strip().lower()
        document: Optional[Dict[str, Any]] = None
        if content_type in (PROBLEM_MEDIA_TYPE, "application/json") and body:
            try:
                parsed = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                parsed = None
            if isinstance(parsed, dict):
                document = parsed
        if document is None:
            return cls(
                status=status,
                code=f"http_{status}",
                title=reason or "HTTP error",
                detail=body[:500].decode("utf-8", "replace"),
                body=body,
                headers=headers,
                method=method,
                url=url,
                request_id=lowered.get("x-request-id"),
            )
        errors: List[FieldError] = []
        for entry in document.get("errors") or []:
            if isinstance(entry, dict):
                errors.append(
                    FieldError(
                        pointer=str(entry.get("pointer", "")),
                        code=str(entry.get("code", "")),
                        detail=str(entry.get("detail", "")),
                    )
                )
        raw_status = document.get("status")
        request_id = document.get("request_id") or lowered.get("x-request-id")
        return cls(
            status=raw_status if isinstance(raw_status, int) else status,
            code=str(document.get("code") or f"http_{status}"),
            title=str(document.get("title") or reason or ""),
            detail=str(document.get("detail") or ""),
            type=str(document.get("type") or "about:blank"),
            errors=errors,
            request_id=str(request_id) if request_id is not None else None,
            document=document,
            body=body,
            headers=headers,
            method=method,
            url=url,
        )

    @classmethod
    def from_response(cls, response: httpx.Response) -> "MeridianProblem":
        """Builds the error from an httpx answer whose body has been read."""
        request: Optional[httpx.Request]
        try:
            request = response.request
        except RuntimeError:
            request = None
        return cls.from_parts(
            response.status_code,
            dict(response.headers),
            response.content,
            method=request.method if request is not None else None,
            url=str(request.url) if request is not None else None,
            reason=response.reason_phrase,
        )


class JobFailed(MeridianError):
    """A job ended `failed` or `cancelled`; `problem` is its error document, when it has one."""

    def __init__(self, job: Mapping[str, Any]) -> None:
        self.job: Dict[str, Any] = dict(job)
        self.status: str = str(job.get("status"))
        error = job.get("error")
        self.problem: Optional[MeridianProblem] = None
        if isinstance(error, dict):
            body = json.dumps(error).encode("utf-8")
            status = error.get("status")
            self.problem = MeridianProblem.from_parts(
                status if isinstance(status, int) else 500, {"content-type": PROBLEM_MEDIA_TYPE}, body
            )
        what = f": {self.problem}" if self.problem is not None else ""
        super().__init__(f"job {job.get('id')} ({job.get('kind')}) {self.status}{what}")


class JobTimeout(MeridianError):
    """`wait_for_job` gave up before the job ended."""

    def __init__(self, job: Mapping[str, Any], waited: float) -> None:
        self.job: Dict[str, Any] = dict(job)
        self.waited = waited
        super().__init__(f"job {job.get('id')} still {job.get('status')} ({job.get('progress')}%) after {waited:.1f} s")


class WebhookVerificationError(MeridianError):
    """A webhook delivery whose signature or timestamp does not check out."""


class TelemetryClosed(MeridianError):
    """The telemetry WebSocket closed for good (the twin was deleted, or reconnecting failed)."""

    def __init__(self, message: str, code: Optional[int] = None) -> None:
        self.code = code
        super().__init__(message)


def split_content_type(value: Optional[str]) -> Tuple[str, str]:
    """`type/subtype` in lower case, and the parameters as written."""
    if not value:
        return "", ""
    head, _, params = value.partition(";")
    return head.strip().lower(), params.strip()
