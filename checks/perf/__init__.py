"""The `perf` check: training-step and inference time at base vs head, noise-aware.

``child`` times the model's steps in a sandboxed child (CUDA events on CUDA, ``perf_counter``
on the CPU; warm-up discarded); ``check`` runs base and head children interleaved for
``rounds`` rounds; ``compare`` turns the per-round ratios into a median and a bootstrap
confidence interval and decides (pure); ``settings`` holds the knobs.
"""
