"""`gradgate serve`: the App's webhook server under uvicorn, and optionally its workers.

Thin: settings in, the ASGI app from bot.app.server, uvicorn out. ``--workers N`` starts N
`gradgate worker` processes beside it (one machine, the SQLite queue); they stop with it.
The server itself holds no App credentials and never runs a check.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gradgate.bot.app import logs
from gradgate.bot.app.queue import Queues
from gradgate.bot.app.server import create_app
from gradgate.bot.app.settings import from_env, require_secret


def serve(*, host: str, port: int, workers: int, data_dir: Path | None) -> int:
    import uvicorn

    settings = from_env(data_dir=data_dir)
    require_secret(settings)
    logs.setup()
    app = create_app(Queues(settings, serving=True))
    command = [sys.executable, "-m", "gradgate.bot", "worker"]
    if data_dir is not None:
        command += ["--data-dir", str(data_dir)]
    children = [subprocess.Popen(command) for _ in range(workers)]
    try:
        uvicorn.run(app, host=host, port=port, log_config=None, access_log=False)
    finally:
        for child in children:
            child.terminate()
        for child in children:
            child.wait()
    return 0
