from __future__ import annotations
from enum import Enum

class MultiPolygonType(str, Enum):
    MULTIPOLYGON = "MultiPolygon"

    def __str__(self) -> str:
        return str(self.value)
