"""The seam between the table controller and the display: ``TableBackend``.

``controller.table.Table`` implements it over its event log, camera and
engine; the display only reads snapshots, events, readings and the latest
frame, and sends corrections.  The display's tests run a real ``Table`` too
(tests/display/table_rig.py), so there is one table, not a second copy here.

What a snapshot may hold is public: a secret selection in progress shows *who*
has confirmed, never *what*.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

Snapshot = dict[str, Any]


class AlreadyAnswered(ValueError):
    """An answer to a reading someone answered meanwhile (it named an older version of the reading,
    or none once the reading was answered): refused, nothing changed; ``who`` answered it.  The
    display's answer is 409."""

    def __init__(self, message: str, who: str) -> None:
        super().__init__(message)
        self.who = who


@runtime_checkable
class TableBackend(Protocol):
    """What the display reads from (and sends corrections to) one table."""

    table_id: str

    def snapshot(self) -> Snapshot: ...

    def events(self, offset: int, limit: int) -> list[dict[str, Any]]: ...

    def readings(self) -> dict[str, Any]: ...

    def frame_jpeg(self) -> bytes | None: ...

    def correct(self, command: dict[str, Any], who: str) -> dict[str, Any]: ...
