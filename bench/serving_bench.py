#!/usr/bin/env python3
"""Serving-speed measurement for gpu-advise: prefill and decode of real model shapes on one GPU.

What it measures, as a serving engine runs a model (static KV cache, CUDA graphs), on one device:
  * decode: the time of one single-token step at batch B with a KV cache holding C tokens;
    ms per step and output tokens/s = B / step time. The model is a small Llama-style decoder
    written in plain PyTorch in this file (class Decoder: RMSNorm, rotary embeddings with Llama
    3's rope scaling, grouped-query attention, SwiGLU MLP, tied or untied output head, q/k/v
    biases for Qwen2), built from each model's published config.json (MODELS) with random bf16
    weights (no downloads). Q/K/V and gate/up are fused into one matrix each, as serving engines
    do; the bytes are the same. Each layer has one preallocated K/V tensor
    [2, B, kv_heads, L, head_dim] with L = C + the steps run, rounded up to 64; its contents are
    random (a step's time does not depend on the values). One step reads the previous step's
    greedy token and the position `pos` from device tensors, writes K and V at `pos`
    (index_copy_), attends over all L slots with an additive mask that hides those after `pos`
    (default --decode-attn matmul: scores = mask + q K^T / sqrt(head_dim) in one baddbmm, a
    softmax and a bmm, each K/V head serving its group of query heads, the cache read once and
    never copied; --decode-attn sdpa: scaled_dot_product_attention with the same mask), writes
    the argmax token back and advances `pos`. The step is written for few kernels (rotary
    embedding on q|k|v at once, residual adds inside the GEMMs), since a graph replays every
    one. It is captured once per (B, C) with torch.cuda.CUDAGraph (warm-up on a side stream
    first, as the PyTorch docs show) and replayed: the first --warmup-steps replays are dropped,
    then each of --steps replays is timed with CUDA events and the median is the figure. After
    timing, one replay at another position with fresh tokens must give the eager step's logits
    (check_against_eager_step; a mismatch rejects the record). --mode compile times
    torch.compile(mode="reduce-overhead") of the same step instead (optional; compiling takes a
    while per shape, and torch may say it skips CUDA graphs for it), --mode eager the plain step
    (the Python overhead a graph removes).
  * the bound for every decode figure: a step must read every weight it multiplies by (all of
    them, less the input embedding table unless it is tied to the output head) and the K and V
    of B x C cached tokens (the up to 64 masked slots past them, which this step also reads, are
    not counted: the bound is the engine's, not this script's), so
        bound_ms = (weights read + 2 x layers x kv_heads x head_dim x bytes x B x C) / peak BW
    with the peak memory bandwidth from --peak-bw-gbs, or looked up from the device name
    (H200: 4800 GB/s, H100 SXM: 3350 GB/s; any other card needs the flag), and
    achieved_share = bound_ms / measured ms.
  * prefill: one forward of the same pure-PyTorch model over a batch B x prompt S from position
    0, writing the KV cache, with causal scaled_dot_product_attention (flash on a GPU in bf16)
    and logits for the last position only, as a serving engine computes them; eager (no graph:
    at these sizes the launch overhead is negligible); ms and prompt tokens/s. Median over
    --repeats after --warmup runs, CUDA events.
  * memory: torch.cuda.max_memory_allocated() per measurement (weights included), and the
    weights' bytes per model. A shape whose cache + activations would not fit in the free device
    memory (next to the weights) is skipped and listed as such ("skipped": "does not fit ...").
The decoder's formulas follow transformers' Llama and Qwen2 code (rotate_half rope, the llama3
inv_freq formula, RMSNorm in float32, query head h on K/V head h // (heads / kv_heads)); its
parameter counts equal the published ones (8,030,261,248; 7,615,616,512; 1,235,814,400), but it
has not been compared numerically with transformers' own model. Timing does not depend on that.

The rule for refusing a figure (also written into the details JSON as "rule"): a decode figure
whose achieved_share is below the minimum share, 0.5 at batch >= 8 and 0.3 at batch < 8
(--min-share sets one value for every batch), or above 1 (faster than the memory allows: the
timing or the byte count is wrong), is not recorded (nor written as a measurement record): its
record gets "status": "rejected" with the reason, its measured values are kept only under
"rejected_measurement" (no ms_per_step or tokens_per_s field), and the run exits 2 when every
decode record that was measured was rejected (1 when a measurement failed other than by running
out of memory). Accepted records get "status": "accepted". On a CPU (--device cpu) nothing is a
measurement: no CUDA graphs, the same static-cache step runs eagerly, and every record is marked
"cpu-functional, not a measurement".
Figures from this are gpu-advise's own measurement (not a published one), recorded in
docs/validation.md marked as such.

Output: --out FILE (default $OUT/serving_bench.jsonl) gets the measurement records that
`gpu-advise calibrate FILE...` reads, JSON Lines, one per accepted decode figure (rejected ones
and prefill figures are not written; a CPU run writes its functional ones): a step at batch B
with C cached tokens is written as the steady state of requests with a 1-token prompt and
2(C-1) output tokens (their average context held, prompt + output/2, is C; their prefill is
negligible): kind "serving", gpu (--gpu ID, else from the device name, else "unknown" with a
warning: pass --gpu), model (the preset; --tiny writes the base model's name, a functional test
only), precision "bf16" (--dtype bfloat16 only: other dtypes write no records), concurrency B,
context 2C-1, output_tokens 2C-2, tpot_ms (the step), output_tokens_per_s (B / step), engine
(only with --engine NAME), source, date, id. --details FILE (default: --out with .jsonl replaced
by _details.json, else $OUT/serving_bench_details.json) gets the detailed JSON document of the
run: every record, refused ones with their reasons, prefill, bounds, method, versions.

Run (GPU; the default plan is estimated at 3-5 minutes on an H200: Llama 3.1 8B decode at batch
1, 8, 32, 128 with 1024 and 4096 cached tokens and prefill at 512 to 8192 tokens, then Llama 3.2
1B and Qwen2.5 7B while --budget-s 270 lasts, checked between measurements, skipped ones listed
in the details; progress on stderr; both files are rewritten after each measurement so a killed
run keeps what it measured):
    python3 bench/serving_bench.py --out $OUT/serving_bench.jsonl
    python3 bench/serving_bench.py --peak-bw-gbs 2039 --out o.jsonl  # a card not in the table
    python3 bench/serving_bench.py --gpu h100-sxm5 --engine vllm --out o.jsonl  # + o_details.json
    gpu-advise calibrate $OUT/serving_bench.jsonl
Functional check on a CPU (tiny shapes, eager), the self-test (the rule, the bandwidth table and
the byte counts; then on a CPU in float32 with tiny configs of each model: the static-cache decode
must give the logits of a full forward over the whole sequence, max |diff| < 1e-4 x max(1,
max|logits|); exit 1 on a failure), and the plan without torch:
    python3 bench/serving_bench.py --device cpu --tiny --out /tmp/s.jsonl
    python3 bench/serving_bench.py --self-test
    python3 bench/serving_bench.py --dry-run
"""
import argparse
import contextlib
import gc
import json
import math
import os
import platform
import statistics
import sys
import time

# Exact values from each model's config.json on huggingface.co (shape keys only).
MODELS = {
    # meta-llama/Llama-3.1-8B-Instruct config.json (base model has the same shape)
    "llama-3.1-8b": ("LlamaConfig", dict(
        hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, vocab_size=128256,
        max_position_embeddings=131072, rms_norm_eps=1e-05, rope_theta=500000.0,
        rope_scaling=dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0,
                          high_freq_factor=4.0, original_max_position_embeddings=8192),
        hidden_act="silu", attention_bias=False, mlp_bias=False, tie_word_embeddings=False)),
    # Qwen/Qwen2.5-7B config.json (as in tests/data/hf-configs/qwen2.5-7b.json); q/k/v biases
    "qwen2.5-7b": ("Qwen2Config", dict(
        hidden_size=3584, intermediate_size=18944, num_hidden_layers=28,
        num_attention_heads=28, num_key_value_heads=4, vocab_size=152064,
        max_position_embeddings=131072, rms_norm_eps=1e-06, rope_theta=1000000.0,
        sliding_window=131072, use_sliding_window=False, max_window_layers=28,
        hidden_act="silu", tie_word_embeddings=False)),
    # meta-llama/Llama-3.2-1B-Instruct config.json (base model has the same shape)
    "llama-3.2-1b": ("LlamaConfig", dict(
        hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
        num_attention_heads=32, num_key_value_heads=8, head_dim=64, vocab_size=128256,
        max_position_embeddings=131072, rms_norm_eps=1e-05, rope_theta=500000.0,
        rope_scaling=dict(rope_type="llama3", factor=32.0, low_freq_factor=1.0,
                          high_freq_factor=4.0, original_max_position_embeddings=8192),
        hidden_act="silu", attention_bias=False, mlp_bias=False, tie_word_embeddings=True)),
}
# Most valuable first: when the budget runs out, what is skipped is the tail.
DEFAULT_MODELS = "llama-3.1-8b,llama-3.2-1b,qwen2.5-7b"
# --tiny keeps each model's kind (class, rope, biases, tying) and shrinks its size.
TINY = dict(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, head_dim=64, vocab_size=1024, max_position_embeddings=4096)

FULL = dict(prefill="1x512,1x2048,1x8192,8x2048", batches="1,8,32,128",
            contexts="1024,4096", warmup=2, repeats=5, steps=32, warmup_steps=5)
SMALL = dict(prefill="1x32,2x64", batches="1,4", contexts="32",
             warmup=1, repeats=2, steps=4, warmup_steps=1)

# Peak memory bandwidth, GB/s (1e9 bytes/s), from NVIDIA's datasheets, by device name.
PEAK_BW_GBS = (("H200", 4800.0), ("H100 SXM", 3350.0))
# Minimum achieved share of the bound for a decode figure to be recorded.
MIN_SHARE_LARGE, MIN_SHARE_SMALL, LARGE_BATCH = 0.5, 0.3, 8
CPU_STATUS = "cpu-functional, not a measurement"
ROUND_CACHE = 64  # cache slots are allocated in multiples of this
# gpu-advise's serving engines: --engine writes one into each measurement record.
ENGINES = ("vllm", "sglang", "trtllm", "mindie", "lmdeploy")


# Measurement records: the JSON Lines that `gpu-advise calibrate FILE...` reads, written by both
# bench scripts (--out), next to the detailed JSON document of the run (--details).
def add_output_args(p, stem):
    """--out (measurement records, JSON Lines), --details (the detailed JSON) and --gpu."""
    p.add_argument("--out", help="measurement records for `gpu-advise calibrate`, JSON Lines "
                                 "(default $OUT/%s.jsonl)" % stem)
    p.add_argument("--details", help="the detailed JSON document of the run (default: --out with "
                                     ".jsonl replaced by _details.json, else "
                                     "$OUT/%s_details.json)" % stem)
    p.add_argument("--gpu", help="gpu-advise GPU id written into each record, e.g. h200-sxm "
                                 "(default from the device name; 'unknown' when it is not known)")


def resolve_output_paths(p, a, stem):
    """Fill --out and --details from $OUT and from each other (see add_output_args)."""
    env = os.environ.get("OUT")
    if a.details is None:
        if a.out:
            root = (a.out[:-len(".jsonl")] if a.out.endswith(".jsonl")
                    else os.path.splitext(a.out)[0])
            a.details = root + "_details.json"
        elif env:
            a.details = os.path.join(env, stem + "_details.json")
    if a.out is None and env:
        a.out = os.path.join(env, stem + ".jsonl")
    if a.out and a.details and os.path.abspath(a.out) == os.path.abspath(a.details):
        p.error("--out and --details name the same file")
    a.prog = stem


def gpu_id_from_name(name):
    """gpu-advise's GPU id for a torch.cuda.get_device_name() string, or None."""
    n = (name or "").upper().replace("-", " ")
    if "GH200" in n:
        return "gh200"
    if "H200" in n:
        return "h200-nvl" if "NVL" in n else "h200-sxm"
    if "H100" in n:
        return "h100-pcie" if "PCIE" in n else "h100-nvl" if "NVL" in n else "h100-sxm5"
    if "A100" in n:
        return "a100-%s-%s" % ("80gb" if "80GB" in n else "40gb", "pcie" if "PCIE" in n else "sxm4")
    if "4090" in n:
        return "rtx-4090d" if "4090 D" in n or "4090D" in n else "rtx-4090"
    return None


def resolve_gpu(a, device_name):
    """Set a.gpu (the records' "gpu"): --gpu, else from the device name, else 'unknown' with a
    warning on stderr."""
    derived = gpu_id_from_name(device_name)
    if a.gpu:
        if derived and derived != a.gpu:
            print("%s: warning: --gpu %s given, but the device %r looks like %s"
                  % (a.prog, a.gpu, device_name, derived), file=sys.stderr)
        return a.gpu
    if derived:
        a.gpu = derived
        return a.gpu
    a.gpu = "unknown"
    print("%s: warning: no gpu-advise GPU id known for %s; the measurement records say \"gpu\": "
          "\"unknown\": pass --gpu ID (an id of gpu-advise's catalog, e.g. h200-sxm)"
          % (a.prog, repr(device_name) if device_name else "a CPU"), file=sys.stderr)
    return a.gpu


def record_id(used, base):
    """base, or base-2, base-3, ... when a record of this run already has that id."""
    rid, n = base, 1
    while rid in used:
        n += 1
        rid = "%s-%d" % (base, n)
    used.add(rid)
    return rid


def preset_name(label, tiny):
    """The gpu-advise model preset of a record's model label ("tiny-" dropped), or None."""
    name = label[len("tiny-"):] if tiny and label.startswith("tiny-") else label
    return name if name in MODELS else None


SOURCE_MODE = {"graph": "CUDA graph", "compile": "torch.compile reduce-overhead", "eager": "eager"}


def serving_record(a, doc, rec, used):
    """The measurement record of one accepted decode measurement, else None. A decode step at
    batch B with C cached tokens stands for the steady state of requests with a 1-token prompt
    and 2(C-1) output tokens: their average context held, prompt + output/2, is C, and their
    prefill is negligible."""
    if rec.get("kind") != "decode" or rec.get("status") not in ("accepted", CPU_STATUS):
        return None
    if "ms_per_step" not in rec or "error" in rec or a.dtype != "bfloat16":
        return None
    model = preset_name(rec["model"], a.tiny)
    if model is None:
        return None
    B, C, ms = rec["batch"], rec["context_tokens"], rec["ms_per_step"]
    out = dict(kind="serving", gpu=a.gpu, count=1, model=model, precision="bf16",
               concurrency=B, context=2 * C - 1, output_tokens=2 * C - 2,
               tpot_ms=round(ms, 3), output_tokens_per_s=round(B * 1e3 / ms, 1))
    if a.engine:
        out["engine"] = a.engine
    out.update(
        source="bench/serving_bench.py decode step, %s, %s, static KV cache of %d tokens"
               % (SOURCE_MODE.get(rec.get("mode"), rec.get("mode")), doc.get("gpu") or "cpu", C),
        date=time.strftime("%Y-%m-%d", time.gmtime()),
        id=record_id(used, "%s-decode-b%d-c%d" % (model, B, C)))
    return out


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_output_args(p, "serving_bench")
    p.add_argument("--engine", choices=ENGINES,
                   help="the serving engine these figures stand for, written into each record "
                        "as \"engine\" (default: none, no such key)")
    p.add_argument("--models", default=DEFAULT_MODELS, help="comma list of " + ",".join(MODELS))
    p.add_argument("--device", default="cuda")
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--mode", default="graph", choices=("graph", "compile", "eager"),
                   help="decode: CUDA graph replay (default), torch.compile reduce-overhead, "
                        "or eager calls (always eager on a CPU)")
    p.add_argument("--decode-attn", default="matmul", choices=("matmul", "sdpa"),
                   help="decode attention: batched matmuls + softmax, or SDPA with a mask")
    p.add_argument("--peak-bw-gbs", type=float,
                   help="peak memory bandwidth, GB/s (default from the device name: "
                        + ", ".join("%s %g" % kv for kv in PEAK_BW_GBS) + ")")
    p.add_argument("--min-share", type=float,
                   help="minimum achieved share of the bound for every batch (default %g at "
                        "batch >= %d, %g below)" % (MIN_SHARE_LARGE, LARGE_BATCH, MIN_SHARE_SMALL))
    p.add_argument("--tiny", action="store_true", help="tiny shapes and sizes (CPU test)")
    p.add_argument("--dry-run", action="store_true", help="print the plan; torch not imported")
    p.add_argument("--self-test", action="store_true",
                   help="CPU, float32, tiny configs: static-cache decode against a full forward")
    p.add_argument("--budget-s", type=float, default=270.0, help="skip what is left after this")
    p.add_argument("--prefill", help="BxS list, e.g. 1x512,8x2048")
    p.add_argument("--decode-batches", help="e.g. 1,8,32")
    p.add_argument("--decode-contexts", help="cached KV tokens, e.g. 1024,4096")
    p.add_argument("--seed", type=int, default=0)
    for k in ("warmup", "repeats", "steps", "warmup_steps"):
        p.add_argument("--" + k.replace("_", "-"), type=int)
    a = p.parse_args(argv)
    base = SMALL if a.tiny else FULL
    for k, v in base.items():
        attr = {"batches": "decode_batches", "contexts": "decode_contexts"}.get(k, k)
        if getattr(a, attr) is None:
            setattr(a, attr, v)
    a.models = [m.strip() for m in a.models.split(",") if m.strip()]
    bad = [m for m in a.models if m not in MODELS]
    if bad:
        p.error("unknown model(s) %s; known: %s" % (",".join(bad), ",".join(MODELS)))
    if a.steps < 1 or a.repeats < 1:
        p.error("--steps and --repeats must be at least 1")
    resolve_output_paths(p, a, "serving_bench")
    return a


def model_config(name, tiny):
    cls, cfg = MODELS[name]
    cfg = dict(cfg, **TINY) if tiny else dict(cfg)
    return ("tiny-" + name if tiny else name), cls, cfg


def make_plan(a):
    ints = lambda s: [int(x) for x in str(s).split(",") if x]
    prefill = [tuple(int(v) for v in x.split("x")) for x in a.prefill.split(",") if x]
    plan = []
    for name in a.models:
        label = model_config(name, a.tiny)[0]
        # Decode first: it is what this script is for; prefill is cheap and comes after.
        plan += [dict(model=label, kind="decode", batch=b, context_tokens=c)
                 for c in ints(a.decode_contexts) for b in ints(a.decode_batches)]
        plan += [dict(model=label, kind="prefill", batch=b, prompt_tokens=s) for b, s in prefill]
    return plan


def head_dim(cfg):
    return cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]


def kv_bytes(cfg, tokens, elem_bytes):
    per_token = 2 * cfg["num_hidden_layers"] * cfg["num_key_value_heads"] * head_dim(cfg)
    return per_token * elem_bytes * tokens


def param_count(cls, cfg):
    """Parameters of the decoder (Decoder below has exactly these), and those a decode step reads:
    all, less the input embedding table unless it is tied to the output head."""
    D, I, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    H, KV, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], head_dim(cfg)
    qkv = (H + 2 * KV) * hd
    bias = qkv if (cls == "Qwen2Config" or cfg.get("attention_bias")) else 0
    layer = 2 * D + qkv * D + bias + D * H * hd + 3 * I * D
    tied = bool(cfg.get("tie_word_embeddings"))
    total = cfg["num_hidden_layers"] * layer + D + V * D * (1 if tied else 2)
    return total, total - (0 if tied else V * D)


def cache_len(context, a):
    """Slots per sequence: the cached tokens, plus every step run on them, rounded up."""
    need = context + a.warmup_steps + a.steps + 4  # +4: the side-stream warm-up calls (3)
    return -(-need // ROUND_CACHE) * ROUND_CACHE


def min_share(a, batch):
    if a.min_share is not None:
        return a.min_share
    return MIN_SHARE_LARGE if batch >= LARGE_BATCH else MIN_SHARE_SMALL


def rule_text(a):
    if a.min_share is not None:
        floor = "%g at every batch (--min-share)" % a.min_share
    else:
        floor = "%g at batch >= %d and %g below" % (MIN_SHARE_LARGE, LARGE_BATCH, MIN_SHARE_SMALL)
    return ("bound_ms = (weight bytes read per step + K/V bytes of batch x cached tokens) / peak "
            "memory bandwidth; achieved_share = bound_ms / measured ms per step; a decode figure "
            "is recorded (status 'accepted') only if min_share <= achieved_share <= 1, with "
            "min_share " + floor + "; "
            "otherwise status 'rejected' with the reason, the values kept only under "
            "'rejected_measurement', and the run exits 2 if every measured decode record was "
            "rejected. On a CPU records are '" + CPU_STATUS + "' and the rule does not apply.")


def judge(r, floor, batch):
    """Apply the rule to a measured decode record r (with achieved_share): accepted, or rejected
    with the reason and the measured values moved under rejected_measurement."""
    share = r["achieved_share"]
    r["min_share"] = floor
    if floor <= share <= 1.0:
        r["status"] = "accepted"
        return r
    if share < floor:
        why = "below the minimum %g for batch %d" % (floor, batch)
    else:
        why = "above 1: faster than the memory allows, so the timing or the byte count is wrong"
    kept = {k: r.pop(k) for k in ("ms_per_step", "tokens_per_s", "ms_per_step_mean",
                                  "ms_per_step_min") if k in r}
    r.update(status="rejected", rejected_measurement=kept,
             rejected="achieved share %.3f of the memory-bandwidth bound is %s" % (share, why))
    return r


def peak_bw_from_name(name):
    """GB/s for a device name, or None. 'NVIDIA H100 80GB HBM3' is the SXM part; the PCIe and
    NVL parts have other bandwidths, and a GH200's Hopper has another memory."""
    if not name:
        return None
    n = name.upper()
    if "H200" in n and "GH200" not in n:
        return dict(PEAK_BW_GBS)["H200"]
    if "H100" in n and ("SXM" in n or "HBM3" in n) and "NVL" not in n and "PCIE" not in n:
        return dict(PEAK_BW_GBS)["H100 SXM"]
    return None


class Clock:
    """CUDA events on a GPU (async marks, read after one synchronize), perf_counter on a CPU."""
    def __init__(self, torch, dev):
        self.torch, self.cuda = torch, dev.type == "cuda"

    def mark(self):
        if not self.cuda:
            return time.perf_counter()
        ev = self.torch.cuda.Event(enable_timing=True)
        ev.record()
        return ev

    def ms(self, a, b):
        return a.elapsed_time(b) if self.cuda else (b - a) * 1e3

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()


def build(torch, transformers, cls, cfg, dev, dtype, attn, notes):
    """A Hugging Face model with random weights (used by training_bench.py; this script's own
    measurements use Decoder below)."""
    kw = dict(cfg)
    try:
        config = getattr(transformers, cls)(**kw)
    except ValueError as e:  # transformers < 4.43 rejects rope_type "llama3"
        kw.pop("rope_scaling", None)
        config = getattr(transformers, cls)(**kw)
        notes.append("rope_scaling dropped (%s); same cost per token" % str(e).splitlines()[0])
    extra = {"attn_implementation": attn} if attn else {}
    # Build straight on the device where torch supports a device context (torch >= 2.0).
    where = dev if hasattr(torch.device, "__enter__") else contextlib.nullcontext()
    with where:
        try:
            model = transformers.AutoModelForCausalLM.from_config(config, torch_dtype=dtype, **extra)
        except (TypeError, ValueError) as e:
            notes.append("attn_implementation %r refused (%s); default used" % (attn, e))
            model = transformers.AutoModelForCausalLM.from_config(config, torch_dtype=dtype)
    model.to(dev)
    if next(model.parameters()).dtype != dtype:
        notes.append("torch_dtype ignored by from_config; model cast with .to(dtype)")
        model.to(dtype)
    return model.eval()


def rope_inv_freq(torch, cfg):
    """Inverse frequencies of the rotary embedding, with Llama 3's scaling when the config has it
    (the formula of transformers' _compute_llama3_parameters)."""
    hd = head_dim(cfg)
    inv = 1.0 / (cfg.get("rope_theta", 10000.0)
                 ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))
    rs = cfg.get("rope_scaling") or {}
    if rs.get("rope_type", rs.get("type")) == "llama3":
        factor, lo, hi = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"]
        old = rs["original_max_position_embeddings"]
        lo_wave, hi_wave = old / lo, old / hi
        wave = 2 * math.pi / inv
        scaled = torch.where(wave > lo_wave, inv / factor, inv)
        smooth = (old / wave - lo) / (hi - lo)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = (wave >= hi_wave) & (wave <= lo_wave)
        inv = torch.where(medium, smoothed, scaled)
    elif rs:
        raise ValueError("rope_scaling %r not implemented" % (rs,))
    return inv.float()


class Decoder:
    """A Llama-style decoder in plain PyTorch with random weights, for timing and the self-test.

    Weights per layer: attn_norm, wqkv [(H + 2 KV) hd, D] (+ bqkv for Qwen2), wo [D, H hd],
    mlp_norm, w13 [2 I, D] (gate rows then up rows), w2 [D, I]; then norm, embed [V, D] and
    lm_head (the embedding when tied). Attention follows transformers' Llama: query head h uses
    K/V head h // (H / KV)."""

    def __init__(self, torch, cls, cfg, dev, dtype, seed=0):
        self.t, self.cfg, self.dev, self.dtype = torch, cfg, dev, dtype
        D, I = cfg["hidden_size"], cfg["intermediate_size"]
        self.H, self.KV = cfg["num_attention_heads"], cfg["num_key_value_heads"]
        self.hd = head_dim(cfg)
        self.G = self.H // self.KV
        self.eps = cfg["rms_norm_eps"]
        self.tied = bool(cfg.get("tie_word_embeddings"))
        qkv_bias = cls == "Qwen2Config" or bool(cfg.get("attention_bias"))
        torch.manual_seed(seed)
        qkv_rows = (self.H + 2 * self.KV) * self.hd

        def mat(rows, cols):  # fan-in scaled, so activations stay O(1) through the layers
            return torch.randn(rows, cols, device=dev, dtype=dtype).mul_(cols ** -0.5)

        ones = lambda n: torch.ones(n, device=dev, dtype=dtype)
        self.layers = []
        for _ in range(cfg["num_hidden_layers"]):
            self.layers.append(dict(
                attn_norm=ones(D), wqkv=mat(qkv_rows, D),
                bqkv=(torch.randn(qkv_rows, device=dev, dtype=dtype).mul_(0.1)
                      if qkv_bias else None),
                wo=mat(D, self.H * self.hd), mlp_norm=ones(D), w13=mat(2 * I, D), w2=mat(D, I)))
        self.norm = ones(D)
        self.embed = mat(cfg["vocab_size"], D)  # scaled too: when tied it is the output head
        self.lm_head = self.embed if self.tied else mat(cfg["vocab_size"], D)
        self.inv_freq = rope_inv_freq(torch, cfg).to(dev)
        self.cos = self.sin = self.arange = None
        # Decode applies the rotary embedding to the whole q|k|v output of one layer at once:
        # rotate_half(x) = x @ rot (a signed permutation: exact), and the v heads get cos 1, sin 0.
        half = self.hd // 2
        rot = torch.zeros(self.hd, self.hd, dtype=torch.float32)
        for j in range(half):
            rot[j + half, j], rot[j, j + half] = -1.0, 1.0
        self.rot = rot.to(device=dev, dtype=dtype)
        self.v_cos = torch.ones(self.KV, self.hd, device=dev, dtype=dtype)
        self.v_sin = torch.zeros(self.KV, self.hd, device=dev, dtype=dtype)
        self.eps_t = torch.full((1,), self.eps, device=dev, dtype=torch.float32)
        self.sdpa = getattr(torch.nn.functional, "scaled_dot_product_attention", None)

    def tensors(self):
        out = [self.norm, self.embed] + ([] if self.tied else [self.lm_head])
        for layer in self.layers:
            out += [v for v in layer.values() if v is not None]
        return out

    def params(self):
        return sum(x.numel() for x in self.tensors())

    def weight_bytes(self):
        return sum(x.numel() * x.element_size() for x in self.tensors())

    def weights_read_bytes(self):
        """Bytes one decode step must read: every weight, less the input embedding table (only
        B rows of it are read) unless it is also the output head."""
        table = 0 if self.tied else self.embed.numel() * self.embed.element_size()
        return self.weight_bytes() - table

    def ensure_positions(self, n):
        """cos/sin tables (float32, [n, hd], as transformers builds them); an arange for masks."""
        if self.cos is not None and self.cos.shape[0] >= n:
            return
        t = self.t
        pos = t.arange(n, device=self.dev, dtype=t.float32)
        freqs = t.outer(pos, self.inv_freq)
        emb = t.cat([freqs, freqs], dim=-1)
        self.cos, self.sin = emb.cos(), emb.sin()
        self.arange = t.arange(n, device=self.dev)

    def new_cache(self, batch, length, fill=None):
        """Per layer one preallocated tensor [2, batch, kv_heads, length, head_dim]: K then V."""
        cache = []
        for _ in self.layers:
            x = self.t.empty((2, batch, self.KV, length, self.hd),
                             device=self.dev, dtype=self.dtype)
            if fill == "random":
                x.normal_()
            elif fill is not None:
                x.fill_(fill)
            else:
                x.zero_()
            cache.append(x)
        return cache

    def rmsnorm(self, x, w):
        """transformers' LlamaRMSNorm: w * (x32 * rsqrt(mean(x32^2) + eps)).to(dtype), in fewer
        kernels (the sum of squares in float32 straight from x)."""
        t = self.t
        n = t.linalg.vector_norm(x, dim=-1, keepdim=True, dtype=t.float32)
        rstd = t.addcmul(self.eps_t, n, n, value=1.0 / x.shape[-1]).rsqrt_()
        return w * (x * rstd).to(x.dtype)

    @staticmethod
    def rope(x, cos, sin):
        half = x.shape[-1] // 2
        rot = x.new_empty(x.shape)
        rot[..., :half] = -x[..., half:]
        rot[..., half:] = x[..., :half]
        return x * cos + rot * sin

    def qkv(self, x, layer):
        """[B, S, D] -> q [B, H, S, hd], k and v [B, KV, S, hd]."""
        F = self.t.nn.functional
        B, S, _ = x.shape
        h = F.linear(self.rmsnorm(x, layer["attn_norm"]), layer["wqkv"], layer["bqkv"])
        q, k, v = h.split([self.H * self.hd, self.KV * self.hd, self.KV * self.hd], dim=-1)
        q = q.view(B, S, self.H, self.hd).transpose(1, 2)
        k = k.view(B, S, self.KV, self.hd).transpose(1, 2)
        v = v.view(B, S, self.KV, self.hd).transpose(1, 2)
        return q, k, v

    def mlp(self, x, layer):
        F = self.t.nn.functional
        gate, up = F.linear(self.rmsnorm(x, layer["mlp_norm"]), layer["w13"]).chunk(2, dim=-1)
        return x + F.linear(F.silu(gate) * up, layer["w2"])

    def causal_attention(self, q, k, v):
        """q [B, H, S, hd], k and v [B, KV, S, hd], causal from position 0."""
        t = self.t
        k = k.repeat_interleave(self.G, dim=1)
        v = v.repeat_interleave(self.G, dim=1)
        if self.sdpa is not None:
            return self.sdpa(q, k, v, is_causal=True)
        S = q.shape[2]
        s = t.matmul(q, k.transpose(2, 3)).float() * self.hd ** -0.5
        s = s.masked_fill(t.ones(S, S, dtype=t.bool, device=q.device).triu(1), float("-inf"))
        return t.matmul(s.softmax(-1).to(q.dtype), v)

    def forward(self, ids, cache=None, all_logits=False):
        """Prefill from position 0: ids [B, S]; writes K/V into cache[:, :, :S] if given; returns
        logits for the last position [B, V], or for every position [B, S, V]."""
        F = self.t.nn.functional
        B, S = ids.shape
        self.ensure_positions(S)
        cos, sin = self.cos[:S].to(self.dtype), self.sin[:S].to(self.dtype)
        x = F.embedding(ids, self.embed)
        for i, layer in enumerate(self.layers):
            q, k, v = self.qkv(x, layer)
            q, k = self.rope(q, cos, sin), self.rope(k, cos, sin)
            if cache is not None:
                cache[i][0, :, :, :S].copy_(k)
                cache[i][1, :, :, :S].copy_(v)
            o = self.causal_attention(q, k, v).transpose(1, 2).reshape(B, S, self.H * self.hd)
            x = self.mlp(x + F.linear(o, layer["wo"]), layer)
        if not all_logits:
            x = x[:, -1]
        return F.linear(self.rmsnorm(x, self.norm), self.lm_head)

    def step_logits(self, tok, pos, cache, attn="matmul"):
        """One decode step: tok [B, 1] (long), pos [1] (long): both device tensors, so a captured
        graph reads their current values. Writes K/V at pos, attends over the whole cache with the
        slots after pos masked; returns logits [B, V]. Written for few kernels per layer (a CUDA
        graph replays each one): rotary embedding on q|k|v at once, one index_copy_ for K and V,
        scores with the mask added in the same baddbmm, residual adds inside the GEMMs (addmm_)."""
        t = self.t
        B, H, KV, G, hd = tok.shape[0], self.H, self.KV, self.G, self.hd
        L = cache[0].shape[3]
        cos = t.cat([self.cos.index_select(0, pos).to(self.dtype).expand(H + KV, hd), self.v_cos])
        sin = t.cat([self.sin.index_select(0, pos).to(self.dtype).expand(H + KV, hd), self.v_sin])
        neg = t.zeros(1, 1, L, device=self.dev, dtype=self.dtype).masked_fill(
            self.arange[:L] > pos, float("-inf"))  # the slots after pos
        scale = hd ** -0.5
        x = t.nn.functional.embedding(tok, self.embed).view(B, -1)  # [B, D], updated in place
        for i, layer in enumerate(self.layers):
            qkv = t.nn.functional.linear(self.rmsnorm(x, layer["attn_norm"]), layer["wqkv"],
                                         layer["bqkv"]).view(B, H + 2 * KV, hd)
            qkv = t.addcmul(qkv * cos, t.matmul(qkv, self.rot), sin)  # rope on q and k; v as is
            kv = cache[i]  # [2, B, KV, L, hd]
            kv.index_copy_(3, pos, qkv[:, H:].view(B, 2, KV, 1, hd).transpose(0, 1))
            if attn == "sdpa":
                o = self.sdpa(qkv[:, :H].reshape(B, KV, G, hd), kv[0], kv[1],
                              attn_mask=neg.view(1, 1, 1, L))
            else:  # each K/V head serves its G query heads, the cache read once
                s = t.baddbmm(neg, qkv[:, :H].reshape(B * KV, G, hd),
                              kv[0].view(B * KV, L, hd).transpose(1, 2), alpha=scale)
                o = t.bmm(t.softmax(s, dim=-1), kv[1].view(B * KV, L, hd))  # [B KV, G, hd]
            x.addmm_(o.reshape(B, H * hd), layer["wo"].t())
            gate, up = t.nn.functional.linear(
                self.rmsnorm(x, layer["mlp_norm"]), layer["w13"]).chunk(2, dim=-1)
            x.addmm_(t.nn.functional.silu(gate) * up, layer["w2"].t())
        return t.nn.functional.linear(self.rmsnorm(x, self.norm), self.lm_head)

    def step(self, tok, pos, cache, attn="matmul"):
        """step_logits, then greedy: the argmax goes back into tok and pos advances (in place)."""
        logits = self.step_logits(tok, pos, cache, attn)
        tok.copy_(logits.argmax(-1, keepdim=True))
        pos.add_(1)
        return logits


def rule_checks(a):
    """The refusal rule, the bandwidth table and the byte counts, without torch: (name, ok)."""
    out = []
    acc = judge(dict(achieved_share=0.6, ms_per_step=1.0, tokens_per_s=8e3), 0.5, 8)
    out.append(("share 0.6 at batch 8 accepted", acc["status"] == "accepted"
                and acc["ms_per_step"] == 1.0))
    rej = judge(dict(achieved_share=0.4, ms_per_step=1.0, tokens_per_s=8e3), 0.5, 8)
    out.append(("share 0.4 at batch 8 rejected, figures kept only under rejected_measurement",
                rej["status"] == "rejected" and "ms_per_step" not in rej
                and "tokens_per_s" not in rej
                and rej["rejected_measurement"]["ms_per_step"] == 1.0))
    out.append(("share 1.2 rejected",
                judge(dict(achieved_share=1.2), 0.3, 1)["status"] == "rejected"))
    d = argparse.Namespace(min_share=None)
    out.append(("default min share 0.3 at batch 1 and 4, 0.5 at 8 and 128",
                [min_share(d, b) for b in (1, 4, 8, 128)] == [0.3, 0.3, 0.5, 0.5]))
    out.append(("--min-share applies to every batch",
                min_share(argparse.Namespace(min_share=0.7), 1) == 0.7))
    rec = lambda st: dict(kind="decode", status=st)
    out.append(("exit 2 when every measured decode record is rejected",
                decode_verdict(dict(records=[rec("rejected"), rec("rejected"),
                                             dict(kind="decode", skipped="x")]), True) == 2))
    out.append(("exit 0 when one is accepted, or none was measured",
                decode_verdict(dict(records=[rec("rejected"), rec("accepted")]), True) == 0
                and decode_verdict(dict(records=[rec(CPU_STATUS)]), True) == 0))
    names = {"NVIDIA H200": 4800.0, "NVIDIA H200 NVL": 4800.0, "NVIDIA H100 80GB HBM3": 3350.0,
             "NVIDIA H100 PCIe": None, "NVIDIA H100 NVL": None, "NVIDIA GH200 480GB": None,
             "NVIDIA A100-SXM4-80GB": None}
    out.append(("peak bandwidth by device name",
                all(peak_bw_from_name(n) == bw for n, bw in names.items())))
    counts = {n: param_count(*model_config(n, False)[1:])[0] for n in MODELS}
    # Published totals: 8.03B, 7.62B, 1.24B (tied).
    out.append(("parameter counts of the published shapes",
                counts == {"llama-3.1-8b": 8030261248, "qwen2.5-7b": 7615616512,
                           "llama-3.2-1b": 1235814400}))
    out.append(("KV bytes per token, Llama 3.1 8B bf16: 128 KiB",
                kv_bytes(MODELS["llama-3.1-8b"][1], 1, 2) == 131072))
    return out


def self_test(a):
    """CPU, float32, tiny configs of every model kind: prefill P tokens into a static cache whose
    other slots hold junk, then decode T tokens one step at a time (the token fed is the
    sequence's own, so the two paths see the same input); the logits of every step, and of the
    prefill's last position, must match those of one full forward over all P + T tokens."""
    results, ok = [], True
    print("self-test: the rule, the bandwidth table and the byte counts (no torch needed)")
    for what, passed in rule_checks(a):
        print("  rule: %-76s %s" % (what, "PASS" if passed else "FAIL"))
        ok &= passed
        results.append(passed)
    import torch
    torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
    dev, dtype, tol = torch.device("cpu"), torch.float32, 1e-4  # x max(1, max|logits|)
    B, P, T = 3, 13, 9
    has_sdpa = hasattr(torch.nn.functional, "scaled_dot_product_attention")
    attns = ["matmul"] + (["sdpa"] if has_sdpa else [])
    print("self-test: static-cache decode against a full forward: torch %s, CPU, float32, "
          "batch %d, prompt %d, decode %d steps, tolerance %g x max(1, max|logits|); "
          "decode attention: %s" % (torch.__version__, B, P, T, tol, ", ".join(attns)))
    cases = [model_config(name, tiny=True) for name in MODELS]
    # Qwen2.5 7B's group of 7 query heads per K/V head, with heads x head_dim != hidden_size.
    _, cls, cfg = model_config("qwen2.5-7b", tiny=True)
    cases.append(("tiny-qwen-gqa7", cls, dict(cfg, num_attention_heads=14, num_key_value_heads=2,
                                                head_dim=32)))
    with torch.no_grad():
        for label, cls, cfg in cases:
            m = Decoder(torch, cls, cfg, dev, dtype, seed=a.seed)
            counted = param_count(cls, cfg)
            passed = counted == (m.params(), m.weights_read_bytes() // 4)
            print("  %-22s parameters %d, read per step %d, as param_count says: %s"
                  % (label, m.params(), m.weights_read_bytes() // 4, "PASS" if passed else "FAIL"))
            ok &= passed
            results.append(passed)
            ids = torch.randint(0, cfg["vocab_size"], (B, P + T))
            full = m.forward(ids, all_logits=True)  # [B, P+T, V]
            for attn in attns:
                L = P + T + 7  # slots past the sequence, to prove the mask hides them
                cache = m.new_cache(B, L, fill=1e3)  # junk everywhere before the prefill
                m.ensure_positions(L)
                last = m.forward(ids[:, :P], cache=cache)
                d_prefill = (last - full[:, P - 1]).abs().max().item()
                tok = ids[:, P:P + 1].clone()
                pos = torch.tensor([P], dtype=torch.long)
                d_decode, argmax_ok = 0.0, True
                for s in range(T):
                    tok.copy_(ids[:, P + s:P + s + 1])
                    logits = m.step(tok, pos, cache, attn)
                    d_decode = max(d_decode, (logits - full[:, P + s]).abs().max().item())
                    argmax_ok &= bool((tok[:, 0] == logits.argmax(-1)).all())
                pos_ok = pos.item() == P + T
                scale = full.abs().max().item()
                lim = tol * max(1.0, scale)
                passed = d_prefill < lim and d_decode < lim and argmax_ok and pos_ok
                ok &= passed
                results.append(passed)
                print("  %-22s %-6s max|logits| %.3g  prefill max|diff| %.2e  decode max|diff| "
                      "%.2e  argmax fed back %s  pos advanced %s  %s"
                      % (label, attn, scale, d_prefill, d_decode, argmax_ok, pos_ok,
                         "PASS" if passed else "FAIL"))
    print("self-test: %d passed, %d failed" % (sum(results), len(results) - sum(results)))
    return 0 if ok else 1


def run(a, plan, doc, emit):
    import torch
    dev, dtype = torch.device(a.device), getattr(torch, a.dtype)
    cuda = dev.type == "cuda"
    clock = Clock(torch, dev)
    oom_type = getattr(torch.cuda, "OutOfMemoryError", RuntimeError)
    gpu = torch.cuda.get_device_name(dev) if cuda else None
    bw = a.peak_bw_gbs or peak_bw_from_name(gpu)
    mode = a.mode if cuda else "eager"
    doc.update(torch=torch.__version__, cuda=torch.version.cuda, device=str(dev), gpu=gpu,
               peak_bw_gbs=bw, peak_bw_source=("--peak-bw-gbs" if a.peak_bw_gbs else
                                               "device name" if bw else None),
               decode_mode=mode)
    resolve_gpu(a, gpu)
    if a.dtype != "bfloat16":
        print("serving_bench: --dtype %s: the measurement records are bf16 only, so none are "
              "written" % a.dtype, file=sys.stderr)
    if cuda and not bw:
        raise SystemExit("serving_bench: no peak bandwidth known for %r; pass --peak-bw-gbs "
                         "(GB/s, from the card's datasheet)" % gpu)
    if a.decode_attn == "sdpa" and not hasattr(torch.nn.functional, "scaled_dot_product_attention"):
        raise SystemExit("serving_bench: --decode-attn sdpa needs torch >= 2.0")

    def reset():
        gc.collect()
        if cuda:
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats(dev)

    def fits(need):
        """None if need bytes fit in the free device memory (with 1 GiB to spare), else why not."""
        if not cuda:
            return None
        free, total = torch.cuda.mem_get_info(dev)
        if need + (1 << 30) <= free:
            return None
        return "does not fit in memory: needs about %.2f GiB, %.2f GiB free of %.1f" % (
            need / 2**30, free / 2**30, total / 2**30)

    def prefill(m, B, S):
        cfg = m.cfg
        elem = m.embed.element_size()
        need = (kv_bytes(cfg, B * S, elem) + B * S * (2 * cfg["intermediate_size"] +
                4 * (m.H + 2 * m.KV) * m.hd + 4 * cfg["hidden_size"]) * elem)
        why = fits(need)
        if why:
            return dict(skipped=why)
        ids = torch.randint(0, cfg["vocab_size"], (B, S), device=dev)
        cache = m.new_cache(B, S)
        m.ensure_positions(S)
        times = []
        for i in range(a.warmup + a.repeats):
            t0 = clock.mark()
            m.forward(ids, cache=cache)
            t1 = clock.mark()
            clock.sync()
            if i >= a.warmup:
                times.append(clock.ms(t0, t1))
        ms = statistics.median(times)
        matmul_params = m.params() - (0 if m.tied else m.embed.numel())
        r = dict(mode="eager", ms=ms, tokens_per_s=B * S * 1e3 / ms,
                 ms_runs=[round(t, 3) for t in times],
                 linear_tflops=2 * matmul_params * B * S / ms / 1e9,
                 attention="causal scaled_dot_product_attention" if m.sdpa is not None
                 else "causal matmul + softmax (torch without SDPA)")
        if not cuda:
            r["status"] = CPU_STATUS
        return r

    def time_calls(call, n):
        """Per-call ms of n consecutive calls (CUDA events between calls)."""
        marks = []
        for _ in range(n):
            marks.append(clock.mark())
            call()
        marks.append(clock.mark())
        clock.sync()
        return [clock.ms(marks[i], marks[i + 1]) for i in range(n)]

    def decode(m, B, C):
        cfg = m.cfg
        elem = m.embed.element_size()
        L = cache_len(C, a)
        V = cfg["vocab_size"]
        act = (B * V * (elem + 8) + B * m.H * L * (2 * elem + 4)
               + B * (2 * cfg["intermediate_size"] + 4 * cfg["hidden_size"]) * elem)
        why = fits(kv_bytes(cfg, B * L, elem) + 2 * act)
        if why:
            return dict(skipped=why)
        m.ensure_positions(L)
        cache = m.new_cache(B, L, fill="random")
        tok = torch.randint(0, V, (B, 1), device=dev)
        pos = torch.tensor([C], dtype=torch.long, device=dev)
        fn = lambda: m.step(tok, pos, cache, a.decode_attn)
        last = []  # the logits of the latest call, for the check below
        if mode == "graph":
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    fn()
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                last.append(fn())  # a static output: every replay rewrites it
            call = graph.replay
            note = "one captured torch.cuda.CUDAGraph per (batch, cache), replayed"
        elif mode == "compile":
            core = torch.compile(lambda tk, ps: m.step_logits(tk, ps, cache, a.decode_attn),
                                 mode="reduce-overhead")

            def call():
                logits = core(tok, pos)
                tok.copy_(logits.argmax(-1, keepdim=True))
                pos.add_(1)
                last[:] = [logits]
            for _ in range(3):
                call()
            note = "torch.compile(mode='reduce-overhead') of the step; argmax and pos eager"
        else:
            def call():
                last[:] = [fn()]
            note = "eager calls of the static-cache step (no graph)"
        clock.sync()
        pos.fill_(C)
        times = time_calls(call, a.warmup_steps + a.steps)[a.warmup_steps:]
        assert int(pos.item()) == C + a.warmup_steps + a.steps, "pos did not advance per step"
        ms = statistics.median(times)
        # The timed call must compute what the eager step computes, at a position other than
        # the one the graph was captured at (C + 3) and with fresh tokens.
        probe, start = C + 1, torch.randint(0, V, (B, 1), device=dev)
        tok.copy_(start)
        pos.fill_(probe)
        ref = m.step_logits(tok, pos, cache, a.decode_attn).float()
        tok.copy_(start)
        pos.fill_(probe)
        call()
        clock.sync()
        diff = (last[0].float() - ref).abs().max().item()
        scale = ref.abs().max().item()
        tol = (5e-2 if mode == "compile" else 1e-2) * max(scale, 1e-6)
        check = dict(position=probe, max_abs_diff=diff, max_abs_logit=scale, tolerance=tol,
                     passed=bool(diff <= tol))
        w_read = m.weights_read_bytes()
        kv_read = kv_bytes(cfg, B * C, elem)
        r = dict(mode=mode, decode_attn=a.decode_attn, how=note, cache_slots=L,
                 kv_cache_bytes=kv_bytes(cfg, B * L, elem), steps=a.steps,
                 ms_per_step=ms, tokens_per_s=B * 1e3 / ms,
                 ms_per_step_mean=statistics.mean(times), ms_per_step_min=min(times),
                 check_against_eager_step=check)
        if bw:
            bound = (w_read + kv_read) / (bw * 1e9) * 1e3
            r["bound"] = dict(weights_read_bytes=w_read, kv_read_bytes=kv_read,
                              peak_bw_gbs=bw, bound_ms=bound,
                              bound_tokens_per_s=B * 1e3 / bound)
            r["achieved_share"] = bound / ms
        if not cuda:
            r["status"] = CPU_STATUS
            return r
        r = judge(r, min_share(a, B), B)
        if not check["passed"]:
            kept = {k: r.pop(k) for k in ("ms_per_step", "tokens_per_s", "ms_per_step_mean",
                                          "ms_per_step_min") if k in r}
            r.setdefault("rejected_measurement", {}).update(kept)
            why = ("the timed %s step's logits differ from the eager step's by %.3g "
                   "(tolerance %.3g)" % (mode, diff, tol))
            r.update(status="rejected",
                     rejected=r["rejected"] + "; " + why if r.get("rejected") else why)
        return r

    def guarded(fn, *args):
        try:
            return fn(*args)
        except Exception as e:  # recorded, not fatal: one failure must not lose the run
            oom = isinstance(e, oom_type) or "out of memory" in str(e).lower()
            msg = (str(e).splitlines() or [""])[0][:300]
            return dict(error="%s: %s" % (type(e).__name__, msg), out_of_memory=oom)

    t_start = doc["_t0"]
    over = lambda: time.monotonic() - t_start > a.budget_s
    for name in a.models:
        label, cls, cfg = model_config(name, a.tiny)
        todo = [m for m in plan if m["model"] == label]
        if over():
            for m in todo:
                emit(dict(m, skipped="time budget exceeded"))
            continue
        t0 = time.monotonic()
        reset()
        with torch.no_grad():
            model = guarded(Decoder, torch, cls, cfg, dev, dtype, a.seed)
        if isinstance(model, dict):  # build failed
            for m in todo:
                emit(dict(m, **model))
            reset()
            continue
        if cuda:
            clock.sync()
        doc["models"][label] = dict(
            config_class=cls, config=cfg, build_s=round(time.monotonic() - t0, 2),
            params=model.params(), weights_bytes=model.weight_bytes(),
            weights_read_per_decode_step_bytes=model.weights_read_bytes(),
            kv_bytes_per_token=kv_bytes(cfg, 1, model.embed.element_size()))
        with torch.no_grad():
            for m in todo:
                if over():
                    emit(dict(m, skipped="time budget exceeded"))
                    continue
                reset()
                if m["kind"] == "prefill":
                    r = guarded(prefill, model, m["batch"], m["prompt_tokens"])
                else:
                    r = guarded(decode, model, m["batch"], m["context_tokens"])
                gc.collect()
                r["peak_memory_bytes"] = torch.cuda.max_memory_allocated(dev) if cuda else None
                emit(dict(m, **r))
        del model
        reset()


def decode_verdict(doc, quiet=False):
    """Exit 2 when every decode record that was measured on a GPU was rejected."""
    measured = [r for r in doc.get("records", []) if r.get("kind") == "decode"
                and r.get("status") in ("accepted", "rejected")]
    if measured and all(r["status"] == "rejected" for r in measured):
        if not quiet:
            print("serving_bench: every decode figure (%d) was rejected by the bound rule"
                  % len(measured), file=sys.stderr)
        return 2
    return 0


def main(argv=None):
    t0 = time.monotonic()
    a = parse_args(argv)
    if a.self_test:
        return self_test(a)
    plan = make_plan(a)
    doc = dict(
        tool="bench/serving_bench.py",
        note="gpu-advise's own measurement: a pure-PyTorch Llama-style decoder with random "
             "weights, static KV cache, decode under CUDA graphs, one device",
        started_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        python=platform.python_version(), device=a.device, dtype=a.dtype,
        decode_mode=a.mode, decode_attn=a.decode_attn, budget_s=a.budget_s,
        peak_bw_gbs=a.peak_bw_gbs or "from the device name: " + ", ".join(
            "%s %g GB/s" % kv for kv in PEAK_BW_GBS) + "; otherwise --peak-bw-gbs is required",
        rule=rule_text(a),
        method=dict(
            prefill="median of %d after %d warm-up; one forward from position 0 writing a "
                    "preallocated KV cache, causal SDPA, logits for the last position only"
                    % (a.repeats, a.warmup),
            decode="median of %d single-token steps after %d warm-up steps, each step timed; "
                   "static preallocated KV cache [B, kv_heads, slots, head_dim] per layer with "
                   "slots = cached tokens + steps rounded up to %d, random contents; greedy token "
                   "and position fed back on the device; mode %s"
                   % (a.steps, a.warmup_steps, ROUND_CACHE, a.mode),
            bound="(weights read per step + K/V of batch x cached tokens) / peak bandwidth",
            timing="CUDA events (perf_counter on CPU)"),
        models={}, records=[])
    if a.dry_run:  # what the rule will compare against, at the flag's bandwidth or an H200's
        bw = a.peak_bw_gbs or dict(PEAK_BW_GBS)["H200"]
        for m in plan:
            if m["kind"] == "decode":
                name = m["model"][len("tiny-"):] if a.tiny else m["model"]
                _, cls, cfg = model_config(name, a.tiny)
                kv = kv_bytes(cfg, m["batch"] * m["context_tokens"], 2)
                read = param_count(cls, cfg)[1] * 2 + kv
                m["bound_ms_bf16_at_%g_gbs" % bw] = round(read / (bw * 1e9) * 1e3, 4)
                m["min_share"] = min_share(a, m["batch"])
    return record_and_run(a, plan, doc, run, t0, verdict=decode_verdict, to_record=serving_record)


def record_and_run(a, plan, doc, run, t0, verdict=None, to_record=None):
    """The end of a bench script's main(), shared: with --dry-run print the plan;
    otherwise run it, appending each record, showing progress on stderr and
    rewriting --details (the detailed JSON) and --out (the measurement records,
    to_record(a, doc, record, used_ids) of each record that is not None, one JSON
    object a line) after every record so a killed run keeps what it measured.
    Exit status 1 when a measurement failed other than by running out of memory,
    else verdict(doc) when given (0 if it has nothing against the run)."""
    if a.dry_run:
        doc.update(dry_run=True, plan=plan, models={
            lbl: dict(config_class=cls, config=cfg)
            for lbl, cls, cfg in (model_config(n, a.tiny) for n in a.models)})
        del doc["records"]
        print(json.dumps(doc, indent=2))
        return 0
    doc["_t0"] = t0
    measurements, used = [], set()

    def dump(path, text):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def write():
        out = {k: v for k, v in doc.items() if k != "_t0"}
        out.update(elapsed_s=round(time.monotonic() - t0, 1),
                   skipped=sum(1 for r in doc["records"] if "skipped" in r))
        out["budget_exceeded"] = any(r.get("skipped") == "time budget exceeded"
                                     for r in doc["records"])
        out["measurement_records"] = dict(file=a.out, count=len(measurements))
        if a.details:
            dump(a.details, json.dumps(out, indent=2) + "\n")
        if a.out:
            dump(a.out, "".join(json.dumps(m) + "\n" for m in measurements))
        return out

    def emit(rec):
        doc["records"].append(rec)
        shown = {k: (round(v, 3) if isinstance(v, float) else v)
                 for k, v in rec.items() if k not in ("ms_runs", "how")}
        print("[%6.1fs] %s" % (time.monotonic() - t0, json.dumps(shown)), file=sys.stderr)
        m = to_record(a, doc, rec, used) if to_record else None
        if m is not None:
            measurements.append(m)
        write()

    run(a, plan, doc, emit)
    print(json.dumps(write(), indent=2))
    if a.out:
        print("%s: %d measurement record(s) in %s%s" % (
            a.prog, len(measurements), a.out,
            "; details in %s" % a.details if a.details else ""), file=sys.stderr)
    errors = [r for r in doc["records"] if "error" in r and not r.get("out_of_memory")]
    if errors:
        return 1
    return verdict(doc) if verdict else 0


if __name__ == "__main__":
    sys.exit(main())
