"""Parts of the library that need no server: signatures, links, Retry-After, bodies, versions."""

from __future__ import annotations

import email.parser
import email.policy
import hashlib
import hmac
import io
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator, List

import httpx
import pytest

import meridian_client
from meridian_client import MeridianProblem, RetryPolicy, WebhookVerificationError, verify_webhook
from meridian_client.paging import next_page, page_items, parse_link_header
from meridian_client.retry import RetryTransport, parse_retry_after
from meridian_client.streams import MultipartBody, Part, RawBody

PACKAGE = Path(__file__).resolve().parents[1]

# The example of the Standard Webhooks specification (standardwebhooks.com), verified as published.
STANDARD_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
STANDARD_HEADERS = {
    "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
    "webhook-timestamp": "1614265330",
    "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
}
STANDARD_BODY = b'{"test": 2432232314}'


def test_standard_webhooks_specification_example() -> None:
    assert verify_webhook(STANDARD_SECRET, STANDARD_HEADERS, STANDARD_BODY, now=1614265330) == {"test": 2432232314}
    # One of two signatures (a rotation) is enough; an unknown scheme is ignored.
    rotated = dict(
        STANDARD_HEADERS, **{"webhook-signature": "v1a,abc v1,AAAA " + STANDARD_HEADERS["webhook-signature"]}
    )
    assert verify_webhook(STANDARD_SECRET, rotated, STANDARD_BODY, now=1614265330)
    with pytest.raises(WebhookVerificationError):
        verify_webhook(STANDARD_SECRET, STANDARD_HEADERS, STANDARD_BODY + b" ", now=1614265330)
    with pytest.raises(WebhookVerificationError, match="older"):
        verify_webhook(STANDARD_SECRET, STANDARD_HEADERS, STANDARD_BODY, tolerance=300, now=1614265330 + 301)


def test_service_signature_with_rotation_and_several_secrets() -> None:
    body = b'{"id":"evt_1","event":"webhook.test"}'
    old, new = "whsec_" + "A" * 44, "whsec_" + "B" * 44

    def sign(secret: str) -> str:
        return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()

    headers = {"X-Service-Signature": f"{sign(new)}, {sign(old)}", "X-Service-Timestamp": "2026-01-02T03:04:05.901Z"}
    now = datetime(2026, 1, 2, 3, 5, tzinfo=timezone.utc).timestamp()
    assert verify_webhook(old, headers, body, now=now)["id"] == "evt_1"
    assert verify_webhook([new, "whsec_" + "C" * 44], headers, body, now=now)["event"] == "webhook.test"
    with pytest.raises(WebhookVerificationError):
        verify_webhook("whsec_" + "C" * 44, headers, body, now=now)
    with pytest.raises(WebhookVerificationError, match="neither"):
        verify_webhook(old, {}, body, now=now)


def test_link_headers_and_next_pages() -> None:
    header = '</v1/dns/zones?limit=2&offset=4>; rel="next", </v1/dns/zones?limit=2&offset=0>; rel="prev"'
    assert parse_link_header(header) == [
        {"href": "/v1/dns/zones?limit=2&offset=4", "rel": "next"},
        {"href": "/v1/dns/zones?limit=2&offset=0", "rel": "prev"},
    ]
    assert next_page({"zones": [], "total": 9}, {"Link": header}).url == "/v1/dns/zones?limit=2&offset=4"  # type: ignore[union-attr]
    stac = {"features": [], "links": [{"rel": "next", "href": "/s", "method": "POST", "body": {"token": "t"}}]}
    link = next_page(stac, {})
    assert link is not None and link.method == "POST" and link.body == {"token": "t"}
    assert next_page({"readings": [], "next": "/r?from=x"}, {}).url == "/r?from=x"  # type: ignore[union-attr]
    assert next_page({"zones": [], "total": 0}, {}) is None
    assert page_items({"features": [1], "links": []}) == [1]
    assert page_items({"records": [1, 2], "total": 2}) == [1, 2]
    with pytest.raises(meridian_client.MeridianError, match="item_key"):
        page_items({"created": [], "updated": []})
    assert page_items({"created": [3], "updated": []}, item_key="created") == [3]


def test_retry_after_values() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 0.5 ") == 0.5
    now = datetime(2026, 1, 1, 0, 0, 0, tzinfo=timezone.utc)
    assert parse_retry_after("Thu, 01 Jan 2026 00:00:10 GMT", now=now) == 10.0
    assert parse_retry_after("Wed, 31 Dec 2025 23:59:00 GMT", now=now) == 0.0
    assert parse_retry_after("soon") is None


def test_retry_transport_waits_what_the_server_asks_and_stops() -> None:
    answers = [429, 503, 200]
    seen: List[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.read())
        status = answers.pop(0)
        headers = {"Retry-After": "2"} if status != 200 else {}
        return httpx.Response(status, headers=headers, json={"ok": status == 200})

    slept: List[float] = []
    transport = RetryTransport(httpx.MockTransport(handler), RetryPolicy(max_retries=3), sleep=slept.append)
    with httpx.Client(transport=transport) as client:
        response = client.post("http://h/x", json={"a": 1})
    assert response.status_code == 200 and slept == [2.0, 2.0] and seen == [b'{"a":1}'] * 3

    # Not retried: retries off, a Retry-After beyond the limit, a body that cannot be sent again.
    def limited(request: httpx.Request) -> httpx.Response:
        request.read()
        return httpx.Response(429, headers={"Retry-After": "1000"})

    for policy in (RetryPolicy.disabled(), RetryPolicy(max_retries=3, max_retry_after=60)):
        slept.clear()
        with httpx.Client(transport=RetryTransport(httpx.MockTransport(limited), policy, sleep=slept.append)) as c:
            assert c.get("http://h/x").status_code == 429 and slept == []

    def always_busy(request: httpx.Request) -> httpx.Response:
        request.read()
        return httpx.Response(503, headers={"Retry-After": "0"})

    calls = 0

    def counting(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return always_busy(request)

    def stream() -> Iterator[bytes]:
        yield b"once"

    with httpx.Client(transport=RetryTransport(httpx.MockTransport(counting), RetryPolicy(), sleep=slept.append)) as c:
        assert c.post("http://h/x", content=stream()).status_code == 503
    assert calls == 1


def test_multipart_body_streams_parts_that_parse_back(tmp_path: Path) -> None:
    path = tmp_path / "band.tif"
    path.write_bytes(b"II*\x00" + bytes(range(256)) * 100)
    with open(path, "rb") as file:
        body = MultipartBody(
            [
                Part("item", '{"id": "s1"}', content_type="application/json"),
                Part("B7", file, filename="band7.tif", content_type="image/tiff"),
                Part("B8", iter([b"abc", b"def"]), filename="b8.tif"),
            ]
        )
        assert not body.replayable  # the iterator can be sent once
        assert body.headers()["Transfer-Encoding"] == "chunked"
        raw = b"".join(body)
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {body.content_type}\r\n\r\n".encode() + raw
    )
    parts = list(message.iter_parts())  # type: ignore[attr-defined]
    assert [p.get_param("name", header="content-disposition") for p in parts] == ["item", "B7", "B8"]
    assert parts[0].get_content() == b'{"id": "s1"}'  # application/json reads as bytes
    assert parts[1].get_filename() == "band7.tif" and parts[1].get_content() == path.read_bytes()
    assert parts[2].get_content() == b"abcdef"

    with open(path, "rb") as file:
        sized = MultipartBody([Part("file", file, filename="f"), Part("params", "{}")])
        assert sized.replayable
        length = int(sized.headers()["Content-Length"])
        assert len(b"".join(sized)) == length == len(b"".join(sized))  # sent twice, same bytes

    raw_body = RawBody(io.BytesIO(b"0123456789"))
    assert raw_body.headers() == {"Content-Length": "10"} and b"".join(raw_body) == b"0123456789"


def test_problem_from_non_problem_answers() -> None:
    html = MeridianProblem.from_parts(502, {"Content-Type": "text/html"}, b"<h1>Bad gateway</h1>", reason="Bad Gateway")
    assert html.status == 502 and html.code == "http_502" and html.title == "Bad Gateway" and html.errors == []


def test_version_is_the_servers() -> None:
    cargo = (PACKAGE.parents[1] / "Cargo.toml").read_text()
    workspace = cargo[cargo.index("[workspace.package]") :]
    server_version = re.search(r'^version\s*=\s*"([^"]+)"', workspace, re.M)
    assert server_version is not None
    pyproject = (PACKAGE / "pyproject.toml").read_text()
    declared = re.search(r'^version\s*=\s*"([^"]+)"', pyproject, re.M)
    assert declared is not None
    assert meridian_client.__version__ == declared.group(1) == server_version.group(1)
    assert (PACKAGE / "meridian_client" / "py.typed").exists()


def test_hand_written_layer_passes_mypy_strict() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "meridian_client"],
        cwd=PACKAGE,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_credentials_go_only_to_the_server_of_the_client() -> None:
    seen = {}

    def handler(request: httpx.Request) -> httpx.Response:
        seen[request.url.host] = request.headers.get("authorization")
        return httpx.Response(200, json={})

    client = meridian_client.Meridian(
        "http://meridian.test", api_key="mrd_" + "k" * 40, exchange_token=False, transport=httpx.MockTransport(handler)
    )
    with client:
        client.get_json("/api/v1/account")
        client.get_json("http://elsewhere.test/file")  # a link to another host
    assert seen == {"meridian.test": "Bearer mrd_" + "k" * 40, "elsewhere.test": None}


def test_postprocess_rewrites_what_python_3_9_cannot_run(tmp_path: Path) -> None:
    source = '''"""A generated module."""
import datetime
from enum import StrEnum
from typing import Any, Self, cast

from attrs import define

Alias = int | str | None


class Colour(StrEnum):
    RED = "red"

    def __str__(self) -> str:
        return str(self.value)


@define
class Thing:
    when: datetime.datetime | None = None

    def parse(self, data: object) -> int | None:
        if isinstance(data, int | float):
            return cast(int | None, data)
        return None

    @classmethod
    def make(cls, text: str) -> Self:
        return cls(when=datetime.datetime.fromisoformat(text))
'''
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "thing.py").write_text(source)
    tool = PACKAGE / "tools" / "postprocess.py"
    subprocess.run([sys.executable, str(tool), str(package)], check=True)
    rewritten = (package / "thing.py").read_text()
    assert rewritten.startswith('"""A generated module."""\nfrom __future__ import annotations\n')
    assert "Alias = Union[int, str, None]" in rewritten
    assert 'cast("int | None", data)' in rewritten
    assert "isinstance(data, (int, float))" in rewritten
    assert "class Colour(str, Enum):" in rewritten
    assert "_isoparse(text)" in rewritten and "fromisoformat" not in rewritten
    assert "from typing_extensions import Self" in rewritten
    # Idempotent, and what it wrote runs: on this interpreter and, by construction, on 3.9.
    subprocess.run([sys.executable, str(tool), str(package)], check=True)
    assert (package / "thing.py").read_text() == rewritten
    namespace: dict = {}
    exec(compile(rewritten, "thing.py", "exec"), namespace)
    thing = namespace["Thing"].make("2026-11-25T08:00:00.250Z")
    assert thing.when.tzinfo is not None and thing.parse(2) == 2 and str(namespace["Colour"].RED) == "red"


def test_postprocess_keeps_a_property_named_additional_properties(tmp_path: Path) -> None:
    # What the generator writes for a JSON Schema document as a model (OGC queryables).
    source = """from __future__ import annotations
from collections.abc import Mapping
from typing import Any, TypeVar
from attrs import define as _attrs_define
from attrs import field as _attrs_field
from ..types import UNSET, Unset
T = TypeVar("T", bound="Schema")


@_attrs_define
class Schema:
    title: str | Unset = UNSET
    additional_properties: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        title = self.title
        additional_properties = self.additional_properties
        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        if title is not UNSET:
            field_dict["title"] = title
        if additional_properties is not UNSET:
            field_dict["additionalProperties"] = additional_properties
        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        title = d.pop("title", UNSET)
        additional_properties = d.pop("additionalProperties", UNSET)
        schema = cls(
            title=title,
            additional_properties=additional_properties,
        )
        schema.additional_properties = d
        return schema

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]
"""
    package = tmp_path / "pkg"
    (package / "models").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "types.py").write_text("class Unset:\n    pass\n\n\nUNSET = Unset()\n")
    (package / "models" / "__init__.py").write_text("")
    (package / "models" / "schema.py").write_text(source)
    subprocess.run([sys.executable, str(PACKAGE / "tools" / "postprocess.py"), str(package)], check=True)
    sys.path.insert(0, str(tmp_path))
    try:
        from pkg.models.schema import Schema  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(tmp_path))
    document = {"title": "Queryables", "additionalProperties": False, "$id": "x"}
    schema = Schema.from_dict(document)
    assert schema.additional_properties is False and schema["$id"] == "x"
    assert schema.to_dict() == document
