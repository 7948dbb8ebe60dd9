"""The llama_decode step in PyTorch on a GPU machine, for the case's notes: eager, replayed from a CUDA
graph, torch.compile, and torch.compile with CUDA graphs ("reduce-overhead"). One-off comparison, not
part of the package (PyTorch is never a dependency): the Llama-3.2-1B shape (16 layers, hidden 2,048, 32
query / 8 K/V heads of 64, SwiGLU 8,192, vocab 128,256, the tied embedding as LM head), batch 1, 1,023
tokens cached, random weights of the case's scales, the case's static KV cache layout ([layers, ctx,
kv_heads·64]), its merged QKV and gate/up projections and its in × out Wo and W_down (x @ W). SDPA runs its default choice with
enable_gqa=True (no K/V repeat).

    python3 scripts/device/llama-decode-torch.py [bf16|fp16] [reps]

Each timed call follows a write of a 256 MiB buffer (L2 holds no weights); median of `reps` (default 31).
"""
import sys
import time

import torch
import torch.nn.functional as F
from torch_timing import graphed, timed

dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[sys.argv[1] if len(sys.argv) > 1 else "bf16"]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 31
L, C, H, HKV, FF, V, CTX, POS, TOKEN, THETA, EPS = 16, 2048, 32, 8, 8192, 128256, 1024, 1023, 791, 500000.0, 1e-5
KV = HKV * 64
dev = "cuda"
g = torch.Generator(device=dev).manual_seed(0)


def rnd(*shape, sd=1.0, mean=0.0):
    return (torch.randn(*shape, device=dev, generator=g) * sd + mean).to(dtype)


sc, sf = C**-0.5, FF**-0.5
embed = rnd(V, C, sd=0.05)
attn_norm, ffn_norm, norm_f = rnd(L, C, sd=0.1, mean=1), rnd(L, C, sd=0.1, mean=1), rnd(C, sd=0.1, mean=1)
w_qkv, w_o = rnd(L, C + 2 * KV, C, sd=sc), rnd(L, C, C, sd=sc)  # w_o in × out, as the case stores it
w_gu, w_down = rnd(L, 2 * FF, C, sd=sc), rnd(L, FF, C, sd=sf)  # w_down in × out
k_cache, v_cache = rnd(L, CTX, KV), rnd(L, CTX, KV)
token = torch.tensor([TOKEN], device=dev)
inv_freq = THETA ** (-torch.arange(0, 64, 2, device=dev, dtype=torch.float64) / 64)
angle = POS * inv_freq
cos = torch.cat([angle.cos(), angle.cos()]).to(dtype)
sin = torch.cat([angle.sin(), angle.sin()]).to(dtype)


def rms_norm(x, w):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS)).to(dtype) * w


def rope(x):  # [heads, 64], HF's rotate_half
    return x * cos + torch.cat([-x[..., 32:], x[..., :32]], dim=-1) * sin


def step(token):
    x = F.embedding(token, embed)  # [1, C]
    for l in range(L):
        a = rms_norm(x, attn_norm[l])
        q, k, v = F.linear(a, w_qkv[l]).split([C, KV, KV], dim=-1)
        q, k = rope(q.view(H, 64)), rope(k.view(HKV, 64))
        k_cache[l, POS] = k.reshape(KV)
        v_cache[l, POS] = v[0]
        kk = k_cache[l, : POS + 1].view(POS + 1, HKV, 64).transpose(0, 1)[None]
        vv = v_cache[l, : POS + 1].view(POS + 1, HKV, 64).transpose(0, 1)[None]
        o = F.scaled_dot_product_attention(q.view(1, H, 1, 64), kk, vv, enable_gqa=True)
        x = x + o.reshape(1, C) @ w_o[l]
        gate, up = F.linear(rms_norm(x, ffn_norm[l]), w_gu[l]).split(FF, dim=-1)
        x = x + (F.silu(gate) * up) @ w_down[l]
    return F.linear(rms_norm(x, norm_f), embed)


print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, {str(dtype)[6:]}")
with torch.inference_mode():
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        step(token)
        torch.cuda.synchronize()
    kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    print(f"eager kernels per step: {kernels}")
    print(f"time eager           {timed(lambda: step(token), reps):8.1f} us")
    print(f"time cuda-graph      {timed(graphed(lambda: step(token)), reps):8.1f} us")
    for mode in ["default", "reduce-overhead"]:
        t0 = time.time()
        try:
            compiled = torch.compile(step, mode=mode, fullgraph=True)
            compiled(token)
            torch.cuda.synchronize()
            fn = (lambda: compiled(token))
            print(f"time compile-{mode:15s} {timed(fn, reps):8.1f} us (compiled in {time.time() - t0:.0f} s)")
            if mode == "default":
                print(f"time compile+graph   {timed(graphed(fn), reps):8.1f} us")
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"compile {mode} failed after {time.time() - t0:.0f} s: {type(e).__name__}: {str(e)[:300]}")
