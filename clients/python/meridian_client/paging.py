"""Pages of Meridian lists and where the next one is.

Every paged list says where its next page is, in one of three ways, and the iterators follow
whichever the answer gives:

- a `links` member with `rel: "next"` (OGC API Features and cadastre parcels with a `cursor`,
  STAC searches with a `token`; a STAC `POST` search's link has `method: "POST"` and a `body`);
- a `Link: <...>; rel="next"` header (DNS zones and records, jobs, webhook subscriptions and
  deliveries, API keys, DEM jobs and datasets, point clouds, twins, sensor readings);
- a `next` member holding the URL (sensor readings).

The items are the `features` of a (Geo)JSON FeatureCollection, or else the one array member of
the page (`zones`, `records`, `jobs`, `deliveries`, `readings`, ...); `item_key` names it when
a page has several.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, Generic, List, Mapping, Optional, TypeVar

from .errors import MeridianError

T = TypeVar("T")

_LINK = re.compile(r"<([^>]*)>\s*((?:;\s*[^;,]+)*)")
_PARAM = re.compile(r';\s*([A-Za-z0-9_*-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;,\s]+)')


@dataclass(frozen=True)
class NextPage:
    """How to ask for the next page."""

    url: str
    method: str = "GET"
    body: Optional[Any] = None  # JSON body of a POST search


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list: its items, the whole document, and the link to the next page."""

    items: List[T]
    document: Any
    next: Optional[NextPage]
    status: int
    headers: Mapping[str, str]


def parse_link_header(value: str) -> List[Dict[str, str]]:
    """RFC 8288 `Link` header values: `[{"href": ..., "rel": ..., ...}]`."""
    links: List[Dict[str, str]] = []
    for match in _LINK.finditer(value):
        entry = {"href": match.group(1).strip()}
        for name, raw in _PARAM.findall(match.group(2) or ""):
            entry[name.lower()] = raw[1:-1] if raw.startswith('"') else raw
        links.append(entry)
    return links


def next_page(document: Any, headers: Mapping[str, str]) -> Optional[NextPage]:
    """The next page a list answer points to, or None on the last page."""
    if isinstance(document, dict):
        links = document.get("links")
        if isinstance(links, list):
            for link in links:
                if isinstance(link, dict) and link.get("rel") == "next" and isinstance(link.get("href"), str):
                    method = str(link.get("method") or "GET").upper()
                    return NextPage(url=link["href"], method=method, body=link.get("body"))
    for name, value in headers.items():
        if name.lower() == "link":
            for link in parse_link_header(value):
                if "next" in link.get("rel", "").split():
                    return NextPage(url=link["href"])
    if isinstance(document, dict) and isinstance(document.get("next"), str) and document["next"]:
        return NextPage(url=document["next"])
    return None


def page_items(document: Any, item_key: Optional[str] = None) -> List[Any]:
    """The items of a page (see the module's description)."""
    if item_key is not None:
        if not isinstance(document, dict) or not isinstance(document.get(item_key), list):
            raise MeridianError(f"the page has no array member {item_key!r}")
        return list(document[item_key])
    if isinstance(document, list):
        return list(document)
    if not isinstance(document, dict):
        raise MeridianError("a page is a JSON object or array")
    if isinstance(document.get("features"), list):
        return list(document["features"])
    arrays = [k for k, v in document.items() if isinstance(v, list) and k not in ("links", "conformsTo")]
    if len(arrays) == 1:
        return list(document[arrays[0]])
    raise MeridianError(
        "cannot tell which member of the page holds the items"
        + (f" (one of {', '.join(sorted(arrays))})" if arrays else "")
        + ": pass item_key="
    )
