"""The gpt2_decode step in PyTorch on a GPU machine, for the case's notes: eager, replayed from a CUDA
graph, torch.compile, and torch.compile with CUDA graphs ("reduce-overhead"). One-off comparison, not
part of the package (PyTorch is never a dependency): GPT-2 small, batch 1, 511 tokens cached, random
weights of the case's scales, the same static KV cache layout as the case ([layers, ctx, hidden]).

    python3 scripts/device/gpt2-decode-torch.py [bf16|fp16] [reps]

Each timed call follows a write of a 256 MiB buffer (L2 holds no weights); median of `reps` (default 51).
"""
import sys
import time

import torch
import torch.nn.functional as F
from torch_timing import graphed, timed

dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[sys.argv[1] if len(sys.argv) > 1 else "bf16"]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 51
L, C, H, FF, V, CTX, POS, TOKEN = 12, 768, 12, 3072, 50257, 1024, 511, 464
dev = "cuda"
g = torch.Generator(device=dev).manual_seed(0)


def rnd(*shape, sd=1.0, mean=0.0):
    return (torch.randn(*shape, device=dev, generator=g) * sd + mean).to(dtype)


sc, sf = C**-0.5, FF**-0.5
wte, wpe = rnd(V, C, sd=0.1), rnd(CTX, C, sd=0.1)
ln1_g, ln1_b, ln2_g, ln2_b = rnd(L, C, sd=0.1, mean=1), rnd(L, C, sd=0.1), rnd(L, C, sd=0.1, mean=1), rnd(L, C, sd=0.1)
w_qkv, b_qkv, w_o, b_o = rnd(L, 3 * C, C, sd=sc), rnd(L, 3 * C, sd=0.1), rnd(L, C, C, sd=sc), rnd(L, C, sd=0.1)
w1, b1, w2, b2 = rnd(L, FF, C, sd=sc), rnd(L, FF, sd=0.1), rnd(L, C, FF, sd=sf), rnd(L, C, sd=0.1)
lnf_g, lnf_b = rnd(C, sd=0.1, mean=1), rnd(C, sd=0.1)
k_cache, v_cache = rnd(L, CTX, C), rnd(L, CTX, C)
token = torch.tensor([TOKEN], device=dev)
position = torch.tensor([POS], device=dev)


def step(token, position):
    x = F.embedding(token, wte) + F.embedding(position, wpe)  # [1, C]
    for l in range(L):
        a = F.layer_norm(x, (C,), ln1_g[l], ln1_b[l])
        q, k, v = F.linear(a, w_qkv[l], b_qkv[l]).split(C, dim=-1)
        k_cache[l, POS] = k[0]
        v_cache[l, POS] = v[0]
        kk = k_cache[l, : POS + 1].view(POS + 1, H, 64).transpose(0, 1)[None]
        vv = v_cache[l, : POS + 1].view(POS + 1, H, 64).transpose(0, 1)[None]
        o = F.scaled_dot_product_attention(q.view(1, H, 1, 64), kk, vv)
        x = x + F.linear(o.reshape(1, C), w_o[l], b_o[l])
        a = F.layer_norm(x, (C,), ln2_g[l], ln2_b[l])
        x = x + F.linear(F.gelu(F.linear(a, w1[l], b1[l]), approximate="tanh"), w2[l], b2[l])
    return F.linear(F.layer_norm(x, (C,), lnf_g, lnf_b), wte)


print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, {str(dtype)[6:]}")
with torch.inference_mode():
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        step(token, position)
        torch.cuda.synchronize()
    kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    print(f"eager kernels per step: {kernels}")
    print(f"time eager           {timed(lambda: step(token, position), reps):8.1f} us")
    print(f"time cuda-graph      {timed(graphed(lambda: step(token, position)), reps):8.1f} us")
    for mode in ["default", "reduce-overhead"]:
        t0 = time.time()
        try:
            compiled = torch.compile(step, mode=mode, fullgraph=True)
            compiled(token, position)
            torch.cuda.synchronize()
            fn = (lambda: compiled(token, position))
            print(f"time compile-{mode:15s} {timed(fn, reps):8.1f} us (compiled in {time.time() - t0:.0f} s)")
            if mode == "default":
                print(f"time compile+graph   {timed(graphed(fn), reps):8.1f} us")
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"compile {mode} failed after {time.time() - t0:.0f} s: {type(e).__name__}: {str(e)[:300]}")
