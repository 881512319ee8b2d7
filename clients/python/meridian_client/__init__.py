"""Meridian's Python client: the operations generated from the OpenAPI document
(`meridian_client.generated`) and what a program needs around them.

```python
from meridian_client import Meridian, unwrap
from meridian_client.generated.api.dns import create_zone, list_zones
from meridian_client.generated.models import CreateZone

m = Meridian("http://127.0.0.1:8080", api_key="mrd_...")
zone = unwrap(create_zone.sync_detailed(client=m.client, body=CreateZone(name="example.com")))
for z in m.paginate(list_zones, limit=100):
    print(z["name"])
```
"""

from ._version import __version__
from .auth import MeridianAuth
from .client import AsyncMeridian, DownloadResult, Meridian, json_body, unwrap
from .errors import (
    FieldError,
    JobFailed,
    JobTimeout,
    MeridianError,
    MeridianProblem,
    TelemetryClosed,
    WebhookVerificationError,
)
from .paging import NextPage, Page
from .retry import RetryEvent, RetryPolicy
from .streams import Part
from .telemetry import AsyncTelemetry, Telemetry
from .webhooks import is_valid_webhook, verify_webhook

__all__ = [
    "AsyncMeridian",
    "AsyncTelemetry",
    "DownloadResult",
    "FieldError",
    "JobFailed",
    "JobTimeout",
    "Meridian",
    "MeridianAuth",
    "MeridianError",
    "MeridianProblem",
    "NextPage",
    "Page",
    "Part",
    "RetryEvent",
    "RetryPolicy",
    "Telemetry",
    "TelemetryClosed",
    "WebhookVerificationError",
    "__version__",
    "is_valid_webhook",
    "json_body",
    "unwrap",
    "verify_webhook",
]
