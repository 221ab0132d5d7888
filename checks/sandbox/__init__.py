"""Run user code in a sandboxed child, under the user's interpreter, and get one JSON value back.

``for_check.run_user_code`` is the one call model checks make; it reaches ``run.run_in_sandbox``,
which puts these parts together:

    probe      is bubblewrap usable here; where the user's interpreter lives (once per process)
    rundir     the run's folder: HOME, /tmp, a copy of the tree without .git; the child's code
    view       what the child sees of it and of the machine; the bubblewrap command (``bwrap``,
               pure)
    env        the child's environment (an allow-list), and a credential-free one for the doors
    limits     the limits, and how each holds on this platform (pure); ``cgroup`` makes the
               run's cgroup where one can be made
    supervise  starts and watches the child; ``outcome`` judges how it ended (pure)
    isolation  how a run was isolated, as a value the report states
    child      the code that runs inside the child: standard library only (it runs under the
               user's interpreter, where gradgate is not installed)
"""
