from __future__ import annotations
from enum import Enum

class StacCatalogType(str, Enum):
    CATALOG = "Catalog"

    def __str__(self) -> str:
        return str(self.value)
