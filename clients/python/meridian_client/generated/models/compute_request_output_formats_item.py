from __future__ import annotations
from enum import Enum

class ComputeRequestOutputFormatsItem(str, Enum):
    COG = "cog"
    PNG = "png"

    def __str__(self) -> str:
        return str(self.value)
