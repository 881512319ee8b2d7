from __future__ import annotations
from enum import Enum

class LineStringType(str, Enum):
    LINESTRING = "LineString"

    def __str__(self) -> str:
        return str(self.value)
