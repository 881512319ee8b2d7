from __future__ import annotations
from enum import Enum

class StacCollectionType(str, Enum):
    COLLECTION = "Collection"

    def __str__(self) -> str:
        return str(self.value)
