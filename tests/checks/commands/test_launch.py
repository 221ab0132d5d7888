"""A documented command -> what the sandbox runs: tiny, the check's python, torchrun on gloo."""

from __future__ import annotations

import shlex

from gradgate.checks.commands.found import Command, commands_at
from gradgate.checks.commands.launch import NotRun, Plan, plan
from gradgate.checks.commands.settings import CommandsSettings, Shrink


def command(text: str, path: str = "train.py") -> Command:
    return Command(text, tuple(shlex.split(text)), path, path, "README.md", 3)


def test_a_python_command_gets_its_overrides_last_and_its_variables() -> None:
    shrink = Shrink(args=("--max_iters=1", "--device=cpu"), env={"TINY": "1"})

    got = plan(command("WANDB_MODE=offline python3 train.py --lr=1"), shrink, processes=2,
               script_text="")  # fmt: skip

    assert isinstance(got, Plan)
    assert got.argv == ("{python}", "train.py", "--lr=1", "--max_iters=1", "--device=cpu")
    assert got.env["WANDB_MODE"] == "offline" and got.env["TINY"] == "1"
    assert got.processes == 1


def test_torchrun_runs_two_cpu_processes_on_this_machine() -> None:
    text = "torchrun --nnodes 2 --nproc_per_node=8 --master_port=29500 train.py --compile=False"

    got = plan(command(text), Shrink(args=("--max_iters=1",)), processes=2, script_text="")

    assert isinstance(got, Plan)
    assert got.argv == (
        "{python}", "-m", "torch.distributed.run", "--standalone", "--nnodes=1",
        "--nproc_per_node=2", "train.py", "--compile=False", "--max_iters=1",
    )  # fmt: skip
    assert got.env["GLOO_SOCKET_IFNAME"] == "lo" and got.processes == 2


def test_a_script_that_asks_for_nccl_by_name_is_not_run_and_the_note_names_the_line() -> None:
    script = "import torch.distributed as dist\n\ndist.init_process_group(backend='nccl')\n"

    got = plan(command("torchrun --nproc_per_node=4 train.py"), Shrink(), processes=2,
               script_text=script)  # fmt: skip

    assert isinstance(got, NotRun)
    assert "`train.py:3` asks `init_process_group` for the nccl backend" in got.why


def test_a_backend_chosen_by_a_variable_runs() -> None:
    script = (
        "backend = 'nccl'\nimport torch.distributed as dist\ndist.init_process_group(backend)\n"
    )

    got = plan(command("torchrun --nproc_per_node=4 train.py"), Shrink(args=("--backend=gloo",)),
               processes=2, script_text=script)  # fmt: skip

    assert isinstance(got, Plan) and got.argv[-1] == "--backend=gloo"


def test_a_prepare_command_runs_under_the_check_s_python() -> None:
    got = plan(command("python train.py"), Shrink(prepare="python data/prep.py --n=10"),
               processes=2, script_text="")  # fmt: skip

    assert isinstance(got, Plan) and got.prepare == ("{python}", "data/prep.py", "--n=10")


def test_python_dash_m_torch_distributed_run_is_a_torchrun_launch() -> None:
    readme = "```bash\npython -m torch.distributed.run --nproc_per_node=4 train.py\n```\n"
    found = commands_at(
        {"README.md": readme},
        frozenset({"train.py"}),
        CommandsSettings(),
    )

    [only] = found
    got = plan(only, Shrink(), processes=2, script_text="")
    assert isinstance(got, Plan) and got.processes == 2
    assert got.argv[:6] == (
        "{python}", "-m", "torch.distributed.run", "--standalone", "--nnodes=1",
        "--nproc_per_node=2",
    )  # fmt: skip


def test_accelerate_and_deepspeed_launches_are_not_run_and_say_why() -> None:
    got = plan(command("accelerate launch --num_processes 8 train.py"), Shrink(), processes=2,
               script_text="")  # fmt: skip

    assert isinstance(got, NotRun) and "`accelerate` launches are not run here" in got.why
