from __future__ import annotations
from enum import Enum

class ClassifyStep(str, Enum):
    CLASSES = "classes"
    GROUND = "ground"
    HAG = "hag"
    NOISE = "noise"

    def __str__(self) -> str:
        return str(self.value)
