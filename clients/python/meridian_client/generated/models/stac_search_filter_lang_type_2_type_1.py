from __future__ import annotations
from enum import Enum

class StacSearchFilterLangType2Type1(str, Enum):
    CQL2_JSON = "cql2-json"
    CQL2_TEXT = "cql2-text"

    def __str__(self) -> str:
        return str(self.value)
