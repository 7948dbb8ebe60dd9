"""The gpt2_forward model in PyTorch on a GPU machine, for the case's notes: the whole GPT-2 small forward
over batch 8 × seq 512 (the case's CUDA shape) as a PyTorch user runs it: eager with SDPA's default
backend choice, eager with the math attention (the case's unfused twin materializes the scores the same
way), eager replayed from a CUDA graph, and torch.compile (with and without a CUDA graph). One-off
comparison, not part of the package (PyTorch is never a dependency); random weights of the case's scales.

    python3 scripts/device/gpt2-forward-torch.py [bf16|fp16|fp32] [reps]

Each timed call follows a write of a 256 MiB buffer (L2 holds no weights); median of `reps` (default 21).
"""
import sys
import time

import torch
import torch.nn.functional as F
from torch_timing import graphed, timed
from torch.nn.attention import SDPBackend, sdpa_kernel

dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[sys.argv[1] if len(sys.argv) > 1 else "bf16"]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 21
L, C, H, FF, V, B, T = 12, 768, 12, 3072, 50257, 8, 512
dev = "cuda"
g = torch.Generator(device=dev).manual_seed(0)


def rnd(*shape, sd=1.0, mean=0.0):
    return (torch.randn(*shape, device=dev, generator=g) * sd + mean).to(dtype)


sc, sf = C**-0.5, FF**-0.5
wte, wpe = rnd(V, C, sd=0.1), rnd(T, C, sd=0.1)
ln1_g, ln1_b, ln2_g, ln2_b = rnd(L, C, sd=0.1, mean=1), rnd(L, C, sd=0.1), rnd(L, C, sd=0.1, mean=1), rnd(L, C, sd=0.1)
w_qkv, b_qkv, w_o, b_o = rnd(L, 3 * C, C, sd=sc), rnd(L, 3 * C, sd=0.1), rnd(L, C, C, sd=sc), rnd(L, C, sd=0.1)
w1, b1, w2, b2 = rnd(L, FF, C, sd=sc), rnd(L, FF, sd=0.1), rnd(L, C, FF, sd=sf), rnd(L, C, sd=0.1)
lnf_g, lnf_b = rnd(C, sd=0.1, mean=1), rnd(C, sd=0.1)
tokens = ((torch.arange(B * T, device=dev) * 7919 + 13) % V).view(B, T)
positions = torch.arange(T, device=dev)


def forward(tokens):
    x = F.embedding(tokens, wte) + F.embedding(positions, wpe)  # [B, T, C]
    for l in range(L):
        a = F.layer_norm(x, (C,), ln1_g[l], ln1_b[l])
        q, k, v = F.linear(a, w_qkv[l], b_qkv[l]).split(C, dim=-1)
        heads = lambda t: t.view(B, T, H, 64).transpose(1, 2)  # noqa: E731
        o = F.scaled_dot_product_attention(heads(q), heads(k), heads(v), is_causal=True)
        x = x + F.linear(o.transpose(1, 2).reshape(B, T, C), w_o[l], b_o[l])
        a = F.layer_norm(x, (C,), ln2_g[l], ln2_b[l])
        x = x + F.linear(F.gelu(F.linear(a, w1[l], b1[l]), approximate="tanh"), w2[l], b2[l])
    return F.linear(F.layer_norm(x, (C,), lnf_g, lnf_b), wte)


print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, {str(dtype)[6:]}, batch {B} x seq {T}")
with torch.inference_mode():
    print(f"time eager (SDPA default)   {timed(lambda: forward(tokens), reps):9.1f} us")
    with sdpa_kernel(SDPBackend.MATH):
        print(f"time eager (SDPA math)      {timed(lambda: forward(tokens), reps):9.1f} us")
    print(f"time eager in a CUDA graph  {timed(graphed(lambda: forward(tokens)), reps):9.1f} us")
    lm_x = torch.randn(B, T, C, device=dev, dtype=dtype)
    print(f"time LNf + LM head alone    {timed(lambda: F.linear(F.layer_norm(lm_x, (C,), lnf_g, lnf_b), wte), reps):9.1f} us")
    for mode in ["default"]:
        t0 = time.time()
        try:
            compiled = torch.compile(forward, mode=mode, fullgraph=True)
            compiled(tokens)
            torch.cuda.synchronize()
            fn = lambda: compiled(tokens)  # noqa: E731
            print(f"time compile-{mode:14s} {timed(fn, reps):9.1f} us (compiled in {time.time() - t0:.0f} s)")
            if mode == "default":
                print(f"time compile+graph          {timed(graphed(fn), reps):9.1f} us")
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"compile {mode} failed after {time.time() - t0:.0f} s: {type(e).__name__}: {str(e)[:300]}")
