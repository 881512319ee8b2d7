from __future__ import annotations
from enum import Enum

class ParcelVersionChange(str, Enum):
    REGISTERED = "registered"
    RETIRED = "retired"
    UPDATED = "updated"

    def __str__(self) -> str:
        return str(self.value)
