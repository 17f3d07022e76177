#!/usr/bin/env python3
"""Serving-speed measurement for gpu-advise: prefill and decode of real model shapes on one GPU.

What it measures, with plain Hugging Face transformers (eager PyTorch, no serving engine):
  * prefill: one forward over a batch B x prompt S (KV cache written, logits for the last
    position only, as a serving engine computes them); ms and prompt tokens/s.
  * decode: time per single-token step at batch B with a KV cache pre-filled to C tokens
    (built by a chunked prefill), each step feeding the previous step's argmax through
    model(input_ids=next, past_key_values=cache, use_cache=True); ms per step and output
    tokens/s = B / step time.
  * memory: torch.cuda.max_memory_allocated() per measurement (weights included), and the
    weights' bytes per model.
Weights are random (no downloads): the shapes come from each model's published config.json.
The KV cache is transformers' default dynamic cache (DynamicCache, grown by concatenation at
every step); no static cache, no CUDA graphs, no torch.compile. Timing uses CUDA events after
warm-up runs; figures are medians. Figures from this are an HF-eager baseline, slower than
vLLM or TensorRT-LLM, and are recorded in docs/validation.md marked as the project's own
measurement (not a published one).

Run (GPU; estimated 4-5 minutes for the default plan, --budget-s 420 checked between
measurements, skipped ones listed in the JSON; progress on stderr, the file rewritten after
each measurement so a killed run keeps what it measured):
    python3 bench/serving_bench.py --out $OUT/serving_bench.json
Quick functional test without a GPU, and the plan without torch:
    python3 bench/serving_bench.py --device cpu --tiny
    python3 bench/serving_bench.py --dry-run
"""
import argparse
import contextlib
import gc
import json
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

FULL = dict(prefill="1x512,1x2048,1x8192,8x2048", batches="1,8,32,64,128",
            contexts="1024,4096", warmup=2, repeats=5, steps=32, warmup_steps=3)
SMALL = dict(prefill="1x32,2x64", batches="1,4", contexts="32",
             warmup=1, repeats=2, steps=4, warmup_steps=1)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    out = os.path.join(os.environ["OUT"], "serving_bench.json") if os.environ.get("OUT") else None
    p.add_argument("--out", default=out, help="JSON path (default $OUT/serving_bench.json)")
    p.add_argument("--models", default=DEFAULT_MODELS, help="comma list of " + ",".join(MODELS))
    p.add_argument("--device", default="cuda")
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--attn", default="sdpa", help="attn_implementation ('' for the default)")
    p.add_argument("--tiny", action="store_true", help="tiny shapes and sizes (CPU test)")
    p.add_argument("--dry-run", action="store_true", help="print the plan; torch not imported")
    p.add_argument("--budget-s", type=float, default=420.0, help="skip what is left after this")
    p.add_argument("--prefill", help="BxS list, e.g. 1x512,8x2048")
    p.add_argument("--decode-batches", help="e.g. 1,8,32")
    p.add_argument("--decode-contexts", help="pre-filled KV tokens, e.g. 1024,4096")
    p.add_argument("--chunk-tokens", type=int, default=32768,
                   help="tokens per forward when pre-filling a decode cache")
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
        plan += [dict(model=label, kind="prefill", batch=b, prompt_tokens=s) for b, s in prefill]
        plan += [dict(model=label, kind="decode", batch=b, context_tokens=c)
                 for c in ints(a.decode_contexts) for b in ints(a.decode_batches)]
    return plan


def kv_bytes(cfg, tokens, elem_bytes):
    head_dim = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    return 2 * cfg["num_hidden_layers"] * cfg["num_key_value_heads"] * head_dim * elem_bytes * tokens


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


def run(a, plan, doc, emit):
    import torch
    import transformers
    try:
        from transformers import DynamicCache
    except ImportError:
        DynamicCache = None
    new_cache = (lambda: DynamicCache()) if DynamicCache else (lambda: None)
    dev, dtype = torch.device(a.device), getattr(torch, a.dtype)
    cuda = dev.type == "cuda"
    clock = Clock(torch, dev)
    oom_type = getattr(torch.cuda, "OutOfMemoryError", RuntimeError)
    doc.update(torch=torch.__version__, transformers=transformers.__version__,
               cuda=torch.version.cuda, device=str(dev), dtype=a.dtype,
               gpu=torch.cuda.get_device_name(dev) if cuda else None,
               cache="DynamicCache (transformers default dynamic cache)" if DynamicCache
               else "legacy tuple past_key_values")

    def reset():
        gc.collect()
        if cuda:
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats(dev)

    def prefill(model, vocab, B, S):
        ids = torch.randint(0, vocab, (B, S), device=dev)
        times = []
        for i in range(a.warmup + a.repeats):
            cache = new_cache()
            t0 = clock.mark()
            h = model.model(input_ids=ids, past_key_values=cache, use_cache=True).last_hidden_state
            model.lm_head(h[:, -1:])
            t1 = clock.mark()
            clock.sync()
            if i >= a.warmup:
                times.append(clock.ms(t0, t1))
            del cache, h
        ms = statistics.median(times)
        return dict(ms=ms, tokens_per_s=B * S * 1e3 / ms, ms_runs=[round(t, 3) for t in times])

    def decode(model, vocab, B, C):
        ids = torch.randint(0, vocab, (B, C), device=dev)
        cache, chunk = new_cache(), max(1, min(C, a.chunk_tokens // B))
        for s in range(0, C, chunk):  # chunked prefill keeps activations small at large B
            out = model.model(input_ids=ids[:, s:s + chunk], past_key_values=cache, use_cache=True)
            cache = out.past_key_values
        nxt = model.lm_head(out.last_hidden_state[:, -1:]).argmax(-1)
        del out, ids
        marks = []
        for _ in range(a.warmup_steps + a.steps):
            marks.append(clock.mark())
            out = model(input_ids=nxt, past_key_values=cache, use_cache=True)
            cache, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
        marks.append(clock.mark())
        clock.sync()
        steps = [clock.ms(marks[i], marks[i + 1]) for i in range(a.warmup_steps, len(marks) - 1)]
        ms = statistics.median(steps)
        return dict(ms_per_step=ms, tokens_per_s=B * 1e3 / ms, steps=a.steps,
                    ms_per_step_mean=statistics.mean(steps))

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
        notes, t0 = [], time.monotonic()
        reset()
        model = guarded(build, torch, transformers, cls, cfg, dev, dtype, a.attn, notes)
        if isinstance(model, dict):  # build failed
            for m in todo:
                emit(dict(m, **model))
            reset()
            continue
        ps = list(model.parameters())
        doc["models"][label] = dict(
            config_class=cls, config=cfg, notes=notes, build_s=round(time.monotonic() - t0, 2),
            params=sum(p.numel() for p in ps),
            weights_bytes=sum(p.numel() * p.element_size() for p in ps),
            attn_implementation=getattr(model.config, "_attn_implementation", None))
        del ps
        elem = torch.tensor([], dtype=dtype).element_size()
        with torch.inference_mode():
            for m in todo:
                if over():
                    emit(dict(m, skipped="time budget exceeded"))
                    continue
                reset()
                if m["kind"] == "prefill":
                    r = guarded(prefill, model, cfg["vocab_size"], m["batch"], m["prompt_tokens"])
                else:
                    r = guarded(decode, model, cfg["vocab_size"], m["batch"], m["context_tokens"])
                    r["kv_cache_bytes"] = kv_bytes(cfg, m["batch"] * m["context_tokens"], elem)
                gc.collect()
                r["peak_memory_bytes"] = torch.cuda.max_memory_allocated(dev) if cuda else None
                emit(dict(m, **r))
        del model
        reset()


def main(argv=None):
    t0 = time.monotonic()
    a = parse_args(argv)
    plan = make_plan(a)
    doc = dict(
        tool="bench/serving_bench.py",
        note="gpu-advise's own measurement: HF transformers eager, random weights, one device",
        started_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        python=platform.python_version(), device=a.device, dtype=a.dtype,
        attn_implementation=a.attn or "default", budget_s=a.budget_s,
        method=dict(prefill="median of %d after %d warm-up; logits for the last position only"
                    % (a.repeats, a.warmup),
                    decode="median of %d single-token steps after %d warm-up steps; cache "
                    "pre-filled by chunked prefill (<= %d tokens per forward)"
                    % (a.steps, a.warmup_steps, a.chunk_tokens),
                    timing="CUDA events (perf_counter on CPU)"),
        models={}, records=[])
    return record_and_run(a, plan, doc, run, t0)


def record_and_run(a, plan, doc, run, t0):
    """The end of a bench script's main(), shared: with --dry-run print the plan;
    otherwise run it, appending each record, showing progress on stderr and
    rewriting --out after every record so a killed run keeps what it measured.
    Exit status 1 when a measurement failed other than by running out of memory."""
    if a.dry_run:
        doc.update(dry_run=True, plan=plan, models={
            lbl: dict(config_class=cls, config=cfg)
            for lbl, cls, cfg in (model_config(n, a.tiny) for n in a.models)})
        del doc["records"]
        print(json.dumps(doc, indent=2))
        return 0
    doc["_t0"] = t0

    def write():
        out = {k: v for k, v in doc.items() if k != "_t0"}
        out.update(elapsed_s=round(time.monotonic() - t0, 1),
                   skipped=sum(1 for r in doc["records"] if "skipped" in r))
        out["budget_exceeded"] = out["skipped"] > 0
        if a.out:
            os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
            with open(a.out, "w") as f:
                json.dump(out, f, indent=2)
        return out

    def emit(rec):
        doc["records"].append(rec)
        shown = {k: (round(v, 3) if isinstance(v, float) else v)
                 for k, v in rec.items() if k != "ms_runs"}
        print("[%6.1fs] %s" % (time.monotonic() - t0, json.dumps(shown)), file=sys.stderr)
        write()

    run(a, plan, doc, emit)
    print(json.dumps(write(), indent=2))
    errors = [r for r in doc["records"] if "error" in r and not r.get("out_of_memory")]
    return 1 if errors else 0

if __name__ == "__main__":
    sys.exit(main())
