"""Benchmarks that print figures as ratios against named baselines; `python -m bench` runs all."""
