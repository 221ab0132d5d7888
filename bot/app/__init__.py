"""The GitHub App: signed webhooks in, a durable job queue, workers that run the gate, trust.

How the parts fit (one concern per module):

    signature   X-Hub-Signature-256, constant-time (pure)
    intake      (event, payload) -> a Job, or why the delivery is ignored (pure)
    jobs        the Job value and its JSON form; which queue a run goes to (pure)
    trust       who may run PR code: /ok-to-test bound to a head SHA (pure)
    combine     reports across runs: their JSON between processes, merging a partial run (pure)
    settings    the App's settings from the environment and the command line
    logs        structured (JSON) log lines that carry the delivery id
    state       what must outlive a process: delivery ids seen, the job ledger with leases,
                each PR's newest head, /ok-to-test approvals, per-PR publish locks
    queue       huey (SQLite on one machine, Redis across machines): the `cpu` and `gpu` queues
    server      the ASGI app: verify, record, enqueue, answer; nothing else
    forge       what a worker needs from GitHub (a port per repository, a fetch token)
    github      that, for the App: installation tokens scoped to the job's repository
    decide      what a job runs: a push and its author's access, a comment's command, a GPU half
    heartbeat   the leases a running job holds, renewed; its cancellation by a newer push
    work        one job in a worker: claim, decide, fetch, run without credentials, publish
    marks       what a job marked in progress on its head, concluded as superseded after a push
    runner      the credential-free process that runs the pipeline on a worktree, and spawning it
    reaper      jobs whose worker died enqueued again; old delivery ids and worktrees removed

The server never imports the pipeline or any check (an import contract says so): it answers
in milliseconds and holds no token. Workers hold the App's credentials only to fetch and to
publish; the pipeline runs in `runner`, started with an environment stripped of them, and PR
code runs one level further down, in the sandbox.
"""
