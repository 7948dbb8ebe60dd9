"""Timing helpers of the one-off PyTorch comparisons (gpt2-decode-torch.py, gpt2-forward-torch.py): a call's
median device time after a 256 MiB write (L2 holds none of its data), and a call captured once in a CUDA graph."""
import torch

_flush = None


def timed(fn, reps):
    """Median µs of `reps` calls of fn, each after a 256 MiB write, after 3 warm-up calls."""
    global _flush
    if _flush is None:
        _flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    for _ in range(3):
        fn()
    times = []
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(reps):
        _flush.zero_()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e3)
    times.sort()
    return times[len(times) // 2]


def graphed(fn):
    """fn captured once in a CUDA graph (after 3 warm-up calls on a side stream): its replay."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph.replay
