from __future__ import annotations
from enum import Enum

class PendingStatus(str, Enum):
    BUILDING = "building"
    CONVERTING = "converting"

    def __str__(self) -> str:
        return str(self.value)
