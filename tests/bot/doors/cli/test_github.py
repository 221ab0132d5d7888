"""`gradgate plan --format github-matrix`: job outputs for a workflow, from the real command."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.gitrepo import GitRepo


def test_plan_prints_github_job_outputs_without_importing_torch_or_pygithub(repo: GitRepo) -> None:
    repo.write(".gradgate.yml", "runners:\n  protected: [self-hosted, cpu-big]\n")
    repo.write("train.py", "x = 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("train.py", "x = 2\n")
    repo.commit("change")
    code = (
        "import sys\n"
        "from gradgate.bot.doors.cli import main\n"
        f"rc = main(['plan', '--repo', {str(repo.root)!r}, '--base', 'main', '--head', 'pr',"
        " '--format', 'github-matrix'])\n"
        "assert 'torch' not in sys.modules and 'github' not in sys.modules, 'imported'\n"
        "sys.exit(rc)\n"
    )

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)

    assert done.returncode == 0, done.stderr
    outputs = dict(line.split("=", 1) for line in done.stdout.splitlines())
    assert json.loads(outputs["matrix"]) == {
        "include": [{"check": "protected", "runs_on": ["self-hosted", "cpu-big"]}]
    }
    assert (outputs["run"], outputs["checks"]) == ("true", "protected")
