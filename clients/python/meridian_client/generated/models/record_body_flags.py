from __future__ import annotations
from enum import IntEnum

class RecordBodyFlags(IntEnum):
    VALUE_0 = 0
    VALUE_128 = 128

    def __str__(self) -> str:
        return str(self.value)
