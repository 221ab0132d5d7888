"""One model, base and head, holding every parameter-level scenario as its own block.

Each block seeds its own initialisation, so a change in one block moves no other block's
weights, and the model's output is the sum of the blocks' outputs: the gradient each block
gets does not depend on the others. One pair of sandbox runs then answers every row below;
tests/checks/gradient/test_scenarios.py asserts each row on its own block.
"""

from __future__ import annotations

from tests.checks.gradient.revisions import PRELUDE

# (block name, scenario, base source, head source): each block maps x [4, 8] -> [4, 8].
BLOCKS = [
    ("g1", "stray .detach() on a projection", """
        self.body, self.proj = nn.Linear(8, 8), nn.Linear(8, 8)

    def forward(self, x):
        h = self.body(x)
        h = h + self.proj(x)
        return h
""", """
        self.body, self.proj = nn.Linear(8, 8), nn.Linear(8, 8)

    def forward(self, x):
        h = self.body(x)
        h = h + self.proj(x).detach()
        return h
"""),
    ("g2", "auxiliary branch moved under no_grad", """
        self.body, self.aux = nn.Linear(8, 8), nn.Linear(8, 8)

    def forward(self, x):
        side = self.aux(x)
        return self.body(x) + side
""", """
        self.body, self.aux = nn.Linear(8, 8), nn.Linear(8, 8)

    def forward(self, x):
        with torch.no_grad():
            side = self.aux(x)
        return self.body(x) + side
"""),
    ("g4", "a submodule built in __init__ and never called", """
        self.body = nn.Linear(8, 8)

    def forward(self, x):
        return self.body(x)
""", """
        self.body = nn.Linear(8, 8)
        self.extra = nn.Linear(8, 8)

    def forward(self, x):
        return self.body(x)
"""),
    ("g5", "nn.ModuleList turned into a plain list", """
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(2)])

    def forward(self, x):
        for layer in self.layers:
            x = torch.tanh(layer(x))
        return x
""", """
        self.layers = [nn.Linear(8, 8) for _ in range(2)]

    def forward(self, x):
        for layer in self.layers:
            x = torch.tanh(layer(x))
        return x
"""),
    ("g8", "reentrant checkpoint on an input that does not require grad", """
        self.block = nn.Sequential(nn.Linear(8, 8), nn.Tanh())

    def forward(self, x):
        return self.block(x)
""", """
        self.block = nn.Sequential(nn.Linear(8, 8), nn.Tanh())

    def forward(self, x):
        return checkpoint(self.block, x, use_reentrant=True)
"""),
    ("g9", "straight-through estimator removed from argmax", """
        self.enc, self.dec = nn.Linear(8, 8), nn.Linear(8, 8)

    def forward(self, x):
        h = self.enc(x)
        soft = torch.softmax(h, -1)
        hard = F.one_hot(h.argmax(-1), 8).float()
        return self.dec(hard + soft - soft.detach())
""", """
        self.enc, self.dec = nn.Linear(8, 8), nn.Linear(8, 8)

    def forward(self, x):
        h = self.enc(x)
        hard = F.one_hot(h.argmax(-1), 8).float()
        return self.dec(hard)
"""),
    ("g12", "nn.Parameter turned into a buffer", """
        self.scale = nn.Parameter(torch.ones(8))

    def forward(self, x):
        return x * self.scale
""", """
        self.register_buffer("scale", torch.ones(8))

    def forward(self, x):
        return x * self.scale
"""),
    ("g13", "requires_grad = False applied to the wrong module", """
        self.stem, self.top = nn.Linear(8, 8), nn.Linear(8, 8)
        for p in self.stem.parameters():
            p.requires_grad = False

    def forward(self, x):
        return self.top(self.stem(x))
""", """
        self.stem, self.top = nn.Linear(8, 8), nn.Linear(8, 8)
        for p in self.top.parameters():
            p.requires_grad = False

    def forward(self, x):
        return self.top(self.stem(x))
"""),
    ("n1", "a backbone frozen at both revisions", """
        self.backbone, self.top = nn.Linear(8, 8), nn.Linear(8, 8)
        self.backbone.requires_grad_(False)

    def forward(self, x):
        return self.top(self.backbone(x))
""", None),
    ("n2", "an eval-only branch and a flag that is off, at both revisions", """
        self.body, self.eval_only, self.flagged = nn.Linear(8, 8), nn.Linear(8, 8), nn.Linear(8, 8)
        self.use_flagged = False

    def forward(self, x):
        h = self.body(x)
        if not self.training:
            h = h + self.eval_only(x)
        if self.use_flagged:
            h = h + self.flagged(x)
        return h
""", None),
    ("n3", "tied weights", """
        self.emb, self.dec = nn.Linear(8, 8, bias=False), nn.Linear(8, 8, bias=False)
        self.dec.weight = self.emb.weight

    def forward(self, x):
        return self.dec(torch.tanh(self.emb(x)))
""", None),
    ("n4", "buffers: BatchNorm statistics and a mask; head adds a buffer", """
        self.norm = nn.BatchNorm1d(8)
        self.register_buffer("mask", torch.tril(torch.ones(8, 8)))

    def forward(self, x):
        return self.norm(x) @ self.mask
""", """
        self.norm = nn.BatchNorm1d(8)
        self.register_buffer("mask", torch.tril(torch.ones(8, 8)))
        self.register_buffer("calls", torch.zeros(()))

    def forward(self, x):
        return self.norm(x) @ self.mask
"""),
    ("n5", "zero-initialised gates: LoRA B = 0, ReZero alpha = 0", """
        self.base_layer = nn.Linear(8, 8)
        self.lora_a, self.lora_b = nn.Linear(8, 2, bias=False), nn.Linear(2, 8, bias=False)
        nn.init.zeros_(self.lora_b.weight)
        self.branch, self.alpha = nn.Linear(8, 8), nn.Parameter(torch.zeros(1))

    def forward(self, x):
        h = self.base_layer(x) + self.lora_b(self.lora_a(x))
        return h + self.alpha * torch.tanh(self.branch(h))
""", None),
    ("n6", "one module applied twice", """
        self.cell = nn.Linear(8, 8)

    def forward(self, x):
        return self.cell(torch.tanh(self.cell(x)))
""", None),
    ("n7", "activation checkpointing re-runs forward", """
        self.pre = nn.Linear(8, 8)
        self.block = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
        self.again = nn.Sequential(nn.Linear(8, 8), nn.Tanh())

    def forward(self, x):
        h = self.pre(x)
        h = checkpoint(self.block, h, use_reentrant=False)
        return checkpoint(self.again, h, use_reentrant=True)
""", None),
    ("n8", "softmax output: out.sum() would see zero gradients", """
        self.f = nn.Linear(8, 8)

    def forward(self, x):
        return torch.softmax(self.f(x), dim=-1)
""", None),
    ("n9", "no_grad added around values that were already detached", """
        self.f, self.teacher = nn.Linear(8, 8), nn.Linear(8, 8)
        self.teacher.requires_grad_(False)

    def forward(self, x):
        scale = x.detach().std()
        target = self.teacher(x).detach()
        return self.f(x) * scale + target
""", """
        self.f, self.teacher = nn.Linear(8, 8), nn.Linear(8, 8)
        self.teacher.requires_grad_(False)

    def forward(self, x):
        with torch.no_grad():
            scale = x.std()
            target = self.teacher(x)
        return self.f(x) * scale + target
"""),
]  # fmt: skip


def _source(revision: int) -> str:
    classes = []
    for index, (name, scenario, base, head) in enumerate(BLOCKS):
        body = base if revision == 0 or head is None else head
        classes.append(
            f"class {name.upper()}(nn.Module):\n"
            f'    """{scenario}"""\n\n'
            "    def __init__(self):\n"
            "        super().__init__()\n"
            f"        torch.manual_seed({index})\n" + body.lstrip("\n")
        )
    blocks = "".join(f"        self.{name} = {name.upper()}()\n" for name, *_ in BLOCKS)
    model = (
        "class Combined(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n" + blocks + "\n"
        "    def forward(self, x):\n"
        "        return sum(block(x) for block in self.children())\n\n\n"
        "def build():\n"
        "    torch.manual_seed(0)\n"
        "    return Combined(), torch.randn(4, 8)\n"
    )
    return PRELUDE + "\n\n" + "\n\n".join(classes) + "\n\n" + model


BASE = _source(0)
HEAD = _source(1)
