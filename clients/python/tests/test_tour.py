"""The tour of README.md, run with this library against a real server."""

from __future__ import annotations

import asyncio
import base64
import queue
import socket
import subprocess
import threading
import time
import uuid
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, AsyncIterator, Dict, Iterator, List, Tuple

import pytest
from dateutil.parser import isoparse
from server import Server

from meridian_client import (
    AsyncMeridian,
    Meridian,
    MeridianProblem,
    RetryEvent,
    RetryPolicy,
    Telemetry,
    WebhookVerificationError,
    is_valid_webhook,
    unwrap,
    verify_webhook,
)
from meridian_client.generated.api.accounts import create_api_key, get_account
from meridian_client.generated.api.cadastre import create_parcel, list_parcels
from meridian_client.generated.api.dns import create_record, create_zone, list_records, list_zones
from meridian_client.generated.api.eo import compute_eo_index, create_eo_collection, search_eo_get, search_eo_post
from meridian_client.generated.api.webhooks import create_subscription, list_deliveries, test_subscription

# Only component schemas (`#/components/schemas/...`) by name: bodies the document describes
# inline get their model names from the operation, so they go through `json=` (`json_body`).
from meridian_client.generated.models import CreateApiKey, CreateSubscription, CreateZone, Problem, RecordBody, ZoneView

from conftest import TOKEN_TTL_SECONDS


def square(lon: float, lat: float, size: float = 0.001) -> Dict[str, Any]:
    return {
        "type": "Polygon",
        "coordinates": [[[lon, lat], [lon + size, lat], [lon + size, lat + size], [lon, lat + size], [lon, lat]]],
    }


# -- account, API key, access tokens ---------------------------------------------------------------


def test_account_and_access_tokens(m: Meridian) -> None:
    account = unwrap(get_account.sync_detailed(client=m.client))
    assert account.id.startswith("acct_")
    assert account.name == "Ada"

    # The key was traded for an access token, which the client sends instead of the key.
    assert m.auth is not None
    first = m.auth.access_token
    assert first is not None and first.count(".") == 2  # a JWT
    assert m.http.headers.get("Authorization") is None  # set per request, not on the client

    # Shortly before it expires (at most half its lifetime), the next request trades the key again.
    exchanges = m.auth.exchanges
    time.sleep(TOKEN_TTL_SECONDS / 2 + 0.3)
    again = unwrap(get_account.sync_detailed(client=m.client))
    assert again.id == account.id
    assert m.auth.exchanges == exchanges + 1
    assert m.auth.access_token != first


# -- DNS -----------------------------------------------------------------------------------------


def dig(server: Server, name: str, kind: str = "A") -> List[str]:
    out = subprocess.run(
        ["dig", f"@{server.dns_host}", "-p", str(server.dns_port), name, kind, "+short", "+time=2", "+tries=1"],
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    )
    return [line.strip() for line in out.stdout.splitlines() if line.strip()]


def dig_until(server: Server, name: str, kind: str, timeout: float = 10.0) -> List[str]:
    """What dig answers once the change has reached the DNS server (within a second)."""
    deadline = time.monotonic() + timeout
    while True:
        answers = dig(server, name, kind)
        if answers or time.monotonic() > deadline:
            return answers
        time.sleep(0.2)


def test_dns_zone_and_record_answered_by_dig(server: Server, m: Meridian) -> None:
    zone_name = f"tour-{uuid.uuid4().hex[:8]}.example"
    zone = unwrap(create_zone.sync_detailed(client=m.client, body=CreateZone(name=zone_name)))
    assert zone.name == zone_name and zone.id.startswith("zone_")

    record = unwrap(
        create_record.sync_detailed(
            client=m.client,
            zone_id=zone.id,
            body=RecordBody.from_dict({"type": "A", "name": "www", "content": "192.0.2.10", "ttl": 300}),
        )
    )
    assert record.name == f"www.{zone_name}"

    assert dig_until(server, f"www.{zone_name}", "A") == ["192.0.2.10"]

    # Records and zones through the paging iterator: two records a page, `Link: rel="next"`.
    for i in range(4):
        m.call(
            create_record,
            zone_id=zone.id,
            body=RecordBody.from_dict({"type": "TXT", "name": f"t{i}", "content": f"tour {i}"}),
        )
    pages = list(m.pages(list_records, zone_id=zone.id, limit=2))
    assert len(pages) == 3 and pages[0].next is not None and pages[-1].next is None
    names = sorted(r["name"] for r in m.paginate(list_records, zone_id=zone.id, limit=2))
    assert names == sorted([f"www.{zone_name}"] + [f"t{i}.{zone_name}" for i in range(4)])
    zones = list(m.paginate(list_zones, parse=ZoneView.from_dict, limit=1))
    assert [z.name for z in zones] == [zone_name]
    assert dig_until(server, f"t2.{zone_name}", "TXT") == ['"tour 2"']


# -- cadastre: parcels, bbox and CQL2 through the paging iterator ------------------------------------


@pytest.fixture(scope="session")
def parcels(m: Meridian) -> List[Dict[str, Any]]:
    """Seven parcels in Sydney (five freehold) and one inside the EO scene (`EO1`)."""
    created = []
    for i in range(7):
        feature = {
            "type": "Feature",
            "geometry": square(151.2 + i * 0.002, -33.87),
            "properties": {"lot": str(i + 1), "plan": "DP100", "tenure": "freehold" if i < 5 else "leasehold"},
        }
        parcel = m.call(create_parcel, json=feature)
        created.append(parcel.to_dict())
    scene_parcel = {
        "type": "Feature",
        "geometry": square(53.9, 5.3, 0.05),
        "properties": {"lot": "1", "plan": "EO1", "tenure": "freehold"},
    }
    created.append(m.call(create_parcel, json=scene_parcel).to_dict())
    return created


def test_parcels_with_bbox_and_cql2_through_pages(m: Meridian, parcels: List[Dict[str, Any]]) -> None:
    assert all(p["id"].startswith("parcel_") for p in parcels)
    assert parcels[0]["properties"]["area_m2"] > 0

    pages = list(m.pages(list_parcels, bbox="151.1,-33.9,151.3,-33.8", filter_="tenure = 'freehold'", limit=2))
    assert len(pages) == 3
    assert "cursor=" in (pages[0].next.url if pages[0].next else "")
    found = [f for page in pages for f in page.items]
    assert sorted(f["properties"]["lot"] for f in found) == ["1", "2", "3", "4", "5"]
    assert all(f["properties"]["plan"] == "DP100" for f in found)

    # The same query by path, and a CQL2 filter with a spatial function.
    by_path = list(
        m.paginate(
            "/api/v1/cadastre/parcels",
            params={"filter": "plan = 'DP100' AND S_INTERSECTS(geometry, POINT(151.2065 -33.8695))", "limit": 1},
        )
    )
    assert [f["properties"]["lot"] for f in by_path] == ["4"]


# -- DEM: upload, hillshade job, wait with progress, download ------------------------------------------


def test_dem_hillshade_job_with_progress(m: Meridian, repo: Path, tmp_path: Path) -> None:
    dem = repo / "crates/raster/tests/data/swissalti3d-2573-1085.tif"
    with open(dem, "rb") as file:
        job = m.submit_dem(file, [{"type": "hillshade", "multidirectional": True}, {"type": "slope"}])
    assert job["status"] in ("queued", "running", "succeeded")

    seen: List[int] = []
    done = m.wait_for_job(job["id"], on_progress=lambda progress, _job: seen.append(progress))
    assert done["status"] == "succeeded"
    assert seen and seen[-1] == 100 and seen == sorted(seen)

    dem_job = m.get_json(f"/api/v1/dem/jobs/{job['id']}")
    outputs = {o["operation"]: o for o in dem_job["outputs"]}
    hillshade = outputs["hillshade"]
    target = tmp_path / "hillshade.tif"
    result = m.download(hillshade["href"], target)
    assert result.status == 200 and result.bytes_written == hillshade["size"] == target.stat().st_size
    assert target.read_bytes()[:4] in (b"II*\x00", b"MM\x00*")
    assert m.read_range(hillshade["href"], 0, 3) == target.read_bytes()[:4]


# -- earth observation: a STAC scene from four GeoTIFF bands, NDVI with parcel zones ------------------


def test_eo_scene_and_ndvi_with_parcel_zones(m: Meridian, repo: Path, parcels: List[Dict[str, Any]]) -> None:
    collection = m.call(
        create_eo_collection,
        json={
            "id": "cbers4",
            "description": "CBERS-4 MUX",
            "license": "CC-BY-SA-3.0",
            "extent": {"spatial": {"bbox": [[-180, -90, 180, 90]]}, "temporal": {"interval": [[None, None]]}},
        },
    )
    assert collection.to_dict()["id"] == "cbers4"

    data = repo / "crates/eo/tests/data"
    names = {"B5": "blue", "B6": "green", "B7": "red", "B8": "nir"}
    for scene in ("scene1", "scene2"):
        item = {
            "id": scene,
            "datetime": "2017-11-21T06:51:03Z" if scene == "scene1" else "2017-11-22T06:51:03Z",
            "assets": {k: {"eo:bands": [{"name": k, "common_name": v}]} for k, v in names.items()},
        }
        files = {k: data / f"cbers4-mux-057-094-20171121-band{k[1]}.tif" for k in names}
        published = m.add_eo_item("cbers4", item, files)
        assert published["id"] == scene and published["collection"] == "cbers4"
        assert set(published["assets"]) >= set(names)

    # STAC item search through the paging iterator: one item a page, `token` in the next link.
    pages = list(m.pages(search_eo_get, bbox="53,4,55,7", limit=1))
    assert [f["id"] for p in pages for f in p.items] == ["scene2", "scene1"]
    assert pages[0].next is not None and "token=" in pages[0].next.url
    # A POST search's next link is a POST with the body to send.
    posted = list(m.pages(search_eo_post, json={"collections": ["cbers4"], "limit": 1}))
    assert [f["id"] for p in posted for f in p.items] == ["scene2", "scene1"]
    assert posted[0].next is not None and posted[0].next.method == "POST"

    result = m.call(
        compute_eo_index,
        index="ndvi",
        json={"scene": "cbers4/scene1", "zones": {"collection": "parcels", "filter": "plan = 'EO1'"}},
    ).to_dict()
    stats = result["statistics"]
    assert -1.0 <= stats["min"] <= stats["mean"] <= stats["max"] <= 1.0 and stats["count"] > 0
    zones = result["zones"]["features"]
    assert [z["properties"]["plan"] for z in zones] == ["EO1"]
    zone = zones[0]["properties"]
    assert zone["count"] > 0 and stats["min"] <= zone["mean"] <= stats["max"]
    index_tif = result["outputs"][0]
    assert index_tif["href"].endswith("index.tif")
    assert m.read_range(index_tif["href"], 0, 3) in (b"II*\x00", b"MM\x00*")


# -- point clouds: streamed LAS upload, classification, COPC download with Range ---------------------


def chunks(path: Path, size: int = 64 * 1024) -> Iterator[bytes]:
    with open(path, "rb") as file:
        while True:
            chunk = file.read(size)
            if not chunk:
                return
            yield chunk


def test_point_cloud_upload_classify_and_copc(m: Meridian, repo: Path, tmp_path: Path) -> None:
    las = repo / "crates/pointcloud/tests/data/isprs-samp41.las"
    # Streamed from an iterator (sent chunked: its length is not known beforehand).
    uploaded = m.upload_point_cloud(chunks(las), name="survey", content_type="application/vnd.las")
    assert uploaded["id"].startswith("pc_") and uploaded["status"] == "indexing"
    assert uploaded["size"] == las.stat().st_size
    m.wait_for_job(uploaded)
    cloud = m.get_json(f"/api/v1/pointcloud/{uploaded['id']}")
    assert cloud["status"] == "ready" and cloud["points"] > 0

    progress: List[int] = []
    job = m.post_json(f"/api/v1/pointcloud/{uploaded['id']}/classify")
    m.wait_for_job(job, on_progress=lambda p, _j: progress.append(p))
    assert progress[-1] == 100
    classified = m.get_json(f"/api/v1/pointcloud/{uploaded['id']}")
    assert classified["classification"]["status"] == "succeeded"
    assert "2" in classified["classification"]["histogram"]  # ground

    target = tmp_path / "survey.copc.laz"
    whole = m.download_point_cloud(uploaded["id"], target, format="copc")
    data = target.read_bytes()
    assert whole.status == 200 and data[:4] == b"LASF" and whole.bytes_written == len(data)
    # The COPC info VLR follows the LAS 1.4 header (375 bytes): user id "copc".
    assert data[377:381] == b"copc"

    # A range of the same file, and a download continued from where a partial file stops.
    head = tmp_path / "head.bin"
    part = m.download_point_cloud(uploaded["id"], head, format="copc", byte_range=(0, 99))
    assert part.status == 206 and part.content_range == (0, 99, len(data))
    assert head.read_bytes() == data[:100]
    resumed = m.download_point_cloud(uploaded["id"], head, format="copc", resume=True)
    assert resumed.status == 206 and head.read_bytes() == data
    again = m.download_point_cloud(uploaded["id"], head, format="copc", resume=True)
    assert again.bytes_written == 0 and again.size == len(data) and head.read_bytes() == data


# -- digital twin: sensors, readings, the telemetry WebSocket with resume -----------------------------


def next_reading(t: Telemetry, timeout: float = 15.0) -> Dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        message = t.recv(timeout=max(0.1, deadline - time.monotonic()))
        if "type" not in message:
            return message


def test_twin_readings_over_websocket_with_resume(m: Meridian, parcels: List[Dict[str, Any]]) -> None:
    twin = m.post_json(
        "/api/v1/realtime/twins",
        {"name": "Old town", "bbox": [151.19, -33.88, 151.22, -33.86], "height_property": "height"},
    )
    assert twin["id"].startswith("twin_")
    m.wait_for_job(twin)
    assert m.get_json(f"/api/v1/realtime/twins/{twin['id']}")["status"] == "ready"
    base = f"/api/v1/realtime/twin/{twin['id']}"
    m.post_json(f"{base}/sensors", {"id": "pump-3", "name": "Pump 3 flow", "unit": "l/s"})
    m.post_json(f"{base}/sensors", {"id": "door-1", "name": "Door 1 open", "type": "boolean"})

    with m.telemetry(twin["id"], sensors=["pump-3"]) as t:
        hello = t.recv(timeout=15)
        assert hello["type"] == "hello" and hello["twin"] == twin["id"]
        accepted = m.post_json(f"{base}/sensors/pump-3/readings", {"value": 12.5})
        assert accepted["accepted"] == 1
        first = next_reading(t)
        assert first["sensorId"] == "pump-3" and first["value"] == 12.5

        # The connection drops (no close frame); readings arrive meanwhile.
        t.connection.socket.shutdown(socket.SHUT_RDWR)
        m.post_json(f"{base}/sensors/pump-3/readings", {"value": 12.7})
        m.post_json(
            f"{base}/readings",
            {"readings": [{"sensorId": "pump-3", "value": 12.9}, {"sensorId": "door-1", "value": True}]},
        )
        # The helper reconnects with `since` and gets what it missed, once each, in order.
        assert [next_reading(t)["value"], next_reading(t)["value"]] == [12.7, 12.9]
        assert t.reconnects == 1
        m.post_json(f"{base}/sensors/pump-3/readings", {"value": 13.1})
        assert next_reading(t)["value"] == 13.1

    # A new connection asked to resume from before the first reading replays the stored ones.
    since = isoparse(first["ts"]) - timedelta(seconds=1)
    with m.telemetry(twin["id"], since=since) as replay:
        values = [next_reading(replay)["value"] for _ in range(5)]
    assert sorted(values, key=str) == sorted([12.5, 12.7, 12.9, True, 13.1], key=str)
    assert [v for v in values if v is not True] == [12.5, 12.7, 12.9, 13.1]

    # The stored series reads back through the paging iterator (`next` member and Link header).
    readings = list(m.paginate(f"{base}/sensors/pump-3/readings", params={"limit": 2}))
    assert [r["value"] for r in readings] == [12.5, 12.7, 12.9, 13.1]


# -- webhooks: a delivery to a local receiver, verified with the library --------------------------------


class Receiver:
    """A plain-HTTP endpoint on the loopback address that keeps what it is sent."""

    def __init__(self) -> None:
        self.received: "queue.Queue[Tuple[Dict[str, str], bytes]]" = queue.Queue()
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server interface
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                received.put(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hooks"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def next(self, timeout: float = 30.0) -> Tuple[Dict[str, str], bytes]:
        return self.received.get(timeout=timeout)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = Receiver()
    try:
        yield running
    finally:
        running.close()


def test_webhook_delivery_verified(m: Meridian, receiver: Receiver) -> None:
    subscription = m.call(
        create_subscription,
        body=CreateSubscription(url=receiver.url, events=["dns.zone.*"], description="tour"),
    )
    secret = subscription.secret
    assert secret.startswith("whsec_")

    zone_name = f"hooked-{uuid.uuid4().hex[:8]}.example"
    m.call(create_zone, body=CreateZone(name=zone_name))
    headers, body = receiver.next()
    event = verify_webhook(secret, headers, body)
    assert event["event"] == "dns.zone.created" and event["zone"] == zone_name
    assert event["id"] == headers["webhook-id"] == headers["x-service-event-id"]

    # Each header format verifies on its own.
    standard = {k: v for k, v in headers.items() if k.startswith("webhook-")}
    service = {k.upper(): v for k, v in headers.items() if k.startswith("x-service-")}  # any letter case
    assert verify_webhook(secret, standard, body) == event
    assert verify_webhook(secret, service, body) == event

    # A tampered body, another secret, an old or a future timestamp are refused.
    tampered = body.replace(zone_name.encode(), b"evil.example")
    for given in (headers, standard, service):
        with pytest.raises(WebhookVerificationError):
            verify_webhook(secret, given, tampered)
    other_secret = "whsec_" + base64.b64encode(b"\x01" * 32).decode()
    with pytest.raises(WebhookVerificationError):
        verify_webhook(other_secret, headers, body)
    sent_at = int(headers["webhook-timestamp"])
    assert verify_webhook(secret, standard, body, tolerance=300, now=sent_at + 299) == event
    with pytest.raises(WebhookVerificationError, match="older"):
        verify_webhook(secret, standard, body, tolerance=300, now=sent_at + 301)
    with pytest.raises(WebhookVerificationError, match="future"):
        verify_webhook(secret, standard, body, tolerance=300, now=sent_at - 301)
    service_at = isoparse(headers["x-service-timestamp"]).timestamp()
    with pytest.raises(WebhookVerificationError, match="older"):
        verify_webhook(secret, service, body, now=service_at + 301)
    assert not is_valid_webhook(secret, headers, tampered)

    # The test event, and the deliveries through the paging iterator.
    m.call(test_subscription, subscription_id=subscription.id)
    test_headers, test_body = receiver.next()
    assert verify_webhook(secret, test_headers, test_body)["event"] == "webhook.test"
    deadline = time.monotonic() + 20
    while True:
        deliveries = list(m.paginate(list_deliveries, subscription_id=subscription.id, limit=1))
        if all(d["status"] == "succeeded" for d in deliveries) and len(deliveries) == 2:
            break
        assert time.monotonic() < deadline, deliveries
        time.sleep(0.2)
    assert sorted(d["event_type"] for d in deliveries) == ["dns.zone.created", "webhook.test"]


# -- problems: a 422 with field pointers ------------------------------------------------------------


def test_validation_error_is_a_typed_problem(server: Server, m: Meridian) -> None:
    with pytest.raises(MeridianProblem) as caught:
        m.call(create_api_key, body=CreateApiKey.from_dict({"name": "ci", "scopes": ["jobs:read", "dns:admin"]}))
    problem = caught.value
    assert problem.status == 422 and problem.code == "validation_failed"
    assert problem.pointers == ["/scopes/1"]
    assert problem.errors[0].code == "invalid_scope"
    assert problem.request_id and problem.request_id.startswith("req_")
    assert problem.title == "Validation failed"

    # Unknown fields are refused too, each with its pointer.
    with pytest.raises(MeridianProblem) as unknown:
        m.call(create_api_key, body=CreateApiKey.from_dict({"name": "ci", "extra": 1}))
    assert unknown.value.status == 422 and unknown.value.pointers == ["/extra"]
    assert unknown.value.errors[0].code == "unknown_field"

    # With raise_errors=False, generated operations return the Problem model instead.
    assert m.auth is not None and m.auth.api_key is not None
    with Meridian(server.url, api_key=m.auth.api_key, raise_errors=False) as lenient:
        answer = create_api_key.sync_detailed(
            client=lenient.client, body=CreateApiKey.from_dict({"name": "ci", "scopes": ["dns:admin"]})
        )
        assert answer.status_code == 422 and isinstance(answer.parsed, Problem)
        assert [e.pointer for e in answer.parsed.errors] == ["/scopes/0"]
        # ... and the helpers still raise.
        with pytest.raises(MeridianProblem) as helper:
            lenient.get_json("/api/v1/jobs/job_doesnotexist")
        assert helper.value.status == 404 and helper.value.code == "not_found"

    # A wrong key is a 401 problem from the token exchange itself.
    with Meridian(server.url, api_key="mrd_" + "x" * 40) as stranger:
        with pytest.raises(MeridianProblem) as denied:
            stranger.get_json("/api/v1/account")
    assert denied.value.status == 401 and denied.value.code == "unauthenticated"


# -- rate limits: 429 with Retry-After, retried or raised -----------------------------------------------


@pytest.fixture(scope="module")
def limited() -> Iterator[Tuple[Server, str]]:
    """A server whose DNS area allows a burst of 2 requests, then one a second."""
    running = Server(env={"MERIDIAN_RATE_LIMITS__DNS__PER_MINUTE": "60", "MERIDIAN_RATE_LIMITS__DNS__BURST": "2"})
    try:
        _, created = Meridian.sign_up(running.url, name="Bob", email="bob@example.com")
        yield running, created.api_key
    finally:
        running.stop()


def test_rate_limit_retries_after_retry_after(limited: Tuple[Server, str]) -> None:
    server, key = limited
    events: List[RetryEvent] = []
    policy = RetryPolicy(max_retries=3, on_retry=events.append)
    with Meridian(server.url, api_key=key, retry=policy) as client:
        timings = []
        for _ in range(4):
            started = time.monotonic()
            zones = list(client.paginate(list_zones))
            timings.append(time.monotonic() - started)
            assert zones == []
    assert events, "the burst of 2 was used up: a 429 must have been retried"
    for event in events:
        assert event.status == 429 and event.retry_after is not None
        assert event.delay == float(event.retry_after) >= 1
    # The requests that were retried waited what the server asked for.
    waited = sorted(timings)[-len(events) :]
    assert all(t >= 1.0 for t in waited)

    with Meridian(server.url, api_key=key, retry=False) as impatient:
        with pytest.raises(MeridianProblem) as refused:
            for _ in range(5):
                impatient.get_json("/v1/dns/zones")
    problem = refused.value
    assert problem.status == 429 and problem.code == "rate_limited"
    assert problem.retry_after is not None and problem.retry_after >= 1


# -- the asyncio client --------------------------------------------------------------------------------


def test_async_client(server: Server, m: Meridian, repo: Path, parcels: List[Dict[str, Any]], tmp_path: Path) -> None:
    assert m.auth is not None and m.auth.api_key is not None
    key = m.auth.api_key

    async def file_chunks(path: Path) -> AsyncIterator[bytes]:
        for chunk in chunks(path, 32 * 1024):
            await asyncio.sleep(0)
            yield chunk

    async def tour() -> None:
        async with AsyncMeridian(server.url, api_key=key) as am:
            account = unwrap(await get_account.asyncio_detailed(client=am.client))
            assert account.name == "Ada"
            lots = [
                f["properties"]["lot"]
                async for f in am.paginate(list_parcels, filter_="plan = 'DP100' AND tenure = 'leasehold'", limit=1)
            ]
            assert sorted(lots) == ["6", "7"]

            las = repo / "crates/pointcloud/tests/data/isprs-samp41.las"
            uploaded = await am.upload_point_cloud(file_chunks(las), name="async", content_type="application/vnd.las")
            progress: List[int] = []
            done = await am.wait_for_job(uploaded, on_progress=lambda p, _j: progress.append(p))
            assert done["status"] == "succeeded" and progress[-1] == 100
            head = await am.read_range(f"/api/v1/pointcloud/{uploaded['id']}/download", 0, 3, params={"format": "las"})
            assert head == b"LASF"
            target = tmp_path / "async.las"
            result = await am.download_point_cloud(uploaded["id"], target, format="las")
            assert result.status == 200 and target.read_bytes()[:4] == b"LASF"

            with pytest.raises(MeridianProblem) as missing:
                await am.wait_for_job("job_doesnotexist")
            assert missing.value.status == 404

            twin = await am.post_json(
                "/api/v1/realtime/twins", {"name": "Async", "bbox": [151.19, -33.88, 151.22, -33.86]}
            )
            base = f"/api/v1/realtime/twin/{twin['id']}"
            await am.post_json(f"{base}/sensors", {"id": "level", "unit": "m"})
            async with am.telemetry(twin["id"]) as t:
                hello = await t.recv(timeout=15)
                assert hello["type"] == "hello"
                await am.post_json(f"{base}/sensors/level/readings", {"value": 2.5})
                while True:
                    message = await t.recv(timeout=15)
                    if "type" not in message:
                        break
                assert message["sensorId"] == "level" and message["value"] == 2.5

    asyncio.run(tour())
