"""Serves the JSON Schemas in this folder to STAC tools that would fetch them from the web.

Importing this module patches the three HTTP stacks the STAC tools use: `requests` and
`urllib3` (both end in `urllib3.connectionpool.HTTPConnectionPool.urlopen`) and
`urllib.request` (its HTTP and HTTPS handlers). A GET of a URL listed in `urls.json` is
answered with the local file; any other URL on a schema host (`SCHEMA_HOSTS`) fails at once,
naming the URL, instead of waiting on a network that is not there; every other request goes
through untouched (the server under test, asset links).

With `OFFLINE_STAC_LOG=<file>` every URL requested on a schema host is appended to that file,
served or not: that is how the list in `urls.json` was found.

Usage: put this folder on `sys.path` (or `PYTHONPATH`) and `import offline` before the tools run,
e.g. `python3 -c "import offline; from stac_api_validator.__main__ import main; main()" --root-url ...`.
"""

import email.message
import io
import json
import os
import urllib.request
import urllib.response

import urllib3
import urllib3.connectionpool
import urllib3.exceptions

HERE = os.path.dirname(os.path.abspath(__file__))

def _search_path():
    """Where the files named in `urls.json` are looked for, in order: this folder, the folders
    in `MERIDIAN_STAC_SCHEMAS` (separated by `os.pathsep`), and `stac-schemas/` in the `shared/`
    folder beside the repository (where CI has it)."""
    dirs = [HERE]
    dirs += [d for d in os.environ.get("MERIDIAN_STAC_SCHEMAS", "").split(os.pathsep) if d]
    repo = os.path.normpath(os.path.join(HERE, *[os.pardir] * 5))
    dirs.append(os.path.join(os.path.dirname(repo), "shared", "stac-schemas"))
    return dirs


def _locate(path):
    for d in _search_path():
        candidate = os.path.join(d, path)
        if os.path.isfile(candidate):
            return candidate
    return None


with open(os.path.join(HERE, "urls.json"), encoding="utf-8") as f:
    #: URL -> file (None when the file named for it is in none of the folders searched).
    URLS = {url: _locate(path) for url, path in json.load(f).items()}

#: URLs listed in `urls.json` whose file was found nowhere.
MISSING = sorted(url for url, path in URLS.items() if path is None)

SCHEMA_HOSTS = (
    "schemas.stacspec.org",
    "stac-extensions.github.io",
    "geojson.org",
    "api.stacspec.org",
    "json-schema.org",
    "cdn.staclint.com",
    "proj.org",
)

_LOG = os.environ.get("OFFLINE_STAC_LOG")

#: URLs served from this folder so far (for tests that assert the schemas were really used).
served = []


class OfflineSchemaError(urllib3.exceptions.HTTPError):
    """A schema URL with no local copy."""


def _host(url):
    rest = url.split("://", 1)[-1]
    return rest.split("/", 1)[0].split(":", 1)[0].lower()


def _lookup(url):
    """The local file for `url`, None when the URL is not a schema host's; raises for a
    schema URL with no local copy."""
    url = url.split("#", 1)[0]
    host = _host(url)
    if host not in SCHEMA_HOSTS:
        return None
    if _LOG:
        with open(_LOG, "a", encoding="utf-8") as log:
            log.write(url + "\n")
    # Schemas are published over both schemes; the map keeps one.
    for candidate in (url, url.replace("http://", "https://", 1)):
        if URLS.get(candidate):
            served.append(candidate)
            with open(URLS[candidate], "rb") as f:
                return f.read()
    where = "listed in urls.json but its file is in none of " + ", ".join(_search_path()) if url in URLS else f"not in {HERE}/urls.json"
    raise OfflineSchemaError(f"no local copy of {url}: {where} (there is no internet here)")


_pool_urlopen = urllib3.connectionpool.HTTPConnectionPool.urlopen


def _pool_urlopen_offline(self, method, url, *args, **kwargs):
    if url.startswith(("http://", "https://")):
        full = url
    else:
        default = 443 if self.scheme == "https" else 80
        port = "" if self.port in (None, default) else f":{self.port}"
        full = f"{self.scheme}://{self.host}{port}{url}"
    data = _lookup(full)
    if data is None:
        return _pool_urlopen(self, method, url, *args, **kwargs)
    return urllib3.HTTPResponse(
        body=io.BytesIO(data),
        headers={"Content-Type": "application/json", "Content-Length": str(len(data))},
        status=200,
        reason="OK",
        preload_content=kwargs.get("preload_content", True),
        decode_content=kwargs.get("decode_content", True),
        request_method=method,
        request_url=full,
    )


urllib3.connectionpool.HTTPConnectionPool.urlopen = _pool_urlopen_offline


def _wrap_handler(cls, name):
    original = getattr(cls, name)

    def open_offline(self, req):
        data = _lookup(req.full_url)
        if data is None:
            return original(self, req)
        headers = email.message.Message()
        headers["Content-Type"] = "application/json"
        headers["Content-Length"] = str(len(data))
        return urllib.response.addinfourl(io.BytesIO(data), headers, req.full_url, 200)

    setattr(cls, name, open_offline)


_wrap_handler(urllib.request.HTTPHandler, "http_open")
_wrap_handler(urllib.request.HTTPSHandler, "https_open")
