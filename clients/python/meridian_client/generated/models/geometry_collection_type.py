from __future__ import annotations
from enum import Enum

class GeometryCollectionType(str, Enum):
    GEOMETRYCOLLECTION = "GeometryCollection"

    def __str__(self) -> str:
        return str(self.value)
