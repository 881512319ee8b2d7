from __future__ import annotations
from enum import Enum

class ClockMode(str, Enum):
    LIVE = "live"
    SIMULATED = "simulated"

    def __str__(self) -> str:
        return str(self.value)
