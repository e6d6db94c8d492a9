"""What a backward call the harness wraps is: where in the script it comes from, what
it asks for, and what it returns when skipped; the device and memory it ran with.

Loaded by the harness from its file path; standard library (torch passed in), Python 3.8.
"""

from __future__ import annotations

import os
import sys
import traceback


def physical_device(device):
    """Names a CUDA device by the index the caller chose, not the one CUDA_VISIBLE_DEVICES remaps it to."""
    if device.type != "cuda":
        return str(device.type)
    index = device.index or 0
    visible = [v for v in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if v.strip()]
    if index < len(visible) and visible[index].strip().isdigit():
        return "cuda:" + visible[index].strip()
    return f"cuda:{index}"


def peak_memory(torch, cuda_device):
    if cuda_device is not None:
        try:
            return int(torch.cuda.max_memory_allocated(cuda_device))
        except Exception:
            return None
    try:
        import resource

        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return int(rss) if sys.platform == "darwin" else int(rss) * 1024
    except Exception:
        return None


def script_frames(script, frame):
    """Frames of the script on the stack, innermost first, as (line, frame)."""
    out = []
    while frame is not None:
        if frame.f_code.co_filename == script:
            out.append((frame.f_lineno, frame))
        frame = frame.f_back
    return out


def call_site(script, lines, frame):
    """The script line a backward call comes from: a line of interest on the stack, else the innermost."""
    stack = script_frames(script, frame)
    for line, _ in stack:
        if line in lines:
            return line, stack
    return (stack[0][0] if stack else None), stack


def frame_chain(stack, runs_loop):
    """The script frames from the failing call out to the one running the loop, innermost first."""
    chain = []
    for line, frame in stack:
        chain.append({"line": line, "function": frame.f_code.co_name})
        if runs_loop(line, frame):
            break
    return chain


def traceback_frames(script, error):
    """The script's frames the error came through, innermost first (a backward run by
    autograd can fail inside the script's own custom Function)."""
    frames = traceback.extract_tb(error.__traceback__)
    return [
        {"line": f.lineno, "function": f.name} for f in reversed(frames) if f.filename == script
    ]


def retains_graph(kind, args, kwargs):
    """Whether the call keeps its graph's saved tensors (retain_graph, defaulting to create_graph)."""
    retain_at, create_at = {"grad": (3, 4), "tensor.backward": (2, 3)}.get(kind, (2, 3))
    retain = args[retain_at] if len(args) > retain_at else kwargs.get("retain_graph")
    if retain is None:
        retain = args[create_at] if len(args) > create_at else kwargs.get("create_graph", False)
    return bool(retain)


def skipped_result(torch, kind, args, kwargs):
    """What a skipped call returns: None, or zero gradients for autograd.grad's inputs."""
    if kind != "grad":
        return None
    inputs = args[1] if len(args) > 1 else kwargs.get("inputs")
    inputs = [inputs] if isinstance(inputs, torch.Tensor) else list(inputs)
    return tuple(torch.zeros_like(i) for i in inputs)
