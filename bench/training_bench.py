#!/usr/bin/env python3
"""Training-step measurement for gpu-advise: memory and step time of real model shapes on one GPU.

What it measures, with plain PyTorch + Hugging Face transformers (+ peft for LoRA), eager, one
device, micro-batch B x sequence S, loss = model(input_ids, labels=input_ids).loss:
  * one training step = forward + backward + optimizer.step() + optimizer.zero_grad(), with
    torch.optim.AdamW (lr 1e-5, torch's default implementation unless --adamw-impl says):
      - full fine-tune, "mixed": fp32 parameters (master weights), fp32 grads and AdamW states
        (16 bytes/param), forward under torch.autocast(bfloat16); used for the 1B.
      - full fine-tune, "bf16": bf16 parameters, grads and AdamW states (8 bytes/param), no
        autocast; used for the 8B, whose mixed-precision 16 bytes/param (~128 GB) leaves no room
        for activations on one 141 GB H200. One mixed-precision 8B step at the shortest
        sequence, with checkpointing, is tried last as a probe (--probe); it may run out of memory.
      - LoRA (peft; r 16, alpha 32, dropout 0, all linear layers q/k/v/o/gate/up/down) on a bf16
        base, forward under autocast(bfloat16); adapters in the dtype peft gives them.
    each with and without activation checkpointing (gradient_checkpointing_enable, non-reentrant).
  * per measurement: peak memory (torch.cuda.max_memory_allocated after reset_peak_memory_stats,
    weights included), median step time over --steps after --warmup steps (CUDA events),
    tokens/s = B*S / step time, trainable params, parameter and grad bytes, AdamW state bytes
    (sum over optimizer.state tensors), and the model FLOPs per step assumed:
      dense: full 6*N*T; LoRA 4*N*T + 6*N_lora*T (no weight grads for the frozen base), with
      T = B*S tokens and N = parameters that multiply per token (all, less the input embedding
      table unless it is tied to the output head); attention: 12*L*S*(heads*head_dim)*T (PaLM
      appendix B, non-causal convention); checkpointing's recomputed forward not counted.
    MFU = achieved TFLOPS / peak_bf16_dense_tflops (a field: 989 for the H200, --peak-tflops).
Weights are random (no downloads); shapes are the published config.json values in
serving_bench.py's MODELS table. Figures from this are the project's own measurement of an
HF-eager baseline (no FSDP, no fused kernels beyond SDPA attention, no torch.compile) and go into
docs/validation.md marked as such, not as published figures.

Output: --out FILE (default $OUT/training_bench.jsonl) gets the measurement records that
`gpu-advise calibrate FILE...` reads, JSON Lines, one per successful measurement (none for
skipped, out-of-memory or failed ones): kind "training", gpu (--gpu ID, else from the device name,
else "unknown" with a warning: pass --gpu), model (the preset; --tiny writes the base model's
name, a functional test only), task full|lora, seq_len, micro_batch, recompute full|none,
optimizer ("adamw": mixed precision and LoRA; "adamw-bf16": pure-bf16 full fine-tune), stack "hf",
lora_rank and lora_targets (LoRA), global_batch (= micro_batch: one micro-batch per step),
peak_memory_gib (GPU only), tokens_per_s, source, date, id. --details FILE (default: --out with
.jsonl replaced by _details.json, else $OUT/training_bench_details.json) gets the detailed JSON
document of the run (every measurement, skipped ones, method, versions).

Run (GPU; estimated 3-4 minutes for the default plan, --budget-s 420 checked between
measurements, skipped ones listed in the details; progress on stderr, both files rewritten after
each measurement so a killed run keeps what it measured):
    python3 bench/training_bench.py --out $OUT/training_bench.jsonl
    python3 bench/training_bench.py --gpu h100-sxm5 --out h100.jsonl   # details: h100_details.json
    gpu-advise calibrate $OUT/training_bench.jsonl
Quick functional test without a GPU, and the plan without torch:
    python3 bench/training_bench.py --device cpu --tiny --out /tmp/t.jsonl
    python3 bench/training_bench.py --dry-run
"""
import argparse
import gc
import os
import platform
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# MODELS: exact config.json shapes with their sources; build: random weights on the device.
from serving_bench import (MODELS, Clock, add_output_args, build, model_config,  # noqa: E402
                           preset_name, record_and_run, record_id, resolve_gpu,
                           resolve_output_paths)

# Most valuable first: when the budget runs out, what is skipped is the tail.
DEFAULT_MODELS = "llama-3.1-8b,llama-3.2-1b"
# Full fine-tune precision under --full-precision auto: 16 bytes/param x 7.6-8.0B params is
# 122-128 GB before activations, too much for one H200; pure bf16 (8 bytes/param) fits.
PURE_BF16_FULL = {"llama-3.1-8b", "qwen2.5-7b"}
LORA_RANK = 16
LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
H200_BF16_DENSE_TFLOPS = 989.0  # NVIDIA H200 SXM datasheet, BF16 tensor core without sparsity

FULL = dict(seqs="512,2048,4096", batches={"llama-3.2-1b": "1,4"}, warmup=2, steps=6)
SMALL = dict(seqs="32,64", batches={"llama-3.2-1b": "1,2"}, warmup=1, steps=2)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_output_args(p, "training_bench")
    p.add_argument("--models", default=DEFAULT_MODELS, help="comma list of " + ",".join(MODELS))
    p.add_argument("--methods", default="full,lora", help="comma list of full,lora")
    p.add_argument("--device", default="cuda")
    p.add_argument("--attn", default="sdpa", help="attn_implementation ('' for the default)")
    p.add_argument("--tiny", action="store_true", help="tiny shapes and sizes (CPU test)")
    p.add_argument("--dry-run", action="store_true", help="print the plan; torch not imported")
    p.add_argument("--budget-s", type=float, default=420.0, help="skip what is left after this")
    p.add_argument("--seqs", help="sequence lengths, e.g. 512,2048,4096")
    p.add_argument("--batches", help="micro-batches for every model (default 1; 1,4 for the 1B)")
    p.add_argument("--full-precision", default="auto", choices=["auto", "mixed", "bf16"])
    p.add_argument("--probe", default="llama-3.1-8b",
                   help="of --models: one full fine-tune in mixed precision (shortest seq, "
                        "checkpointing) tried last; '' for none")
    p.add_argument("--adamw-impl", default="default", choices=["default", "foreach", "fused"])
    p.add_argument("--lora-dropout", type=float, default=0.0)
    p.add_argument("--peak-tflops", type=float, default=H200_BF16_DENSE_TFLOPS)
    p.add_argument("--warmup", type=int)
    p.add_argument("--steps", type=int)
    a = p.parse_args(argv)
    base = SMALL if a.tiny else FULL
    for k in ("seqs", "warmup", "steps"):
        if getattr(a, k) is None:
            setattr(a, k, base[k])
    a.default_batches = base["batches"]
    split = lambda s: [x.strip() for x in s.split(",") if x.strip()]
    a.models, a.methods, a.probe = split(a.models), split(a.methods), split(a.probe)
    bad = [m for m in a.models + a.probe if m not in MODELS]
    if bad:
        p.error("unknown model(s) %s; known: %s" % (",".join(bad), ",".join(MODELS)))
    if set(a.methods) - {"full", "lora"}:
        p.error("--methods takes full and/or lora")
    resolve_output_paths(p, a, "training_bench")
    return a


def make_plan(a):
    ints = lambda s: [int(x) for x in str(s).split(",") if x]
    seqs, plan = ints(a.seqs), []
    for name in a.models:
        label = model_config(name, a.tiny)[0]
        batches = ints(a.batches or a.default_batches.get(name, "1"))
        full = a.full_precision if a.full_precision != "auto" else (
            "bf16" if name in PURE_BF16_FULL else "mixed")
        for method in a.methods:
            prec = full if method == "full" else "bf16-base"
            plan += [dict(model=label, method=method, precision=prec, checkpointing=ck,
                          batch=b, seq=s)
                     for ck in (False, True) for s in seqs for b in batches]
    for name in (n for n in a.probe if n in a.models):
        plan.append(dict(model=model_config(name, a.tiny)[0], method="full", precision="mixed",
                         checkpointing=True, batch=1, seq=min(seqs), probe=True))
    return plan


def run(a, plan, doc, emit):
    import torch
    import transformers
    try:
        import peft
    except ImportError as e:
        peft, peft_error = None, "ImportError: %s" % e
    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    clock = Clock(torch, dev)
    oom_type = getattr(torch.cuda, "OutOfMemoryError", RuntimeError)
    doc.update(torch=torch.__version__, transformers=transformers.__version__,
               peft=getattr(peft, "__version__", None), cuda=torch.version.cuda,
               gpu=torch.cuda.get_device_name(dev) if cuda else None)
    resolve_gpu(a, doc["gpu"])
    impl = {"default": {}, "foreach": dict(foreach=True), "fused": dict(fused=True)}[a.adamw_impl]

    def reset(model=None):
        if model is not None:  # a failed step can leave grads behind
            for p in model.parameters():
                p.grad = None
        gc.collect()
        if cuda:
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats(dev)

    def guarded(fn, *args):
        try:
            return fn(*args)
        except Exception as e:  # recorded, not fatal: one failure must not lose the run
            oom = isinstance(e, oom_type) or "out of memory" in str(e).lower()
            msg = (str(e).splitlines() or [""])[0][:300]
            return dict(error="%s: %s" % (type(e).__name__, msg), out_of_memory=oom)

    def make(m, cls, cfg, notes):
        dtype = torch.float32 if m["precision"] == "mixed" else torch.bfloat16
        model = build(torch, transformers, cls, cfg, dev, dtype, a.attn, notes).train()
        model.config.use_cache = False
        ps = list(model.parameters())
        n_all = sum(p.numel() for p in ps)
        emb = model.get_input_embeddings().weight.numel()
        info = dict(params=n_all, dense_params=n_all - (0 if cfg.get("tie_word_embeddings") else emb))
        if m["method"] == "lora":
            if peft is None:
                raise RuntimeError("peft not available (%s)" % peft_error)
            lc = peft.LoraConfig(r=LORA_RANK, lora_alpha=32, lora_dropout=a.lora_dropout,
                                 bias="none", target_modules=LORA_TARGETS, task_type="CAUSAL_LM")
            model = peft.get_peft_model(model, lc)
        return model, info

    def set_checkpointing(model, on, notes):
        if not on:
            model.gradient_checkpointing_disable()
            return
        try:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        except TypeError:  # transformers < 4.35: reentrant only; inputs must require grad (LoRA)
            model.gradient_checkpointing_enable()
            model.enable_input_require_grads()
            if "reentrant checkpointing" not in notes:
                notes.append("reentrant checkpointing")

    def measure(model, m, info, vocab, attn_width, layers):
        B, S, T = m["batch"], m["seq"], m["batch"] * m["seq"]
        amp = m["precision"] != "bf16"  # mixed and LoRA: autocast bf16; pure bf16: none
        ids = torch.randint(0, vocab, (B, S), device=dev)
        trainable = [p for p in model.parameters() if p.requires_grad]
        opt = torch.optim.AdamW(trainable, lr=1e-5, **impl)
        marks, before = [], torch.cuda.memory_allocated(dev) if cuda else None
        for _ in range(a.warmup + a.steps):
            marks.append(clock.mark())
            with torch.autocast(device_type=dev.type, dtype=torch.bfloat16, enabled=amp):
                loss = model(input_ids=ids, labels=ids, use_cache=False).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        marks.append(clock.mark())
        clock.sync()
        times = [clock.ms(marks[i], marks[i + 1]) for i in range(a.warmup, len(marks) - 1)]
        ms = statistics.median(times)
        n_lora = sum(p.numel() for p in trainable) if m["method"] == "lora" else 0
        dense = (6 * info["dense_params"] if m["method"] == "full"
                 else 4 * info["dense_params"] + 6 * n_lora) * T
        attn = 12 * layers * S * attn_width * T
        tflops = (dense + attn) / (ms / 1e3) / 1e12
        nbytes = lambda ts: sum(t.numel() * t.element_size() for t in ts)
        r = dict(
            ms_per_step=ms, tokens_per_s=T * 1e3 / ms, ms_runs=[round(t, 3) for t in times],
            loss=float(loss), trainable_params=sum(p.numel() for p in trainable),
            trainable_dtype=str(trainable[0].dtype).replace("torch.", ""),
            param_bytes=nbytes(model.parameters()), grad_bytes=nbytes(trainable),
            optimizer_state_bytes=nbytes(t for s in opt.state.values() for t in s.values()
                                         if torch.is_tensor(t)),
            adamw=dict(foreach=opt.defaults.get("foreach"), fused=opt.defaults.get("fused")),
            allocated_before_bytes=before,
            allocated_after_bytes=torch.cuda.memory_allocated(dev) if cuda else None,
            dense_flops_per_step=dense, attention_flops_per_step=attn,
            model_flops_per_step=dense + attn, achieved_tflops=tflops,
            mfu=tflops / a.peak_tflops if cuda else None)
        del opt, loss
        return r

    over = lambda: time.monotonic() - doc["_t0"] > a.budget_s
    groups = {}  # one build per (model, method, precision), in plan order
    for m in plan:
        groups.setdefault((m["model"], m["method"], m["precision"]), []).append(m)
    for (label, method, prec), todo in groups.items():
        name = label[len("tiny-"):] if a.tiny else label
        _, cls, cfg = model_config(name, a.tiny)
        if over():
            for m in todo:
                emit(dict(m, skipped="time budget exceeded"))
            continue
        notes, t0 = [], time.monotonic()
        reset()
        built = guarded(make, todo[0], cls, cfg, notes)
        if isinstance(built, dict):  # build failed
            for m in todo:
                emit(dict(m, **built))
            reset()
            continue
        model, info = built
        del built  # no second reference: the next build must find this one's memory free
        entry = doc["models"].setdefault(label, dict(config_class=cls, config=cfg, builds={}))
        entry.update(params=info["params"], dense_params=info["dense_params"])
        entry["builds"]["%s/%s" % (method, prec)] = dict(
            build_s=round(time.monotonic() - t0, 2), notes=notes,
            attn_implementation=getattr(getattr(model, "config", None), "_attn_implementation", None))
        head_dim = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
        width = cfg["num_attention_heads"] * head_dim
        for m in todo:
            if over():
                emit(dict(m, skipped="time budget exceeded"))
                continue
            reset(model)
            r = guarded(set_checkpointing, model, m["checkpointing"], notes)
            if r is None:
                r = guarded(measure, model, m, info, cfg["vocab_size"], width,
                            cfg["num_hidden_layers"])
            r["peak_memory_bytes"] = torch.cuda.max_memory_allocated(dev) if cuda else None
            emit(dict(m, **r))
        del model
        reset()


def training_record(a, doc, rec, used):
    """The measurement record (for `gpu-advise calibrate`) of one successful training
    measurement, else None (skipped, out of memory, failed)."""
    if "ms_per_step" not in rec or "error" in rec or "skipped" in rec:
        return None
    model = preset_name(rec["model"], a.tiny)
    if model is None:
        return None
    B, S, lora = rec["batch"], rec["seq"], rec["method"] == "lora"
    out = dict(kind="training", gpu=a.gpu, count=1, model=model, task=rec["method"],
               seq_len=S, micro_batch=B, recompute="full" if rec["checkpointing"] else "none",
               optimizer="adamw-bf16" if rec["precision"] == "bf16" else "adamw", stack="hf")
    if lora:
        out.update(lora_rank=LORA_RANK, lora_targets="all")  # LORA_TARGETS: all seven linears
    out["global_batch"] = B  # one micro-batch per optimizer step
    if rec.get("peak_memory_bytes") is not None:
        out["peak_memory_gib"] = round(rec["peak_memory_bytes"] / 2**30, 2)
    out["tokens_per_s"] = round(B * S * 1e3 / rec["ms_per_step"], 1)
    attn = "SDPA" if a.attn == "sdpa" else "attn_implementation %s" % (a.attn or "default")
    out.update(
        source="bench/training_bench.py on %s (torch %s, transformers %s, %s, random weights)"
               % (doc.get("gpu") or "cpu", doc.get("torch"), doc.get("transformers"), attn),
        date=time.strftime("%Y-%m-%d", time.gmtime()),
        id=record_id(used, "%s-%s-s%d-b%d-ck%d" % (
            model, "lora" if lora else "full-" + rec["precision"], S, B, rec["checkpointing"])))
    return out


def main(argv=None):
    t0 = time.monotonic()
    a = parse_args(argv)
    plan = make_plan(a)
    doc = dict(
        tool="bench/training_bench.py",
        note="gpu-advise's own measurement: HF transformers eager training steps, random "
             "weights, one device",
        started_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        python=platform.python_version(), device=a.device, budget_s=a.budget_s,
        attn_implementation=a.attn or "default", peak_bf16_dense_tflops=a.peak_tflops,
        method=dict(
            step="forward (loss on labels = inputs) + backward + AdamW step + zero_grad(set_to_none)",
            timing="median of %d steps after %d warm-up steps; CUDA events (perf_counter on CPU)"
                   % (a.steps, a.warmup),
            precision=dict(mixed="fp32 params/grads/AdamW states, autocast bf16",
                           bf16="bf16 params/grads/AdamW states, no autocast",
                           **{"bf16-base": "frozen bf16 base, peft adapters, autocast bf16"}),
            adamw="torch.optim.AdamW lr 1e-5, betas/eps/weight_decay defaults, impl %s"
                  % a.adamw_impl,
            lora=dict(r=LORA_RANK, lora_alpha=32, lora_dropout=a.lora_dropout,
                      target_modules=LORA_TARGETS),
            checkpointing="model.gradient_checkpointing_enable(use_reentrant=False)",
            flops="dense: full 6*N*T, LoRA 4*N*T + 6*N_lora*T; attention 12*L*S*heads*head_dim*T; "
                  "T = batch*seq, N = dense_params (input embedding excluded unless tied); "
                  "recompute not counted; mfu = achieved_tflops / peak_bf16_dense_tflops",
            peak_memory="torch.cuda.max_memory_allocated after reset_peak_memory_stats, per "
                        "measurement, weights included"),
        models={}, records=[])
    return record_and_run(a, plan, doc, run, t0, to_record=training_record)


if __name__ == "__main__":
    sys.exit(main())
