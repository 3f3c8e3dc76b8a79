"""Live progress lines for long stages: `[unit] stage  elapsed  steps  cost`."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Prints one line per stage change and at most one line per `every` seconds in between."""

    def __init__(self, unit: str, stream: TextIO | None = None, every: float = 15.0) -> None:
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.every = every
        self.started = time.monotonic()
        self.stage = ""
        self._last = 0.0
        self._last_key: tuple[str, int] = ("", -1)

    def line(self, stage: str, steps: int = 0, cost_usd: float = 0.0) -> str:
        elapsed = int(time.monotonic() - self.started)
        return (
            f"[{self.unit}] {stage:<12} {elapsed // 60:02d}:{elapsed % 60:02d}  "
            f"steps {steps:>2}  ${cost_usd:.4f}"
        )

    def update(
        self, stage: str, steps: int = 0, cost_usd: float = 0.0, force: bool = False
    ) -> None:
        now = time.monotonic()
        key = (stage, steps)
        if force or key != self._last_key or now - self._last >= self.every:
            self._last, self._last_key, self.stage = now, key, stage
            print(self.line(stage, steps, cost_usd), file=self.stream, flush=True)
