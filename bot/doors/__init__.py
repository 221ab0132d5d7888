"""The doors: thin translators from a transport (command line, Action, App) to the pipeline.

A door builds a ``Request``, calls ``bot.pipeline`` and turns the ``Report`` back into
its transport (exit code, comment, statuses). Each door has exactly one top-level handler that
turns any exception into an ``error`` verdict. No door holds logic the others would need.
"""
