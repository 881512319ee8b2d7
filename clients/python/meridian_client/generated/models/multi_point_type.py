from __future__ import annotations
from enum import Enum

class MultiPointType(str, Enum):
    MULTIPOINT = "MultiPoint"

    def __str__(self) -> str:
        return str(self.value)
