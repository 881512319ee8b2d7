from __future__ import annotations
from enum import Enum

class MultiLineStringType(str, Enum):
    MULTILINESTRING = "MultiLineString"

    def __str__(self) -> str:
        return str(self.value)
