"""PyTorch's causal scaled_dot_product_attention on a GPU machine, for the attention cases' notes (issue
30). One-off comparison, not part of the package (PyTorch is never a dependency): the default backend
choice and each backend PyTorch offers on the device (flash, memory-efficient, cuDNN, math), at the
attention case's shapes in bf16 and fp16, and torch.compile of SDPA + residual + LayerNorm at
attention_layernorm_residual's shape.

    python3 scripts/device/sdpa-compare.py [reps] [--default-only]

`--default-only`: the default backend choice at the attention shapes only (attn-variants.sh).

Each timed call follows fusebench's L2 flush (a write of a 256 MiB buffer, then a read of another,
so L2 holds no operand and no dirty line); CUDA events, median of
`reps` (default 51). TFLOP/s counts the causal useful work, 4·d·seq(seq + 1)/2 per (batch, head), as
fusebench does. A backend that refuses a shape prints its reason instead of a time.
"""
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

args = [a for a in sys.argv[1:] if a != "--default-only"]
default_only = "--default-only" in sys.argv[1:]
reps = int(args[0]) if args else 51
dev = "cuda"
flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
clean = torch.zeros(64 << 20, dtype=torch.float32, device=dev)
SHAPES = [(32, 12, 512, 64), (8, 16, 4096, 128)]
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}
BACKENDS = {
    "flash": SDPBackend.FLASH_ATTENTION,
    "efficient": SDPBackend.EFFICIENT_ATTENTION,
    "cudnn": SDPBackend.CUDNN_ATTENTION,
    "math": SDPBackend.MATH,
}


def median_us(fn):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        flush.fill_(i & 1)
        clean.sum()  # read another buffer: no dirty line of the fill is left to write back inside the timing
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1000)
    times.sort()
    return times[len(times) // 2]


def flops(b, h, s, d):
    return 4 * d * s * (s + 1) / 2 * b * h


print(f"device {torch.cuda.get_device_name()}, torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}")
print("| shape | dtype | path | median µs | TFLOP/s |")
print("|---|---|---|---|---|")
for b, h, s, d in SHAPES:
    for name, dt in DTYPES.items():
        g = torch.Generator(device=dev).manual_seed(0)
        q, k, v = (torch.randn(b, h, s, d, device=dev, dtype=dt, generator=g) for _ in range(3))
        runs = [("default", None)] + [
            (n, be) for n, be in BACKENDS.items() if not default_only and not (n == "math" and s > 1024)
        ]
        for label, backend in runs:
            def call(backend=backend):
                if backend is None:
                    return F.scaled_dot_product_attention(q, k, v, is_causal=True)
                with sdpa_kernel([backend]):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=True)
            try:
                t = median_us(call)
                print(f"| {b}×{h}×{s}×{d} | {name} | {label} | {t:.2f} | {flops(b, h, s, d) / t * 1e-6:.1f} |", flush=True)
            except RuntimeError as e:
                print(f"| {b}×{h}×{s}×{d} | {name} | {label} | refused: {str(e).splitlines()[0][:80]} | |", flush=True)
        del q, k, v

# attention_layernorm_residual: y = LayerNorm(x + merge_heads(SDPA(q, k, v))), x [b, s, h·64].
if default_only:
    sys.exit(0)
b, h, s, d = SHAPES[0]
c = h * d
print("\n| attention_layernorm_residual | dtype | path | median µs |")
print("|---|---|---|---|")
for name, dt in DTYPES.items():
    g = torch.Generator(device=dev).manual_seed(1)
    q, k, v = (torch.randn(b, h, s, d, device=dev, dtype=dt, generator=g) for _ in range(3))
    x = torch.randn(b, s, c, device=dev, dtype=dt, generator=g)
    gamma, beta = torch.ones(c, device=dev, dtype=dt), torch.zeros(c, device=dev, dtype=dt)

    def block(q, k, v, x):
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return F.layer_norm(x + o.transpose(1, 2).reshape(b, s, c), (c,), gamma, beta, 1e-5)

    compiled = torch.compile(block)
    print(f"| {b}×{h}×{s}×{d} | {name} | eager | {median_us(lambda: block(q, k, v, x)):.2f} |", flush=True)
    print(f"| {b}×{h}×{s}×{d} | {name} | torch.compile | {median_us(lambda: compiled(q, k, v, x)):.2f} |", flush=True)
