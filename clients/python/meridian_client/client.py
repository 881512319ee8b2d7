"""`Meridian` and `AsyncMeridian`: the generated operations with authentication, retries,
typed problems, paging, uploads, downloads, job waiting and telemetry around them."""

from __future__ import annotations

import asyncio
import inspect
import json as _json
import os
import sys
import time
from dataclasses import dataclass
from typing import (
    IO,
    Any,
    AsyncIterator,
    Callable,
    Dict,
    Iterator,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    Union,
    overload,
)
from urllib.parse import quote, urlsplit

import httpx

from ._version import __version__
from .auth import TOKEN_PATH, MeridianAuth
from .errors import JobFailed, JobTimeout, MeridianError, MeridianProblem
from .generated.client import AuthenticatedClient, Client
from .generated.models.problem import Problem
from .generated.types import Response
from .paging import NextPage, Page, next_page, page_items
from .retry import AsyncRetryTransport, RetryPolicy, RetryTransport
from .streams import MultipartBody, Part, RawBody, Source, parts_from
from .telemetry import AsyncTelemetry, Telemetry

T = TypeVar("T")
JSON = Any
ProgressCallback = Callable[[int, Dict[str, Any]], None]
PathOrUrl = str
Destination = Union[str, "os.PathLike[str]", IO[bytes]]

FINISHED = ("succeeded", "failed", "cancelled")
USER_AGENT = f"meridian-client-python/{__version__}"


def unwrap(response: Response[Union[T, Problem]]) -> T:
    """The parsed answer of a generated `*_detailed` call; raises `MeridianProblem` on an error.

    `zone = unwrap(create_zone.sync_detailed(client=m.client, body=CreateZone(name="example.com")))`
    is typed as the operation's success model.
    """
    status = int(response.status_code)
    if status >= 400 or isinstance(response.parsed, Problem):
        raise MeridianProblem.from_parts(status, dict(response.headers), response.content)
    if response.parsed is None:
        raise MeridianError(f"an answer {status} that the operation does not describe")
    return response.parsed


def json_body(operation: Any, data: Any) -> Any:
    """`data` (JSON) as the body model a generated operation takes: `json_body(create_parcel,
    {"type": "Feature", ...})` is a `CreateParcelBody`, or whatever the document names it. When
    the operation takes several (JSON or multipart), the first, the JSON one, is used."""
    function = getattr(operation, "sync_detailed", operation)
    parameter = inspect.signature(function).parameters.get("body")
    if parameter is None:
        raise MeridianError(f"{getattr(operation, '__name__', operation)} takes no body")
    module = sys.modules.get(function.__module__)
    annotation = parameter.annotation
    names = annotation.split("|") if isinstance(annotation, str) else [getattr(annotation, "__name__", "")]
    for name in (n.strip() for n in names):
        model = getattr(module, name, None)
        if isinstance(model, type) and hasattr(model, "from_dict"):
            return model.from_dict(data)
    return data  # a list or a scalar body: as it is


def _retry_policy(retry: Union[RetryPolicy, bool, int, None]) -> RetryPolicy:
    if isinstance(retry, RetryPolicy):
        return retry
    if retry is None or retry is False:
        return RetryPolicy.disabled()
    if retry is True:
        return RetryPolicy()
    return RetryPolicy(max_retries=int(retry))


def _check(response: httpx.Response) -> None:
    if response.status_code >= 400:
        raise MeridianProblem.from_response(response)


def _job_id(job: Union[str, Mapping[str, Any], Any]) -> str:
    if isinstance(job, str):
        # an id, or a Location (`/api/v1/jobs/job_...`)
        return job.rstrip("/").rsplit("/", 1)[-1]
    if isinstance(job, Mapping):
        # a job (`id`), or an answer naming its job: `job: {id, ...}`, `job: "job_..."`, `href`
        inner = job.get("job")
        if isinstance(inner, Mapping) and "id" in inner:
            return str(inner["id"])
        if isinstance(inner, str) and inner:
            return _job_id(inner)
        if "id" in job:
            return str(job["id"])
        if isinstance(job.get("href"), str):
            return _job_id(job["href"])
        raise MeridianError("this answer names no job")
    if hasattr(job, "to_dict"):  # a generated model (a job, or an answer naming one)
        return _job_id(job.to_dict())
    return str(job.id)


def _range_header(byte_range: Tuple[int, Optional[int]]) -> str:
    start, end = byte_range
    if start < 0 or (end is not None and end < start):
        raise ValueError("a byte range is (first, last) with 0 <= first <= last, or (first, None)")
    return f"bytes={start}-{'' if end is None else end}"


def _content_range(value: Optional[str]) -> Optional[Tuple[int, int, Optional[int]]]:
    # `bytes 0-99/1234` or `bytes 0-99/*`
    if not value or not value.startswith("bytes "):
        return None
    span, _, total = value[len("bytes ") :].partition("/")
    first, _, last = span.partition("-")
    try:
        return int(first), int(last), (None if total.strip() == "*" else int(total))
    except ValueError:
        return None


@dataclass(frozen=True)
class DownloadResult:
    """What `download` wrote."""

    path: Optional[str]
    bytes_written: int
    status: int  # 200, or 206 for a range
    content_range: Optional[Tuple[int, int, Optional[int]]]  # first, last, total
    size: Optional[int]  # the whole resource's size, when known
    etag: Optional[str]
    content_type: Optional[str]


class _Options:
    """What both clients are made from."""

    def __init__(
        self,
        base_url: str,
        api_key: Optional[str],
        access_token: Optional[str],
        exchange_token: bool,
        retry: Union[RetryPolicy, bool, int, None],
        timeout: Union[float, httpx.Timeout],
        raise_errors: bool,
        headers: Optional[Mapping[str, str]],
        refresh_margin: float,
        verify: Union[bool, str],
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry = _retry_policy(retry)
        self.timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
        self.raise_errors = raise_errors
        self.headers = {"User-Agent": USER_AGENT, **dict(headers or {})}
        self.verify = verify
        self.auth: Optional[MeridianAuth] = None
        if api_key or access_token:
            self.auth = MeridianAuth(
                token_url=self.base_url + TOKEN_PATH,
                api_key=api_key,
                access_token=access_token,
                exchange=exchange_token,
                refresh_margin=refresh_margin,
            )
        self.credential = api_key or access_token or ""

    def ws_url(self, twin_id: str) -> str:
        parts = urlsplit(self.base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        return f"{scheme}://{parts.netloc}{parts.path}/api/v1/realtime/twin/{quote(twin_id, safe='')}"


class _HTTPClient(httpx.Client):
    """httpx.Client that raises `MeridianProblem` for error answers (after auth and retries)."""

    raise_errors = True

    def send(self, request: httpx.Request, **kwargs: Any) -> httpx.Response:
        response = super().send(request, **kwargs)
        if self.raise_errors and response.status_code >= 400:
            try:
                response.read()
            finally:
                response.close()
            raise MeridianProblem.from_response(response)
        return response


class _AsyncHTTPClient(httpx.AsyncClient):
    """The asyncio twin of `_HTTPClient`."""

    raise_errors = True

    async def send(self, request: httpx.Request, **kwargs: Any) -> httpx.Response:
        response = await super().send(request, **kwargs)
        if self.raise_errors and response.status_code >= 400:
            try:
                await response.aread()
            finally:
                await response.aclose()
            raise MeridianProblem.from_response(response)
        return response


def _stream_request(
    client: Union[httpx.Client, httpx.AsyncClient],
    method: str,
    url: str,
    body: Union[MultipartBody, RawBody],
    *,
    content_type: Optional[str],
    params: Optional[Mapping[str, Any]],
    headers: Optional[Mapping[str, str]],
) -> httpx.Request:
    request = client.build_request(method, url, params=_clean(params), headers=headers)
    for name in ("Content-Length", "Transfer-Encoding", "Content-Type"):
        if name in request.headers:
            del request.headers[name]
    request.headers.update(body.headers())
    if content_type is not None:
        request.headers["Content-Type"] = content_type
    request.stream = body
    return request


def _clean(params: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
    if params is None:
        return None
    return {k: v for k, v in params.items() if v is not None}


def _multipart(fields: Union[Mapping[str, Any], Sequence[Part]]) -> MultipartBody:
    parts = list(fields) if not isinstance(fields, Mapping) else parts_from(fields)
    return MultipartBody(parts)


def _guess_point_cloud_type(data: Source, filename: Optional[str]) -> str:
    name = filename or (os.fspath(data) if isinstance(data, os.PathLike) else str(getattr(data, "name", "")))
    return "application/vnd.laszip" if str(name).lower().endswith(".laz") else "application/vnd.las"


def _filename(data: Source, fallback: str) -> str:
    if isinstance(data, os.PathLike):
        return os.path.basename(os.fspath(data))
    name = getattr(data, "name", None)
    return os.path.basename(name) if isinstance(name, str) else fallback


def _next_delay(delay: float, max_interval: float) -> float:
    return min(max_interval, delay * 1.5)


class Meridian:
    """A Meridian client (blocking).

    ```python
    m = Meridian("http://127.0.0.1:8080", api_key="mrd_...")
    zone = unwrap(create_zone.sync_detailed(client=m.client, body=CreateZone(name="example.com")))
    for record in m.paginate(list_records, zone_id=zone.id, limit=100): ...
    ```

    `api_key` is traded for access tokens (refreshed before they expire) unless
    `exchange_token=False`; `access_token` alone is sent as it is. `retry`: a `RetryPolicy`, a
    number of retries, or False for none (429 and 503 are retried after `Retry-After`).
    `raise_errors`: error answers raise `MeridianProblem` from every call, generated operations
    included (False: generated operations return the `Problem` model instead; the helpers here
    raise either way). `transport`: an httpx transport to send through (tests, proxies).
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8080",
        *,
        api_key: Optional[str] = None,
        access_token: Optional[str] = None,
        exchange_token: bool = True,
        retry: Union[RetryPolicy, bool, int, None] = True,
        timeout: Union[float, httpx.Timeout] = 60.0,
        raise_errors: bool = True,
        headers: Optional[Mapping[str, str]] = None,
        refresh_margin: float = 60.0,
        verify: Union[bool, str] = True,
        transport: Optional[httpx.BaseTransport] = None,
    ) -> None:
        self._options = _Options(
            base_url,
            api_key,
            access_token,
            exchange_token,
            retry,
            timeout,
            raise_errors,
            headers,
            refresh_margin,
            verify,
        )
        inner = transport or httpx.HTTPTransport(verify=verify)
        self._http = _HTTPClient(
            base_url=self._options.base_url,
            auth=self._options.auth,
            headers=self._options.headers,
            timeout=self._options.timeout,
            transport=RetryTransport(inner, self._options.retry),
            follow_redirects=False,
        )
        self._http.raise_errors = raise_errors
        self._client = AuthenticatedClient(
            base_url=self._options.base_url, token=self._options.credential, raise_on_unexpected_status=False
        )
        self._client.set_httpx_client(self._http)

    # -- construction --------------------------------------------------------------------------

    @classmethod
    def sign_up(cls, base_url: str, *, name: str, email: str, **options: Any) -> Tuple["Meridian", Any]:
        """Creates an account (`POST /api/v1/accounts`) and a client with its API key.

        Returns `(client, created)`; `created` is the generated `CreatedAccount` (`account`,
        `api_key`: shown only this once).
        """
        from .generated.api.accounts import create_account
        from .generated.models.create_account import CreateAccount

        retry = _retry_policy(options.get("retry", True))
        transport = options.get("transport") or httpx.HTTPTransport(verify=options.get("verify", True))
        with _HTTPClient(
            base_url=base_url.rstrip("/"),
            headers={"User-Agent": USER_AGENT},
            timeout=options.get("timeout", 60.0),
            transport=RetryTransport(transport, retry),
        ) as http:
            anonymous = Client(base_url=base_url.rstrip("/")).set_httpx_client(http)
            created = unwrap(create_account.sync_detailed(client=anonymous, body=CreateAccount(name=name, email=email)))
        return cls(base_url, api_key=created.api_key, **options), created

    # -- what it is made of ----------------------------------------------------------------------

    @property
    def client(self) -> AuthenticatedClient:
        """The generated client, for the generated operations (`op.sync_detailed(client=...)`)."""
        return self._client

    @property
    def http(self) -> httpx.Client:
        """The httpx client underneath (authentication, retries and problems included)."""
        return self._http

    @property
    def base_url(self) -> str:
        return self._options.base_url

    @property
    def auth(self) -> Optional[MeridianAuth]:
        return self._options.auth

    @property
    def retry(self) -> RetryPolicy:
        return self._options.retry

    def access_token(self) -> str:
        """The access token in use, traded for the API key now if there is none yet."""
        if self._options.auth is None:
            raise MeridianError("this client has no credentials")
        return self._options.auth.bearer(self._http)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Meridian":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plain requests ----------------------------------------------------------------------------

    def request(self, method: str, url: PathOrUrl, **kwargs: Any) -> httpx.Response:
        """Any request (httpx's arguments), authenticated and retried; raises on error answers."""
        if "params" in kwargs:
            kwargs["params"] = _clean(kwargs["params"])
        response = self._http.request(method, url, **kwargs)
        _check(response)
        return response

    def get_json(self, url: PathOrUrl, params: Optional[Mapping[str, Any]] = None) -> JSON:
        """GET a JSON document."""
        return self.request("GET", url, params=params).json()

    def post_json(self, url: PathOrUrl, body: Any = None, params: Optional[Mapping[str, Any]] = None) -> JSON:
        """POST a JSON body (none when `body` is None) and read the JSON answer (None when empty)."""
        response = self.request("POST", url, json=body, params=params)
        return response.json() if response.content else None

    def call(self, operation: Any, *, json: Any = None, **kwargs: Any) -> Any:
        """Runs a generated operation (`create_zone`, ...) with this client and returns its parsed
        answer; raises `MeridianProblem` on an error answer. `json=` gives the body as JSON (made
        into the operation's body model), `body=` as the model itself.
        `unwrap(op.sync_detailed(...))` does the same with the operation's own types."""
        if json is not None:
            kwargs["body"] = json_body(operation, json)
        return unwrap(operation.sync_detailed(client=self._client, **kwargs))

    # -- paging ------------------------------------------------------------------------------------

    def pages(
        self,
        operation: Union[PathOrUrl, Any],
        *,
        item_key: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
        **kwargs: Any,
    ) -> Iterator[Page[Any]]:
        """The pages of a list, following `next` links: from a generated operation
        (`m.pages(list_zones, limit=50)`, its arguments as keywords, a body as `json=` or
        `body=`) or a path (`m.pages("/v1/dns/zones", params={...})`)."""
        if isinstance(operation, str):
            response = self.request("GET", operation, params=params)
            status, headers, document = response.status_code, response.headers, response.json()
        else:
            if kwargs.get("json") is not None:
                kwargs["body"] = json_body(operation, kwargs.pop("json"))
            generated = operation.sync_detailed(client=self._client, **kwargs)
            status, headers = int(generated.status_code), generated.headers
            if status >= 400:
                raise MeridianProblem.from_parts(status, dict(headers), generated.content)
            document = _json.loads(generated.content)
        seen = set()
        count = 0
        while True:
            link = next_page(document, headers)
            yield Page(page_items(document, item_key), document, link, status, headers)
            count += 1
            if link is None or (max_pages is not None and count >= max_pages):
                return
            key = (link.url, _json.dumps(link.body, sort_keys=True))
            if key in seen:
                raise MeridianError(f"the next link {link.url} points to a page already read")
            seen.add(key)
            response = self._follow(link)
            status, headers, document = response.status_code, response.headers, response.json()

    def _follow(self, link: NextPage) -> httpx.Response:
        if link.method == "POST":
            return self.request("POST", link.url, json=link.body)
        return self.request(link.method, link.url)

    @overload
    def paginate(
        self,
        operation: Union[PathOrUrl, Any],
        *,
        parse: Callable[[Dict[str, Any]], T],
        item_key: Optional[str] = ...,
        params: Optional[Mapping[str, Any]] = ...,
        max_items: Optional[int] = ...,
        **kwargs: Any,
    ) -> Iterator[T]: ...

    @overload
    def paginate(
        self,
        operation: Union[PathOrUrl, Any],
        *,
        parse: None = ...,
        item_key: Optional[str] = ...,
        params: Optional[Mapping[str, Any]] = ...,
        max_items: Optional[int] = ...,
        **kwargs: Any,
    ) -> Iterator[Any]: ...

    def paginate(
        self,
        operation: Union[PathOrUrl, Any],
        *,
        parse: Optional[Callable[[Dict[str, Any]], Any]] = None,
        item_key: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        max_items: Optional[int] = None,
        **kwargs: Any,
    ) -> Iterator[Any]:
        """Every item of a list, page after page (`next` links followed): JSON objects, or what
        `parse` makes of each (`parse=ZoneView.from_dict`). Arguments as for `pages`."""
        given = 0
        for page in self.pages(operation, item_key=item_key, params=params, **kwargs):
            for item in page.items:
                if max_items is not None and given >= max_items:
                    return
                yield parse(item) if parse is not None else item
                given += 1

    # -- jobs --------------------------------------------------------------------------------------

    def wait_for_job(
        self,
        job: Union[str, Mapping[str, Any], Any],
        *,
        on_progress: Optional[ProgressCallback] = None,
        timeout: float = 600.0,
        interval: float = 0.2,
        max_interval: float = 2.0,
    ) -> Dict[str, Any]:
        """Polls `GET /api/v1/jobs/{id}` until the job ends and returns it (a JSON object).

        `job`: an id, a `Location`, or an answer holding `id` or `job.id`. `on_progress(progress,
        job)` is called whenever the progress or the status changes. Raises `JobFailed` when it
        ends `failed` or `cancelled` (with its problem) and `JobTimeout` after `timeout` seconds.
        """
        job_id = _job_id(job)
        started = time.monotonic()
        delay = interval
        last: Optional[Tuple[Any, Any]] = None
        while True:
            current = self.get_json(f"/api/v1/jobs/{quote(job_id, safe='')}")
            state = (current.get("status"), current.get("progress"))
            if on_progress is not None and state != last:
                on_progress(int(current.get("progress") or 0), current)
            last = state
            if current.get("status") == "succeeded":
                return dict(current)
            if current.get("status") in FINISHED:
                raise JobFailed(current)
            waited = time.monotonic() - started
            if waited >= timeout:
                raise JobTimeout(current, waited)
            time.sleep(min(delay, max(0.0, timeout - waited)))
            delay = _next_delay(delay, max_interval)

    # -- uploads -----------------------------------------------------------------------------------

    def upload(
        self,
        url: PathOrUrl,
        data: Source,
        *,
        content_type: str = "application/octet-stream",
        method: str = "POST",
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> httpx.Response:
        """Streams a raw body (bytes, a path, a binary file or an iterator of chunks)."""
        body = RawBody(data)
        try:
            request = _stream_request(
                self._http, method, url, body, content_type=content_type, params=params, headers=headers
            )
            response = self._http.send(request)
            _check(response)
            return response
        finally:
            body.close()

    def upload_multipart(
        self,
        url: PathOrUrl,
        fields: Union[Mapping[str, Any], Sequence[Part]],
        *,
        method: str = "POST",
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> httpx.Response:
        """Streams a multipart/form-data body: `Part`s, or a mapping whose values are `Part`s,
        `(filename, data[, content_type])` tuples, paths, files, JSON values or text."""
        body = _multipart(fields)
        try:
            request = _stream_request(self._http, method, url, body, content_type=None, params=params, headers=headers)
            response = self._http.send(request)
            _check(response)
            return response
        finally:
            body.close()

    def submit_dem(
        self,
        dem: Source,
        operations: Optional[Sequence[Mapping[str, Any]]] = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        filename: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Uploads a GeoTIFF DEM with its operations (`POST /api/v1/dem/process`) and returns the
        queued DEM job (wait for it with `wait_for_job`)."""
        body_params = dict(params or {})
        if operations is not None:
            body_params["operations"] = [dict(o) for o in operations]
        fields = [
            Part("file", dem, filename=filename or _filename(dem, "dem.tif"), content_type="image/tiff"),
            Part("params", _json.dumps(body_params), content_type="application/json"),
        ]
        return dict(self.upload_multipart("/api/v1/dem/process", fields).json())

    def add_eo_item(
        self,
        collection: str,
        item: Mapping[str, Any],
        assets: Mapping[str, Source],
        *,
        wait: bool = True,
        on_progress: Optional[ProgressCallback] = None,
        timeout: float = 600.0,
    ) -> Dict[str, Any]:
        """Uploads a scene's GeoTIFF bands with its item (`POST /api/v1/eo/collections/{c}/items`).

        Returns the STAC Item. When the server converts the files first (`202` and an
        `eo.ingest` job), waits for the job and reads the item back (`wait=False` returns the
        job instead)."""
        fields = [Part("item", _json.dumps(dict(item)), content_type="application/json")]
        for key, data in assets.items():
            fields.append(Part(key, data, filename=_filename(data, f"{key}.tif"), content_type="image/tiff"))
        path = f"/api/v1/eo/collections/{quote(collection, safe='')}/items"
        response = self.upload_multipart(path, fields)
        answer = dict(response.json())
        if response.status_code != 202 or not wait:
            return answer
        self.wait_for_job(answer, on_progress=on_progress, timeout=timeout)
        return dict(self.get_json(f"{path}/{quote(str(item['id']), safe='')}"))

    def upload_point_cloud(
        self,
        data: Source,
        *,
        name: Optional[str] = None,
        crs: Optional[Union[int, str]] = None,
        content_type: Optional[str] = None,
        filename: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Streams a LAS or LAZ file (`POST /api/v1/pointcloud/upload`); returns the point cloud
        (`status: indexing`) with its indexing `job`."""
        kind = content_type or _guess_point_cloud_type(data, filename)
        params = {"name": name, "crs": None if crs is None else str(crs)}
        return dict(self.upload("/api/v1/pointcloud/upload", data, content_type=kind, params=params).json())

    def upload_collection(
        self,
        data: Source,
        *,
        id: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        content_type: str = "application/geo+json",
        content_crs: Optional[str] = None,
        respond_async: bool = False,
    ) -> Dict[str, Any]:
        """Streams a GeoJSON FeatureCollection or a FlatGeobuf file (`content_type=
        "application/flatgeobuf"`) as a new OGC API Features collection. Returns the collection,
        or the `features.import` job of a large or `respond_async` upload."""
        headers: Dict[str, str] = {}
        if content_crs:
            headers["Content-Crs"] = content_crs
        if respond_async:
            headers["Prefer"] = "respond-async"
        params = {"id": id, "title": title, "description": description}
        response = self.upload(
            "/api/v1/ogc/v1/features/collections", data, content_type=content_type, params=params, headers=headers
        )
        return dict(response.json())

    # -- downloads ---------------------------------------------------------------------------------

    def download(
        self,
        url: PathOrUrl,
        dest: Destination,
        *,
        params: Optional[Mapping[str, Any]] = None,
        byte_range: Optional[Tuple[int, Optional[int]]] = None,
        resume: bool = False,
        wait_timeout: float = 300.0,
        chunk_size: int = 256 * 1024,
    ) -> DownloadResult:
        """Streams a file to `dest` (a path or a binary file object).

        `byte_range=(first, last)` asks for those bytes (`last` None: to the end) with HTTP
        Range; `resume=True` continues a partial file at `dest` from its size (a file already
        whole is left as it is). An answer `202` with `Retry-After` (a conversion under way) is
        asked again until `wait_timeout`."""
        plan = _DownloadPlan(dest, byte_range, resume)
        started = time.monotonic()
        while True:
            streamed = self._http.stream("GET", url, params=_clean(params), headers=plan.headers)
            try:
                response = streamed.__enter__()
            except MeridianProblem as problem:
                return plan.when_refused(problem)
            try:
                if response.status_code >= 400:  # a client made with raise_errors=False
                    response.read()
                    return plan.when_refused(MeridianProblem.from_response(response))
                if response.status_code == 202:
                    response.read()
                    time.sleep(plan.wait(response, started, wait_timeout, url))
                    continue
                handle, owned = plan.open(response)
                written = 0
                try:
                    for chunk in response.iter_bytes(chunk_size):
                        handle.write(chunk)
                        written += len(chunk)
                finally:
                    if owned:
                        handle.close()
                return plan.result(written, response)
            finally:
                streamed.__exit__(None, None, None)

    def read_range(
        self, url: PathOrUrl, first: int, last: Optional[int] = None, *, params: Optional[Mapping[str, Any]] = None
    ) -> bytes:
        """Bytes `first` to `last` (inclusive; None: to the end) of a file, by an HTTP Range request."""
        byte_range = (first, last)
        response = self.request("GET", url, params=params, headers={"Range": _range_header(byte_range)})
        _check_range(response.status_code, byte_range, _content_range(response.headers.get("content-range")))
        return response.content

    def download_point_cloud(
        self,
        point_cloud_id: str,
        dest: Destination,
        *,
        format: str = "laz",
        version: Optional[str] = None,
        bbox: Optional[Sequence[float]] = None,
        bbox_crs: Optional[str] = None,
        classes: Optional[Sequence[int]] = None,
        byte_range: Optional[Tuple[int, Optional[int]]] = None,
        resume: bool = False,
    ) -> DownloadResult:
        """Downloads a point cloud as LAZ, LAS or COPC (`format`), whole or cut by `bbox` and
        `classes`; waits while the server converts it."""
        params = {
            "format": format,
            "version": version,
            "bbox": None if bbox is None else ",".join(repr(float(v)) for v in bbox),
            "bbox-crs": bbox_crs,
            "classes": None if classes is None else ",".join(str(int(c)) for c in classes),
        }
        path = f"/api/v1/pointcloud/{quote(point_cloud_id, safe='')}/download"
        return self.download(path, dest, params=params, byte_range=byte_range, resume=resume)

    # -- telemetry ---------------------------------------------------------------------------------

    def telemetry(
        self,
        twin_id: str,
        *,
        since: Optional[Any] = None,
        sensors: Optional[Sequence[str]] = None,
        reconnect: bool = True,
        max_reconnects: int = 5,
    ) -> Telemetry:
        """The twin's live telemetry over its WebSocket, resuming after drops (`since`)."""
        auth = self._options.auth

        def headers() -> Mapping[str, str]:
            if auth is None:
                return {}
            return {"Authorization": f"Bearer {auth.bearer(self._http)}", "User-Agent": USER_AGENT}

        return Telemetry(
            self._options.ws_url(twin_id),
            headers,
            since=since,
            sensors=sensors,
            reconnect=reconnect,
            max_reconnects=max_reconnects,
        )


class AsyncMeridian:
    """The asyncio client: the same as `Meridian`, with `async` methods (`await m.paginate(...)`
    is `async for`), for the generated operations' `asyncio_detailed`."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8080",
        *,
        api_key: Optional[str] = None,
        access_token: Optional[str] = None,
        exchange_token: bool = True,
        retry: Union[RetryPolicy, bool, int, None] = True,
        timeout: Union[float, httpx.Timeout] = 60.0,
        raise_errors: bool = True,
        headers: Optional[Mapping[str, str]] = None,
        refresh_margin: float = 60.0,
        verify: Union[bool, str] = True,
        transport: Optional[httpx.AsyncBaseTransport] = None,
    ) -> None:
        self._options = _Options(
            base_url,
            api_key,
            access_token,
            exchange_token,
            retry,
            timeout,
            raise_errors,
            headers,
            refresh_margin,
            verify,
        )
        inner = transport or httpx.AsyncHTTPTransport(verify=verify)
        self._http = _AsyncHTTPClient(
            base_url=self._options.base_url,
            auth=self._options.auth,
            headers=self._options.headers,
            timeout=self._options.timeout,
            transport=AsyncRetryTransport(inner, self._options.retry),
            follow_redirects=False,
        )
        self._http.raise_errors = raise_errors
        self._client = AuthenticatedClient(
            base_url=self._options.base_url, token=self._options.credential, raise_on_unexpected_status=False
        )
        self._client.set_async_httpx_client(self._http)

    @classmethod
    async def sign_up(cls, base_url: str, *, name: str, email: str, **options: Any) -> Tuple["AsyncMeridian", Any]:
        """Creates an account and a client with its API key (see `Meridian.sign_up`)."""
        from .generated.api.accounts import create_account
        from .generated.models.create_account import CreateAccount

        retry = _retry_policy(options.get("retry", True))
        transport = options.get("transport") or httpx.AsyncHTTPTransport(verify=options.get("verify", True))
        async with _AsyncHTTPClient(
            base_url=base_url.rstrip("/"),
            headers={"User-Agent": USER_AGENT},
            timeout=options.get("timeout", 60.0),
            transport=AsyncRetryTransport(transport, retry),
        ) as http:
            anonymous = Client(base_url=base_url.rstrip("/")).set_async_httpx_client(http)
            body = CreateAccount(name=name, email=email)
            created = unwrap(await create_account.asyncio_detailed(client=anonymous, body=body))
        return cls(base_url, api_key=created.api_key, **options), created

    @property
    def client(self) -> AuthenticatedClient:
        """The generated client, for the generated operations (`await op.asyncio_detailed(client=...)`)."""
        return self._client

    @property
    def http(self) -> httpx.AsyncClient:
        return self._http

    @property
    def base_url(self) -> str:
        return self._options.base_url

    @property
    def auth(self) -> Optional[MeridianAuth]:
        return self._options.auth

    @property
    def retry(self) -> RetryPolicy:
        return self._options.retry

    async def access_token(self) -> str:
        if self._options.auth is None:
            raise MeridianError("this client has no credentials")
        return await self._options.auth.abearer(self._http)

    async def close(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncMeridian":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def request(self, method: str, url: PathOrUrl, **kwargs: Any) -> httpx.Response:
        if "params" in kwargs:
            kwargs["params"] = _clean(kwargs["params"])
        response = await self._http.request(method, url, **kwargs)
        _check(response)
        return response

    async def get_json(self, url: PathOrUrl, params: Optional[Mapping[str, Any]] = None) -> JSON:
        return (await self.request("GET", url, params=params)).json()

    async def post_json(self, url: PathOrUrl, body: Any = None, params: Optional[Mapping[str, Any]] = None) -> JSON:
        response = await self.request("POST", url, json=body, params=params)
        return response.json() if response.content else None

    async def call(self, operation: Any, *, json: Any = None, **kwargs: Any) -> Any:
        """Runs a generated operation (see `Meridian.call`)."""
        if json is not None:
            kwargs["body"] = json_body(operation, json)
        return unwrap(await operation.asyncio_detailed(client=self._client, **kwargs))

    async def pages(
        self,
        operation: Union[PathOrUrl, Any],
        *,
        item_key: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        max_pages: Optional[int] = None,
        **kwargs: Any,
    ) -> AsyncIterator[Page[Any]]:
        """The pages of a list, following `next` links (see `Meridian.pages`)."""
        if isinstance(operation, str):
            response = await self.request("GET", operation, params=params)
            status, headers, document = response.status_code, response.headers, response.json()
        else:
            if kwargs.get("json") is not None:
                kwargs["body"] = json_body(operation, kwargs.pop("json"))
            generated = await operation.asyncio_detailed(client=self._client, **kwargs)
            status, headers = int(generated.status_code), generated.headers
            if status >= 400:
                raise MeridianProblem.from_parts(status, dict(headers), generated.content)
            document = _json.loads(generated.content)
        seen = set()
        count = 0
        while True:
            link = next_page(document, headers)
            yield Page(page_items(document, item_key), document, link, status, headers)
            count += 1
            if link is None or (max_pages is not None and count >= max_pages):
                return
            key = (link.url, _json.dumps(link.body, sort_keys=True))
            if key in seen:
                raise MeridianError(f"the next link {link.url} points to a page already read")
            seen.add(key)
            if link.method == "POST":
                response = await self.request("POST", link.url, json=link.body)
            else:
                response = await self.request(link.method, link.url)
            status, headers, document = response.status_code, response.headers, response.json()

    @overload
    def paginate(
        self,
        operation: Union[PathOrUrl, Any],
        *,
        parse: Callable[[Dict[str, Any]], T],
        item_key: Optional[str] = ...,
        params: Optional[Mapping[str, Any]] = ...,
        max_items: Optional[int] = ...,
        **kwargs: Any,
    ) -> AsyncIterator[T]: ...

    @overload
    def paginate(
        self,
        operation: Union[PathOrUrl, Any],
        *,
        parse: None = ...,
        item_key: Optional[str] = ...,
        params: Optional[Mapping[str, Any]] = ...,
        max_items: Optional[int] = ...,
        **kwargs: Any,
    ) -> AsyncIterator[Any]: ...

    async def paginate(
        self,
        operation: Union[PathOrUrl, Any],
        *,
        parse: Optional[Callable[[Dict[str, Any]], Any]] = None,
        item_key: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        max_items: Optional[int] = None,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """Every item of a list, page after page: `async for item in m.paginate(list_zones)`."""
        given = 0
        async for page in self.pages(operation, item_key=item_key, params=params, **kwargs):
            for item in page.items:
                if max_items is not None and given >= max_items:
                    return
                yield parse(item) if parse is not None else item
                given += 1

    async def wait_for_job(
        self,
        job: Union[str, Mapping[str, Any], Any],
        *,
        on_progress: Optional[ProgressCallback] = None,
        timeout: float = 600.0,
        interval: float = 0.2,
        max_interval: float = 2.0,
    ) -> Dict[str, Any]:
        """Polls the job until it ends (see `Meridian.wait_for_job`)."""
        job_id = _job_id(job)
        started = time.monotonic()
        delay = interval
        last: Optional[Tuple[Any, Any]] = None
        while True:
            current = await self.get_json(f"/api/v1/jobs/{quote(job_id, safe='')}")
            state = (current.get("status"), current.get("progress"))
            if on_progress is not None and state != last:
                on_progress(int(current.get("progress") or 0), current)
            last = state
            if current.get("status") == "succeeded":
                return dict(current)
            if current.get("status") in FINISHED:
                raise JobFailed(current)
            waited = time.monotonic() - started
            if waited >= timeout:
                raise JobTimeout(current, waited)
            await asyncio.sleep(min(delay, max(0.0, timeout - waited)))
            delay = _next_delay(delay, max_interval)

    async def upload(
        self,
        url: PathOrUrl,
        data: Source,
        *,
        content_type: str = "application/octet-stream",
        method: str = "POST",
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> httpx.Response:
        """Streams a raw body (bytes, a path, a binary file, or a sync or async iterator)."""
        body = RawBody(data)
        try:
            request = _stream_request(
                self._http, method, url, body, content_type=content_type, params=params, headers=headers
            )
            response = await self._http.send(request)
            _check(response)
            return response
        finally:
            body.close()

    async def upload_multipart(
        self,
        url: PathOrUrl,
        fields: Union[Mapping[str, Any], Sequence[Part]],
        *,
        method: str = "POST",
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> httpx.Response:
        body = _multipart(fields)
        try:
            request = _stream_request(self._http, method, url, body, content_type=None, params=params, headers=headers)
            response = await self._http.send(request)
            _check(response)
            return response
        finally:
            body.close()

    async def submit_dem(
        self,
        dem: Source,
        operations: Optional[Sequence[Mapping[str, Any]]] = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        filename: Optional[str] = None,
    ) -> Dict[str, Any]:
        body_params = dict(params or {})
        if operations is not None:
            body_params["operations"] = [dict(o) for o in operations]
        fields = [
            Part("file", dem, filename=filename or _filename(dem, "dem.tif"), content_type="image/tiff"),
            Part("params", _json.dumps(body_params), content_type="application/json"),
        ]
        return dict((await self.upload_multipart("/api/v1/dem/process", fields)).json())

    async def add_eo_item(
        self,
        collection: str,
        item: Mapping[str, Any],
        assets: Mapping[str, Source],
        *,
        wait: bool = True,
        on_progress: Optional[ProgressCallback] = None,
        timeout: float = 600.0,
    ) -> Dict[str, Any]:
        fields = [Part("item", _json.dumps(dict(item)), content_type="application/json")]
        for key, data in assets.items():
            fields.append(Part(key, data, filename=_filename(data, f"{key}.tif"), content_type="image/tiff"))
        path = f"/api/v1/eo/collections/{quote(collection, safe='')}/items"
        response = await self.upload_multipart(path, fields)
        answer = dict(response.json())
        if response.status_code != 202 or not wait:
            return answer
        await self.wait_for_job(answer, on_progress=on_progress, timeout=timeout)
        return dict(await self.get_json(f"{path}/{quote(str(item['id']), safe='')}"))

    async def upload_point_cloud(
        self,
        data: Source,
        *,
        name: Optional[str] = None,
        crs: Optional[Union[int, str]] = None,
        content_type: Optional[str] = None,
        filename: Optional[str] = None,
    ) -> Dict[str, Any]:
        kind = content_type or _guess_point_cloud_type(data, filename)
        params = {"name": name, "crs": None if crs is None else str(crs)}
        return dict((await self.upload("/api/v1/pointcloud/upload", data, content_type=kind, params=params)).json())

    async def upload_collection(
        self,
        data: Source,
        *,
        id: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        content_type: str = "application/geo+json",
        content_crs: Optional[str] = None,
        respond_async: bool = False,
    ) -> Dict[str, Any]:
        headers: Dict[str, str] = {}
        if content_crs:
            headers["Content-Crs"] = content_crs
        if respond_async:
            headers["Prefer"] = "respond-async"
        params = {"id": id, "title": title, "description": description}
        response = await self.upload(
            "/api/v1/ogc/v1/features/collections", data, content_type=content_type, params=params, headers=headers
        )
        return dict(response.json())

    async def download(
        self,
        url: PathOrUrl,
        dest: Destination,
        *,
        params: Optional[Mapping[str, Any]] = None,
        byte_range: Optional[Tuple[int, Optional[int]]] = None,
        resume: bool = False,
        wait_timeout: float = 300.0,
        chunk_size: int = 256 * 1024,
    ) -> DownloadResult:
        """Streams a file to `dest` (see `Meridian.download`)."""
        plan = _DownloadPlan(dest, byte_range, resume)
        started = time.monotonic()
        while True:
            streamed = self._http.stream("GET", url, params=_clean(params), headers=plan.headers)
            try:
                response = await streamed.__aenter__()
            except MeridianProblem as problem:
                return plan.when_refused(problem)
            try:
                if response.status_code >= 400:  # a client made with raise_errors=False
                    await response.aread()
                    return plan.when_refused(MeridianProblem.from_response(response))
                if response.status_code == 202:
                    await response.aread()
                    await asyncio.sleep(plan.wait(response, started, wait_timeout, url))
                    continue
                handle, owned = plan.open(response)
                written = 0
                try:
                    async for chunk in response.aiter_bytes(chunk_size):
                        handle.write(chunk)
                        written += len(chunk)
                finally:
                    if owned:
                        handle.close()
                return plan.result(written, response)
            finally:
                await streamed.__aexit__(None, None, None)

    async def read_range(
        self, url: PathOrUrl, first: int, last: Optional[int] = None, *, params: Optional[Mapping[str, Any]] = None
    ) -> bytes:
        byte_range = (first, last)
        response = await self.request("GET", url, params=params, headers={"Range": _range_header(byte_range)})
        _check_range(response.status_code, byte_range, _content_range(response.headers.get("content-range")))
        return response.content

    async def download_point_cloud(
        self,
        point_cloud_id: str,
        dest: Destination,
        *,
        format: str = "laz",
        version: Optional[str] = None,
        bbox: Optional[Sequence[float]] = None,
        bbox_crs: Optional[str] = None,
        classes: Optional[Sequence[int]] = None,
        byte_range: Optional[Tuple[int, Optional[int]]] = None,
        resume: bool = False,
    ) -> DownloadResult:
        params = {
            "format": format,
            "version": version,
            "bbox": None if bbox is None else ",".join(repr(float(v)) for v in bbox),
            "bbox-crs": bbox_crs,
            "classes": None if classes is None else ",".join(str(int(c)) for c in classes),
        }
        path = f"/api/v1/pointcloud/{quote(point_cloud_id, safe='')}/download"
        return await self.download(path, dest, params=params, byte_range=byte_range, resume=resume)

    def telemetry(
        self,
        twin_id: str,
        *,
        since: Optional[Any] = None,
        sensors: Optional[Sequence[str]] = None,
        reconnect: bool = True,
        max_reconnects: int = 5,
    ) -> AsyncTelemetry:
        """The twin's live telemetry (`async for message in m.telemetry(twin)`), resuming after drops."""
        auth = self._options.auth

        async def headers() -> Mapping[str, str]:
            if auth is None:
                return {}
            return {"Authorization": f"Bearer {await auth.abearer(self._http)}", "User-Agent": USER_AGENT}

        return AsyncTelemetry(
            self._options.ws_url(twin_id),
            headers,
            since=since,
            sensors=sensors,
            reconnect=reconnect,
            max_reconnects=max_reconnects,
        )


class _DownloadPlan:
    """What a download asks for (Range) and how its answer is written."""

    def __init__(self, dest: Destination, byte_range: Optional[Tuple[int, Optional[int]]], resume: bool) -> None:
        self.dest = dest
        self.byte_range = byte_range
        self.mode = "wb"
        self.have = 0
        if resume and byte_range is None and isinstance(dest, (str, os.PathLike)) and os.path.exists(dest):
            self.have = os.path.getsize(dest)
            if self.have > 0:
                self.byte_range = (self.have, None)
                self.mode = "ab"
        self.headers: Dict[str, str] = {}
        if self.byte_range is not None:
            self.headers["Range"] = _range_header(self.byte_range)

    def when_refused(self, problem: MeridianProblem) -> DownloadResult:
        # Resuming a file that is already whole: the server answers 416 with `bytes */size`.
        if problem.status == 416 and self.mode == "ab":
            total = (problem.headers.get("content-range") or "").rpartition("/")[2]
            if total.isdigit() and int(total) == self.have:
                return DownloadResult(
                    path=os.fspath(self.dest) if isinstance(self.dest, (str, os.PathLike)) else None,
                    bytes_written=0,
                    status=416,
                    content_range=None,
                    size=self.have,
                    etag=None,
                    content_type=None,
                )
        raise problem

    def wait(self, response: httpx.Response, started: float, wait_timeout: float, url: str) -> float:
        seconds = _retry_after(response, 2.0)
        if time.monotonic() - started + seconds > wait_timeout:
            raise MeridianError(f"{url} was still being prepared after {wait_timeout:.0f} s")
        return seconds

    def open(self, response: httpx.Response) -> Tuple[IO[bytes], bool]:
        got = _content_range(response.headers.get("content-range"))
        if self.byte_range is not None:
            _check_range(response.status_code, self.byte_range, got)
        return _open_destination(self.dest, "wb" if response.status_code == 200 else self.mode)

    def result(self, written: int, response: httpx.Response) -> DownloadResult:
        return _download_result(self.dest, written, response, _content_range(response.headers.get("content-range")))


def _retry_after(response: httpx.Response, default: float) -> float:
    from .retry import parse_retry_after

    value = response.headers.get("retry-after")
    seconds = parse_retry_after(value) if value is not None else None
    return default if seconds is None else seconds


def _check_range(
    status: int, byte_range: Tuple[int, Optional[int]], got: Optional[Tuple[int, int, Optional[int]]]
) -> None:
    first, _ = byte_range
    if status == 206:
        if got is None or got[0] != first:
            raise MeridianError(f"the server answered another range than the one asked for ({got})")
        return
    if status == 200 and first == 0:
        return  # the whole file is what was asked for
    raise MeridianError(f"the server ignored the Range request (answer {status})")


def _open_destination(dest: Destination, mode: str) -> Tuple[IO[bytes], bool]:
    if isinstance(dest, (str, os.PathLike)):
        return open(os.fspath(dest), mode), True  # noqa: SIM115 - closed by the caller
    return dest, False


def _download_result(
    dest: Destination, written: int, response: httpx.Response, result_range: Optional[Tuple[int, int, Optional[int]]]
) -> DownloadResult:
    size: Optional[int] = None
    if result_range is not None:
        size = result_range[2]
    elif response.status_code == 200:
        size = written
    return DownloadResult(
        path=os.fspath(dest) if isinstance(dest, (str, os.PathLike)) else None,
        bytes_written=written,
        status=response.status_code,
        content_range=result_range,
        size=size,
        etag=response.headers.get("etag"),
        content_type=response.headers.get("content-type"),
    )


__all__ = ["AsyncMeridian", "DownloadResult", "Meridian", "json_body", "unwrap"]
