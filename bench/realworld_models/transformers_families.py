"""The realworld bench's factory for transformers: tiny GPT-2, BERT and Llama from their configs.

One module holds all three families, so one gate run per release pair checks each of them; the
sizes are tiny and every config is built in code (nothing is downloaded).
"""

from __future__ import annotations

from typing import Any

VOCAB, TOKENS = 96, 8


def build() -> dict[str, Any]:
    import _cpu_torchvision

    _cpu_torchvision.declare()
    import torch
    from transformers import (
        BertConfig,
        BertForMaskedLM,
        GPT2Config,
        GPT2LMHeadModel,
        LlamaConfig,
        LlamaForCausalLM,
    )

    small = {"vocab_size": VOCAB, "attn_implementation": "eager"}
    gpt2 = GPT2LMHeadModel(
        GPT2Config(n_embd=32, n_layer=2, n_head=2, n_positions=32, use_cache=False, **small)
    )
    bert = BertForMaskedLM(
        BertConfig(
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=64,
            max_position_embeddings=32,
            **small,
        )
    )
    llama = LlamaForCausalLM(
        LlamaConfig(
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            max_position_embeddings=32,
            use_cache=False,
            **small,
        )
    )

    class Families(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gpt2, self.bert, self.llama = gpt2, bert, llama

        def forward(self, input_ids: Any) -> dict[str, Any]:
            return {
                name: getattr(self, name)(input_ids=input_ids).logits
                for name in ("gpt2", "bert", "llama")
            }

    ids = torch.randint(0, VOCAB, (2, TOKENS), generator=torch.Generator().manual_seed(0))
    return {"model": Families(), "inputs": {"input_ids": ids}}
