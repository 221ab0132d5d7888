"""`gradgate worker`: consume the `cpu` (default) or `gpu` queue with a huey consumer.

Thin: settings, the App's GitHub (its id and private key -> installation tokens), the job
handler from bot.app.work, a reaper thread that re-enqueues jobs whose worker died, and huey's
consumer loop.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from gradgate.bot.app import logs
from gradgate.bot.app.github import app_forge
from gradgate.bot.app.jobs import Queue
from gradgate.bot.app.queue import Queues
from gradgate.bot.app.reaper import reaper
from gradgate.bot.app.settings import from_env
from gradgate.bot.app.trust import Gpu
from gradgate.bot.app.work import Worker
from gradgate.bot.doors.action.settings import retry_policy


def work(*, queue: Queue, threads: int, data_dir: Path | None, gpu_workers: bool) -> int:
    settings = from_env(data_dir=data_dir)
    logs.setup()
    # The same GRADGATE_GITHUB_* knobs as the Action's (retries, backoff, pause between writes).
    forge = app_forge(settings, retry=retry_policy(os.environ))
    box: list[Worker] = []
    queues = Queues(settings, handler=lambda job_id: box[0](job_id))
    # A CPU worker defers GPU checks only when GPU workers exist to take them.
    gpu = Gpu.DEFER if queue is Queue.CPU and gpu_workers else Gpu.RUN
    worker = Worker(queues, forge, gpu=gpu, auto_to_gpu=gpu_workers)
    box.append(worker)
    reap = reaper(queues, worker.mirrors, worker.judging)
    reap()  # at start: pick up what a killed worker left

    def loop() -> None:
        while not stop.wait(settings.lease_s / 2):
            try:
                reap()
            except Exception as exc:  # the store may be down for a moment; try again later
                logs.get().warning("reaper pass failed: %s", exc)

    stop = threading.Event()
    threading.Thread(target=loop, daemon=True).start()
    try:
        queues.consumer(queue, workers=threads).run()
    finally:
        stop.set()
    return 0
