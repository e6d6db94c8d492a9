"""Opt-in runtime confirmation: run the user's script a few steps under instrumentation.

`runner` (this side, never imports torch) starts `harness.py` in a child process with the
user's interpreter; the harness watches every backward call and reports, on a channel of
its own, whether one reaches a freed or modified graph. See docs/runtime.md.
"""
