from __future__ import annotations
from enum import Enum

class StacItemType(str, Enum):
    FEATURE = "Feature"

    def __str__(self) -> str:
        return str(self.value)
