"""LoRA fine-tuning on a benchmark's SFT splits, as in WebRSSBench §5.2 and Appendix D.

``finetune(bench, base, out)`` reads ``BENCH/splits/<task>/train.jsonl`` (the chat-format
rows ``understand build`` exports), trains a LoRA adapter with ``peft`` on a local
vision-language model folder (the one ``hf-local:PATH`` loads) and writes, per adapter,
``OUT/<name>/``:

- ``adapter_config.json`` + ``adapter_model.safetensors``: load with ``hf-local:BASE?adapter=OUT/<name>``;
- ``train_log.jsonl``: one :class:`TrainStep` per optimizer step (loss, learning rate) and one
  per epoch with the validation loss;
- ``finetune.json``: the run spec (base model fingerprint, benchmark manifest sha256, tasks,
  hyper-parameters, library versions, status, first and last loss);
- ``checkpoint/`` while training: adapter, optimizer, scheduler and RNG state. Re-running the
  same command resumes from it; Ctrl-C saves it and stops cleanly (:class:`FinetuneInterrupted`).

Paper defaults (:data:`PAPER_HYPER`, Appendix D): LoRA rank 16, alpha 32, dropout 0.05, on
all projection layers (the paper's ``target_modules`` list), learning rate 2e-4, 2 epochs,
batch size 1 with gradient accumulation 8, warm-up ratio 0.03; every one can be overridden.
The paper's tasks are position, UI group and color; one adapter per task by default (the
paper's ablation design), or one adapter on all the chosen tasks with ``combined=True``.
Position questions are decomposed into single pairs, as the paper did: a question about
4 crops (6 pairs) becomes 6 samples of the full page + the two crops, asked with the same
prompt file rendered for 2 elements (exactly the two-crop diagnostic's wording).

The loop is plain torch: AdamW (no weight decay), linear warm-up then linear decay, gradient
norm clipped at 1.0 (the ``transformers`` Trainer's defaults), loss on the answer tokens only.
Deviations: the paper's Listing 3 (UI group) shows other settings (batch 4 x accumulation 4,
3 epochs, lr 2e-5) than its text; we follow the text for every task and the flags take the
listing's values when wanted. Gradient checkpointing (memory only) is an option, off by default.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

from ..records import Record
from .prompts import render_prompt

__all__ = ["finetune", "FinetuneResult", "FinetuneError", "FinetuneInterrupted", "TrainStep", "PAPER_HYPER",
           "PAPER_TASKS", "PAPER_TARGET_MODULES", "load_examples", "Example"]

PAPER_TASKS = ("position", "ui_group", "color")
PAPER_TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj",
                        "w1", "w2", "w3", "W_pack")
PAPER_HYPER = {"rank": 16, "alpha": 32, "dropout": 0.05, "target_modules": list(PAPER_TARGET_MODULES),
               "lr": 2e-4, "epochs": 2, "batch_size": 1, "grad_accum": 8, "warmup_ratio": 0.03,
               "max_grad_norm": 1.0, "max_steps": None, "gradient_checkpointing": False}
SPEC_SCHEMA = "understand.finetune/1"


class FinetuneError(ValueError):
    """Bad input to a fine-tune (no such split, settings that differ from the run in OUT...)."""


class FinetuneInterrupted(KeyboardInterrupt):
    """Ctrl-C during training: the checkpoint is saved; re-run the same command to resume."""

    def __init__(self, out: Path, step: int, total: int) -> None:
        super().__init__(f"fine-tune stopped at step {step}/{total}; checkpoint saved in {out / 'checkpoint'}: "
                         f"re-run the same command to resume")
        self.out, self.step, self.total = out, step, total


@dataclass
class TrainStep(Record):
    """One line of ``train_log.jsonl``: an optimizer step (``kind="train"``) or an epoch's validation."""

    SCHEMA: ClassVar[str] = "understand.finetune.step"
    VERSION: ClassVar[int] = 1
    kind: str
    step: int
    epoch: int
    loss: float
    lr: float = 0.0
    examples: int = 0
    elapsed_s: float = 0.0


@dataclass
class Example:
    """One training sample: images (paths in the benchmark), the question and the answer."""

    id: str
    task: str
    images: list[str]
    question: str
    answer: str


@dataclass
class FinetuneResult:
    """Where one adapter went and how training ended."""

    name: str
    out: Path
    spec: dict

    @property
    def adapter(self) -> Path:
        return self.out


def _decompose_position(row_id: str, images: list[str], answer: str) -> list[Example]:
    out = []
    question = render_prompt("position", n=2, pairs="1-2")
    for line in answer.splitlines():
        key, _, rel = line.partition(":")
        i, _, j = key.strip().partition("-")
        if not (i.isdigit() and j.isdigit() and rel.strip()):
            raise FinetuneError(f"position row {row_id}: answer line {line!r} is not 'i-j: relation'")
        a, b = int(i), int(j)
        out.append(Example(f"{row_id}#{a}-{b}", "position", [images[0], images[a], images[b]], question,
                           f"1-2: {rel.strip()}"))
    return out


def load_examples(bench: str | Path, task: str, split: str = "train", *, decompose_position: bool = True
                  ) -> list[Example]:
    """The samples of ``BENCH/splits/<task>/<split>.jsonl`` (position decomposed into single pairs)."""
    path = Path(bench) / "splits" / task / f"{split}.jsonl"
    if not path.is_file():
        raise FinetuneError(f"{path} does not exist: build the benchmark with `webgauge understand build` "
                            f"including --task {task}")
    out = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        user, reply = row["messages"]
        question = "".join(c["text"] for c in user["content"] if c["type"] == "text")
        answer = "".join(c["text"] for c in reply["content"] if c["type"] == "text")
        if task == "position" and decompose_position:
            out += _decompose_position(row["id"], row["images"], answer)
        else:
            out.append(Example(row["id"], task, list(row["images"]), question, answer))
    return out


@lru_cache(maxsize=64)
def _image(path: Path) -> Any:
    """A decoded image (a page screenshot is shared by many samples: decode it once)."""
    from PIL import Image as PILImage

    with PILImage.open(path) as im:
        return im.convert("RGB")


def _conversation(bench: Path, ex: Example, with_answer: bool) -> list[dict]:
    parts = [{"type": "image", "image": _image(bench / p)} for p in ex.images]
    conv = [{"role": "user", "content": parts + [{"type": "text", "text": ex.question}]}]
    if with_answer:
        conv.append({"role": "assistant", "content": [{"type": "text", "text": ex.answer}]})
    return conv


def _batch_tensors(processor, bench: Path, batch: Sequence[Example], device: str, dtype,
                   prompt_lens: dict | None = None) -> dict:
    """Inputs and labels: the loss covers the answer tokens (and the end of turn) only.

    ``prompt_lens`` caches each sample's prompt length (the prompt is encoded once per sample).
    """
    from webgauge.models.providers.hf_local import encode_chats, to_device

    full = encode_chats(processor, [_conversation(bench, ex, True) for ex in batch], add_generation_prompt=False,
                        padding_side="right")
    labels = full["input_ids"].clone()
    labels[full["attention_mask"] == 0] = -100
    cache = prompt_lens if prompt_lens is not None else {}
    for row, ex in enumerate(batch):
        if ex.id not in cache:
            prompt = encode_chats(processor, [_conversation(bench, ex, False)], add_generation_prompt=True)
            n = int(prompt["attention_mask"].sum())
            if not bool((full["input_ids"][row, :n] == prompt["input_ids"][0, -n:]).all()):
                raise FinetuneError(f"{ex.id}: the chat template renders the prompt differently with and without "
                                    f"the answer, so the answer tokens cannot be told apart")
            cache[ex.id] = n
        labels[row, :cache[ex.id]] = -100
    out = to_device(full, device, dtype)
    out["labels"] = labels.to(device)
    return out


def _lr_factor(step: int, total: int, warmup: int) -> float:
    if step < warmup:
        return (step + 1) / warmup
    return max(0.0, (total - step) / max(1, total - warmup))


def _versions() -> dict:
    import peft
    import torch
    import transformers

    from .. import __version__

    return {"webgauge": __version__, "torch": torch.__version__, "transformers": transformers.__version__,
            "peft": peft.__version__}


def finetune(bench: str | Path, base: str | Path, out: str | Path, *, tasks: Sequence[str] = PAPER_TASKS,
             combined: bool = False, split: str = "train", eval_split: str | None = "validation",
             seed: int = 0, device: str = "auto", dtype: str = "auto", limit: int | None = None,
             force: bool = False, progress: bool = True, save_every: int = 50,
             on_step: Callable[[TrainStep], None] | None = None, **hyper: Any) -> list[FinetuneResult]:
    """Train one LoRA adapter per task (or one on all ``tasks`` with ``combined=True``); see module docstring.

    ``hyper`` overrides :data:`PAPER_HYPER` (``rank``, ``alpha``, ``dropout``, ``target_modules``,
    ``lr``, ``epochs``, ``batch_size``, ``grad_accum``, ``warmup_ratio``, ``max_grad_norm``,
    ``max_steps``, ``gradient_checkpointing``). ``limit`` caps the training samples per adapter
    (after decomposition, a seeded sample). ``on_step`` is called after every optimizer step.
    """
    unknown = set(hyper) - set(PAPER_HYPER)
    if unknown:
        raise FinetuneError(f"unknown hyper-parameter(s) {sorted(unknown)}; known: {sorted(PAPER_HYPER)}")
    hp = {**PAPER_HYPER, **{k: v for k, v in hyper.items() if v is not None}}
    hp["target_modules"] = list(hp["target_modules"])
    bench = Path(bench).resolve()
    manifest = bench / "manifest.json"
    if not manifest.is_file():
        raise FinetuneError(f"{bench} is not a benchmark folder (no manifest.json); build one with "
                            f"`webgauge understand build`")
    if not tasks:
        raise FinetuneError(f"choose at least one task (the paper's: {', '.join(PAPER_TASKS)})")
    groups = [list(tasks)] if combined else [[t] for t in tasks]
    results = []
    for group in groups:
        name = "+".join(group)
        results.append(_train_one(bench, json.loads(manifest.read_text())["sha256"], Path(base), Path(out) / name,
                                  name, group, split, eval_split, seed, device, dtype, limit, force, progress,
                                  save_every, on_step, hp))
    return results


def _train_one(bench, bench_sha, base, out, name, group, split, eval_split, seed, device, dtype, limit, force,
               progress, save_every, on_step, hp) -> FinetuneResult:
    from webgauge.models.providers.hf_local import folder_fingerprint

    examples = [ex for t in group for ex in load_examples(bench, t, split)]
    if not examples:
        raise FinetuneError(f"no {split} samples for {name} in {bench}/splits (a benchmark needs pages in the "
                            f"{split} split: build with more pages)")
    if limit is not None and len(examples) > limit:
        examples = random.Random(f"limit:{seed}").sample(examples, limit)
    val = [ex for t in group for ex in load_examples(bench, t, eval_split)] if eval_split else []
    if not Path(base).is_dir():
        raise FinetuneError(f"base model folder {base} does not exist (download the weights there first)")
    identity = {"base": str(Path(base).resolve()), "base_fingerprint": folder_fingerprint(base), "bench": str(bench),
                "bench_sha256": bench_sha, "tasks": group, "split": split, "limit": limit, "seed": seed,
                "decompose_position": True, "hyper": hp}
    spec_path = out / "finetune.json"
    if spec_path.is_file() and not force:
        old = json.loads(spec_path.read_text())
        differs = sorted(k for k in identity if old.get(k) != identity[k])
        if differs:
            raise FinetuneError(f"{out} holds a fine-tune with other settings ({', '.join(differs)} differ): "
                                f"pass --force to start over or choose another --out")
        if old.get("status") == "done":
            return FinetuneResult(name, out, old)
    elif force and out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    return _Trainer(bench, base, out, name, examples, val, identity, device, dtype, progress, save_every,
                    on_step).run()


class _Trainer:
    """The plain torch loop for one adapter (resumable, interruptible)."""

    def __init__(self, bench, base, out, name, examples, val, identity, device, dtype, progress, save_every,
                 on_step) -> None:
        self.bench, self.base, self.out, self.name = bench, base, out, name
        self.examples, self.val, self.identity, self.hp = examples, val, identity, identity["hyper"]
        self.device, self.dtype, self.progress, self.on_step = device, dtype, progress, on_step
        self.save_every = max(1, save_every)
        self.prompt_lens: dict[str, int] = {}
        self.ckpt = out / "checkpoint"
        self.log_path = out / "train_log.jsonl"
        hp = self.hp
        self.micro_per_epoch = math.ceil(len(examples) / hp["batch_size"])
        self.steps_per_epoch = math.ceil(self.micro_per_epoch / hp["grad_accum"])
        total = self.steps_per_epoch * hp["epochs"]
        self.total = min(total, hp["max_steps"]) if hp["max_steps"] else total
        self.warmup = math.ceil(hp["warmup_ratio"] * self.total)

    def _setup(self):
        import torch
        from peft import LoraConfig, get_peft_model

        from webgauge.models.providers.hf_local import load_local_vlm

        torch.manual_seed(self.identity["seed"])
        vlm = load_local_vlm(self.base, device=self.device, dtype=self.dtype, trainable=True)
        hp = self.hp
        if hp["gradient_checkpointing"]:
            vlm.model.gradient_checkpointing_enable()
            vlm.model.enable_input_require_grads()
        vlm.model.config.use_cache = False
        try:
            model = get_peft_model(vlm.model, LoraConfig(r=hp["rank"], lora_alpha=hp["alpha"],
                                                         lora_dropout=hp["dropout"], bias="none",
                                                         task_type="CAUSAL_LM", target_modules=hp["target_modules"]))
        except ValueError as e:
            raise FinetuneError(f"LoRA target modules {hp['target_modules']} match no layer of {self.base}: {e}") from e
        params = [p for p in model.parameters() if p.requires_grad]
        opt = torch.optim.AdamW(params, lr=hp["lr"], weight_decay=0.0)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: _lr_factor(s, self.total, self.warmup))
        return vlm, model, params, opt, sched

    def _save_checkpoint(self, model, opt, sched, step: int) -> None:
        import torch
        from peft import get_peft_model_state_dict
        from safetensors.torch import save_file

        tmp = self.out / "checkpoint.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        save_file({k: v.detach().cpu().contiguous() for k, v in get_peft_model_state_dict(model).items()},
                  str(tmp / "adapter.safetensors"))
        torch.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
                    "torch_rng": torch.get_rng_state()}, tmp / "state.pt")
        (tmp / "step.json").write_text(json.dumps({"step": step}))
        shutil.rmtree(self.ckpt, ignore_errors=True)
        tmp.rename(self.ckpt)

    def _resume(self, model, opt, sched) -> int:
        import torch
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        if not (self.ckpt / "step.json").is_file():
            self.log_path.write_text("")
            return 0
        step = json.loads((self.ckpt / "step.json").read_text())["step"]
        set_peft_model_state_dict(model, load_file(str(self.ckpt / "adapter.safetensors")))
        state = torch.load(self.ckpt / "state.pt", weights_only=False)
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["scheduler"])
        torch.set_rng_state(state["torch_rng"])
        rows = [r for r in self.log_path.read_text().splitlines() if r.strip()] if self.log_path.exists() else []
        kept = [r for r in rows if json.loads(r)["step"] <= step]  # steps after the checkpoint are redone
        self.log_path.write_text("".join(r + "\n" for r in kept))
        return step

    def _write_spec(self, status: str, **extra) -> dict:
        path = self.out / "finetune.json"
        old = json.loads(path.read_text()) if path.is_file() else {}
        spec = {**old, "schema": SPEC_SCHEMA, **self.identity, "name": self.name, "status": status,
                "examples": len(self.examples), "validation_examples": len(self.val), "optimizer_steps": self.total,
                "warmup_steps": self.warmup, "device": self.device, "dtype": self.dtype, "versions": _versions(),
                **extra}
        path.write_text(json.dumps(spec, indent=1, sort_keys=True) + "\n")
        return spec

    def _log(self, row: TrainStep) -> None:
        with self.log_path.open("a") as f:
            f.write(json.dumps(row.to_json(), sort_keys=True) + "\n")

    def _loss(self, vlm, model, batch) -> Any:
        inputs = _batch_tensors(vlm.processor, self.bench, batch, vlm.device, vlm.dtype, self.prompt_lens)
        return model(**inputs).loss

    def _val_loss(self, vlm, model) -> float | None:
        import torch

        if not self.val:
            return None
        model.eval()
        with torch.no_grad():
            losses = [float(self._loss(vlm, model, [ex])) for ex in self.val]
        model.train()
        return sum(losses) / len(losses)

    def run(self) -> FinetuneResult:
        import torch
        from tqdm import tqdm

        vlm, model, params, opt, sched = self._setup()
        step = self._resume(model, opt, sched)
        self._write_spec("running", started_at=time.time())
        hp, start = self.hp, time.monotonic()
        bar = tqdm(total=self.total, initial=step, desc=f"finetune {self.name}", unit="step",
                   disable=not self.progress)
        model.train()
        done = step
        try:
            while done < self.total:
                epoch, first = divmod(done, self.steps_per_epoch)
                order = list(range(len(self.examples)))
                random.Random(f"finetune:{self.identity['seed']}:{epoch}").shuffle(order)
                micro = [order[i:i + hp["batch_size"]] for i in range(0, len(order), hp["batch_size"])]
                group = micro[first * hp["grad_accum"]:(first + 1) * hp["grad_accum"]]
                opt.zero_grad(set_to_none=True)
                losses = []
                for idx in group:
                    loss = self._loss(vlm, model, [self.examples[i] for i in idx])
                    (loss / len(group)).backward()
                    losses.append(loss.detach().item())
                torch.nn.utils.clip_grad_norm_(params, hp["max_grad_norm"])
                lr = sched.get_last_lr()[0]
                opt.step()
                sched.step()
                done += 1
                row = TrainStep("train", done, epoch, sum(losses) / len(losses), lr,
                                sum(len(i) for i in group), round(time.monotonic() - start, 3))
                self._log(row)
                bar.update(1)
                bar.set_postfix(loss=f"{row.loss:.4f}")
                last_of_epoch = done % self.steps_per_epoch == 0 or done == self.total
                val_loss = self._val_loss(vlm, model) if last_of_epoch else None  # None without a validation set
                if val_loss is not None:
                    self._log(TrainStep("validation", done, epoch, val_loss))
                if done % self.save_every == 0 and done < self.total:
                    self._save_checkpoint(model, opt, sched, done)
                if self.on_step is not None:
                    self.on_step(row)
        except KeyboardInterrupt:
            bar.close()
            opt.zero_grad(set_to_none=True)
            self._save_checkpoint(model, opt, sched, done)
            self._write_spec("interrupted", steps_done=done)
            raise FinetuneInterrupted(self.out, done, self.total) from None
        bar.close()
        model.save_pretrained(str(self.out))
        shutil.rmtree(self.ckpt, ignore_errors=True)
        rows = [json.loads(r) for r in self.log_path.read_text().splitlines() if r.strip()]
        train = [r for r in rows if r["kind"] == "train"]
        spec = self._write_spec("done", steps_done=done, finished_at=time.time(), first_loss=train[0]["loss"],
                                final_loss=train[-1]["loss"], adapter_sha256=hashlib.sha256(
                                    (self.out / "adapter_model.safetensors").read_bytes()).hexdigest())
        return FinetuneResult(self.name, self.out, spec)
