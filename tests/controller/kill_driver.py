"""Run ``dicetable run`` and kill -9 it at a chosen point of its event log's writes (a fault test's helper).

    python tests/controller/kill_driver.py commit N  -- run ARGS...   killed just before its Nth COMMIT
    python tests/controller/kill_driver.py secret N  -- run ARGS...   killed just after its Nth secret
                                                                      input row is written (inside the
                                                                      transaction, before it commits)

Counts start at each process start.  Nothing here changes what the table does: the connection is
only watched, and the process dies by SIGKILL as a power cut or the OOM killer would end it.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from controller import eventlog

WHAT, AT = sys.argv[1], int(sys.argv[2])
seen = 0


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


class Watched:
    def __init__(self, db: Any) -> None:
        self._db = db

    def execute(self, sql: str, args: Any = ()) -> Any:
        global seen
        if WHAT == "commit" and sql == "COMMIT":
            seen += 1
            if seen == AT:
                die()
        cur = self._db.execute(sql, args)
        if (
            WHAT == "secret"
            and sql.startswith("INSERT")
            and args[3] == "input"
            and '"type": "secret"' in args[5]
        ):
            seen += 1
            if seen == AT:
                die()
        return cur

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


_init = eventlog.EventLog.__init__


def _watched_init(self: eventlog.EventLog, *args: Any, **kw: Any) -> None:
    _init(self, *args, **kw)
    self._db = Watched(self._db)  # type: ignore[assignment]


eventlog.EventLog.__init__ = _watched_init  # type: ignore[method-assign]

if __name__ == "__main__":
    from controller.cli import main

    sys.argv = ["dicetable", *sys.argv[sys.argv.index("--") + 1 :]]
    main()
