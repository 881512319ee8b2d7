"""Verifying webhook deliveries.

Meridian signs every delivery twice (docs/webhooks.md):

- `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the raw body keyed with the whole secret
  text (`whsec_...`), with `X-Service-Timestamp` (RFC 3339) saying when the attempt was made;
- Standard Webhooks: `webhook-signature: v1,<base64>`, the HMAC-SHA256 of
  `{webhook-id}.{webhook-timestamp}.{body}` keyed with the bytes the base64 after `whsec_`
  decodes to, `webhook-timestamp` in seconds since 1970.

During a secret rotation a header holds two signatures (comma- or space-separated): one matching
is enough. Every signature format present must verify, at least one must be present, and its
timestamp must lie within `tolerance` seconds of now (replays are refused). Comparisons are made
in constant time (`hmac.compare_digest`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import Any, List, Mapping, Optional, Sequence, Union

from dateutil.parser import isoparse

from .errors import WebhookVerificationError

SECRET_PREFIX = "whsec_"


def _header(headers: Mapping[str, str], name: str) -> Optional[str]:
    wanted = name.lower()
    for key, value in headers.items():
        if key.lower() == wanted:
            return value
    return None


def _standard_key(secret: str) -> bytes:
    encoded = secret[len(SECRET_PREFIX) :] if secret.startswith(SECRET_PREFIX) else secret
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as error:
        raise WebhookVerificationError("the secret is not whsec_ followed by base64") from error


def _check_time(when: float, now: float, tolerance: float, header: str) -> None:
    if when < now - tolerance:
        raise WebhookVerificationError(f"{header} is older than {tolerance:g} s: a replay is refused")
    if when > now + tolerance:
        raise WebhookVerificationError(f"{header} is more than {tolerance:g} s in the future")


def _verify_standard(
    secrets: Sequence[str], headers: Mapping[str, str], body: bytes, now: float, tolerance: float
) -> None:
    message_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signature = _header(headers, "webhook-signature") or ""
    if not message_id or not timestamp:
        raise WebhookVerificationError("webhook-signature comes without webhook-id and webhook-timestamp")
    try:
        when = int(timestamp.strip())
    except ValueError as error:
        raise WebhookVerificationError("webhook-timestamp is not a number of seconds") from error
    _check_time(float(when), now, tolerance, "webhook-timestamp")
    signed = f"{message_id}.{when}.".encode("utf-8") + body
    given: List[bytes] = []
    for entry in signature.split():
        version, _, encoded = entry.partition(",")
        if version != "v1" or not encoded:
            continue  # another scheme (v1a: asymmetric) or noise
        try:
            given.append(base64.b64decode(encoded, validate=True))
        except (binascii.Error, ValueError):
            continue
    matched = False
    for secret in secrets:
        expected = hmac.new(_standard_key(secret), signed, hashlib.sha256).digest()
        for candidate in given:
            # evaluate every comparison: the time taken does not depend on which one matched
            matched = hmac.compare_digest(expected, candidate) or matched
    if not matched:
        raise WebhookVerificationError("no webhook-signature matches the body")


def _verify_service(
    secrets: Sequence[str], headers: Mapping[str, str], body: bytes, now: float, tolerance: float
) -> None:
    signature = _header(headers, "x-service-signature") or ""
    timestamp = _header(headers, "x-service-timestamp")
    if timestamp is not None:
        try:
            when = isoparse(timestamp.strip()).timestamp()
        except (ValueError, OverflowError) as error:
            raise WebhookVerificationError("X-Service-Timestamp is not an RFC 3339 instant") from error
        _check_time(when, now, tolerance, "X-Service-Timestamp")
    given = [s.strip().encode("utf-8") for s in signature.split(",") if s.strip()]
    matched = False
    for secret in secrets:
        expected = ("sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()).encode("ascii")
        for candidate in given:
            matched = hmac.compare_digest(expected, candidate) or matched
    if not matched:
        raise WebhookVerificationError("no X-Service-Signature matches the body")


def verify_webhook(
    secret: Union[str, Sequence[str]],
    headers: Mapping[str, str],
    body: Union[bytes, str],
    tolerance: float = 300,
    *,
    now: Optional[float] = None,
) -> Any:
    """Checks a delivery and returns its event (the parsed JSON body).

    `secret`: the subscription's `whsec_...` secret, or several (the new and the previous one
    while you deploy a rotation). `headers`: the request's headers (any letter case). `body`:
    the raw body exactly as received, before any JSON parsing. `tolerance`: seconds a
    delivery's timestamp may differ from `now` (default: the clock). Raises
    `WebhookVerificationError` when a signature or a timestamp does not check out.
    """
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets or not all(isinstance(s, str) and s for s in secrets):
        raise WebhookVerificationError("no secret to verify with")
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    current = time.time() if now is None else now
    checked = False
    if _header(headers, "webhook-signature") is not None:
        _verify_standard(secrets, headers, raw, current, tolerance)
        checked = True
    if _header(headers, "x-service-signature") is not None:
        _verify_service(secrets, headers, raw, current, tolerance)
        checked = True
    if not checked:
        raise WebhookVerificationError("the request carries neither webhook-signature nor X-Service-Signature")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise WebhookVerificationError("the signed body is not JSON") from error


def is_valid_webhook(
    secret: Union[str, Sequence[str]],
    headers: Mapping[str, str],
    body: Union[bytes, str],
    tolerance: float = 300,
    *,
    now: Optional[float] = None,
) -> bool:
    """`verify_webhook` as a yes or no."""
    try:
        verify_webhook(secret, headers, body, tolerance, now=now)
    except WebhookVerificationError:
        return False
    return True
