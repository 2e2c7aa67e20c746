"""``hf-local``: a vision-language model from a local folder, run in-process with ``transformers``.

Spec: ``hf-local:PATH`` or ``hf-local:PATH?adapter=ADAPTER_DIR`` (``&dtype=...&device=...``
also accepted in the spec; every option may be given as a keyword to ``get_model`` too).
Extra ``webgauge[local]`` (transformers, peft, accelerate); imported only when chosen.

- The folder is loaded with ``AutoProcessor`` and ``AutoModelForImageTextToText``, with
  ``local_files_only=True`` and ``HF_HUB_OFFLINE=1``: nothing is ever downloaded, and a
  folder that is missing, incomplete or not a vision-language model is a
  :class:`ModelConfigError` that names the folder.
- ``adapter=DIR`` loads a LoRA adapter (``peft.PeftModel.from_pretrained``), e.g. one
  written by ``webgauge understand finetune``.
- Messages go through the processor's chat template; images are passed as PIL images in
  the ``image`` parts, where the template puts the model's image tokens.
- ``device``: ``auto`` (CUDA, else Apple MPS, else CPU), or ``cuda``, ``cuda:1``, ``mps``,
  ``cpu``. ``dtype``: ``auto`` (bfloat16 on CUDA, float16 on MPS, float32 on CPU) or
  ``float32``/``bfloat16``/``float16``. ``batch_size``: greedy calls waiting at the same time
  are generated together, up to this many (left-padded); sampled calls run one at a time
  so a seed gives the same answer whatever else is in flight. At most 16 calls are in flight
  per loaded model unless ``max_concurrency=`` says otherwise (raise it with ``batch_size``).
- Temperature 0 is greedy decoding; otherwise sampling with ``torch.manual_seed(seed)``
  (the provider honors seeds). Answers are deterministic, so they are cached when the model
  is given a cache; the cache key holds a fingerprint of the weights and of the adapter
  (:func:`folder_fingerprint`), so retraining an adapter in place misses the cache.
- Usage: input tokens (the prompt, image tokens included), output tokens (generated, EOS
  excluded); the core adds image counts. ``finish_reason`` is ``length`` when generation
  hit ``max_tokens`` (default 512).

Weights are loaded once per process and shared by every model object with the same
(folder, adapter, device, dtype): each worker of a run holds one copy.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from webgauge.models.config import GenerateConfig, Response
from webgauge.models.errors import MissingDependency, ModelConfigError, PermanentError
from webgauge.models.messages import Image, Message
from webgauge.models.usage import Usage

__all__ = ["HFLocalProvider", "create", "parse_spec", "folder_fingerprint", "load_local_vlm", "pick_device",
           "to_hf_conversation", "encode_chats", "to_device", "DEFAULT_MAX_TOKENS"]

DEFAULT_MAX_TOKENS = 512
DEFAULT_CONCURRENCY = 16  # calls in flight per loaded model; batch_size above it needs max_concurrency=
_DTYPES = ("auto", "float32", "bfloat16", "float16")
_SPEC_KEYS = {"adapter", "dtype", "device", "batch_size"}
_FULL_HASH_LIMIT = 256 * 2**20  # files above this are fingerprinted by size + first and last 16 MiB


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"PATH?adapter=DIR&dtype=float32"`` -> ``("PATH", {"adapter": "DIR", "dtype": "float32"})``."""
    path, _, query = spec.partition("?")
    opts = dict(parse_qsl(query, keep_blank_values=True)) if query else {}
    unknown = set(opts) - _SPEC_KEYS
    if unknown:
        raise ModelConfigError(f"hf-local:{spec}: unknown option(s) {sorted(unknown)}; "
                               f"allowed after '?': {sorted(_SPEC_KEYS)}")
    return path, opts


def folder_fingerprint(folder: str | Path) -> str:
    """sha256 over a model or adapter folder: names, sizes and contents of its files.

    Files up to 256 MiB are hashed whole; larger weight shards by size plus their first and
    last 16 MiB (hashing 15 GB of a 7B model on every start would take minutes). Checkpoint
    sub-folders (``checkpoint/``) are left out.
    """
    root = Path(folder)
    h = hashlib.sha256()
    for p in sorted(q for q in root.rglob("*") if q.is_file() and "checkpoint" not in q.relative_to(root).parts):
        size = p.stat().st_size
        h.update(f"{p.relative_to(root).as_posix()}\0{size}\0".encode())
        with p.open("rb") as f:
            if size <= _FULL_HASH_LIMIT:
                for chunk in iter(lambda: f.read(2**20), b""):
                    h.update(chunk)
            else:
                h.update(f.read(16 * 2**20))
                f.seek(size - 16 * 2**20)
                h.update(f.read())
    return h.hexdigest()


def _import_stack(adapter: bool = False) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    for module in ("torch", "transformers") + (("peft",) if adapter else ()):
        try:
            __import__(module)
        except ImportError:
            raise MissingDependency("hf-local", module, "local") from None
    import torch

    return torch


def pick_device(device: str = "auto") -> str:
    """``auto`` -> ``cuda`` if available, else ``mps``, else ``cpu``; anything else as given (checked)."""
    torch = _import_stack()
    if device == "auto":
        if torch.cuda.is_available():
            return "cuda"
        mps = getattr(torch.backends, "mps", None)
        return "mps" if mps is not None and mps.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ModelConfigError(f"device={device!r} but this torch has no CUDA device; use device=cpu or auto")
    if device == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise ModelConfigError("device='mps' but Apple MPS is not available; use device=cpu or auto")
    if not (device == "cpu" or device == "mps" or device.startswith("cuda")):
        raise ModelConfigError(f"device must be auto, cpu, mps, cuda or cuda:N, got {device!r}")
    return device


def _torch_dtype(dtype: str, device: str) -> Any:
    torch = _import_stack()
    if dtype not in _DTYPES:
        raise ModelConfigError(f"dtype must be one of {_DTYPES}, got {dtype!r}")
    if dtype == "auto":
        if device.startswith("cuda"):
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float16 if device == "mps" else torch.float32
    return getattr(torch, dtype)


def _check_folder(path: Path, what: str) -> None:
    if not path.is_dir():
        raise ModelConfigError(f"hf-local: {what} folder {path} does not exist (hf-local loads local folders "
                               f"only and never downloads: download the weights first, e.g. "
                               f"`huggingface-cli download Qwen/Qwen2.5-VL-7B-Instruct --local-dir {path}`)")


@dataclass
class LocalVLM:
    """A loaded processor and model (shared per process)."""

    processor: Any
    model: Any
    device: str
    dtype: Any
    lock: threading.Lock = field(default_factory=threading.Lock)


_LOADED: dict[tuple, LocalVLM] = {}
_LOAD_LOCK = threading.Lock()


def load_local_vlm(path: str | Path, *, adapter: str | Path | None = None, device: str = "auto",
                   dtype: str = "auto", trainable: bool = False) -> LocalVLM:
    """Load ``AutoProcessor`` + ``AutoModelForImageTextToText`` from ``path`` (offline), plus an adapter.

    ``trainable=True`` returns a fresh copy in train mode (never the shared one).
    """
    _import_stack(adapter is not None)
    folder = Path(path).expanduser().resolve()
    _check_folder(folder, "model")
    if not (folder / "config.json").is_file():
        raise ModelConfigError(f"hf-local: {folder} has no config.json: it is not a transformers model folder "
                               f"(point hf-local at the folder that holds config.json and the weights)")
    dev = pick_device(device)
    tdtype = _torch_dtype(dtype, dev)
    key = (str(folder), str(Path(adapter).resolve()) if adapter else None, dev, str(tdtype))
    with _LOAD_LOCK:
        if not trainable and key in _LOADED:
            return _LOADED[key]
        from transformers import AutoConfig, AutoModelForImageTextToText, AutoProcessor

        try:
            config = AutoConfig.from_pretrained(folder, local_files_only=True)
        except (OSError, ValueError, KeyError) as e:
            raise ModelConfigError(f"hf-local: cannot read the model config in {folder}: {e}") from e
        supported = _vlm_types()
        if supported is not None and config.model_type not in supported:
            raise ModelConfigError(f"hf-local: {folder} holds a {config.model_type!r} model, which is not a "
                                   f"vision-language model that AutoModelForImageTextToText loads (e.g. "
                                   f"qwen2_5_vl, llava, idefics3, gemma3); text-only models cannot read the pages")
        try:
            processor = AutoProcessor.from_pretrained(folder, local_files_only=True)
        except ImportError as e:  # e.g. Qwen2-VL's video processor needs torchvision
            raise ModelConfigError(f"hf-local: the processor of {folder} needs a package that is not installed "
                                   f"(install the one named, matching your torch build): {str(e).strip()[:300]}") from e
        except (OSError, ValueError, TypeError) as e:
            raise ModelConfigError(f"hf-local: cannot load the processor of {folder}: {e}") from e
        if not hasattr(processor, "image_processor"):
            raise ModelConfigError(f"hf-local: {folder} holds a {type(processor).__name__}, not a vision-language "
                                   f"processor (model_type {config.model_type!r}): hf-local needs a model that "
                                   f"takes images (e.g. Qwen2.5-VL, LLaVA, Idefics3, Gemma 3)")
        try:
            model = AutoModelForImageTextToText.from_pretrained(folder, local_files_only=True, dtype=tdtype)
        except ValueError as e:
            raise ModelConfigError(f"hf-local: {folder} (model_type {config.model_type!r}) is not a supported "
                                   f"vision-language model for AutoModelForImageTextToText: {str(e)[:300]}") from e
        except OSError as e:
            raise ModelConfigError(f"hf-local: cannot load the weights in {folder}: {e}") from e
        if adapter is not None:
            model = _with_adapter(model, Path(adapter), trainable)
        model.to(dev)  # type: ignore[arg-type]  # transformers' stub types .to() for a model, not a device
        model.train(trainable)
        if not trainable:
            model.eval()
        vlm = LocalVLM(processor, model, dev, tdtype)
        if not trainable:
            _LOADED[key] = vlm
        return vlm


def _vlm_types() -> set | None:
    """Model types ``AutoModelForImageTextToText`` knows (None if this transformers hides the table)."""
    try:
        from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES
    except ImportError:
        return None
    return set(MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES)


def _with_adapter(model: Any, adapter: Path, trainable: bool) -> Any:
    from peft import PeftModel

    adapter = adapter.expanduser().resolve()
    _check_folder(adapter, "adapter")
    if not (adapter / "adapter_config.json").is_file():
        raise ModelConfigError(f"hf-local: adapter folder {adapter} has no adapter_config.json (pass the folder "
                               f"`webgauge understand finetune` wrote, e.g. OUT/position)")
    return PeftModel.from_pretrained(model, str(adapter), is_trainable=trainable, local_files_only=True)


def _pil(img: Image) -> Any:
    from PIL import Image as PILImage

    return PILImage.open(io.BytesIO(img.data)).convert("RGB")


def to_hf_conversation(messages: tuple[Message, ...]) -> list[dict]:
    """Messages in the processors' chat format: content parts ``{"type": "image", "image": PIL}`` / text."""
    out = []
    for m in messages:
        parts = [{"type": "image", "image": _pil(p)} if isinstance(p, Image) else {"type": "text", "text": p}
                 for p in m.content]
        out.append({"role": m.role, "content": parts})
    return out


def encode_chats(processor: Any, convs: list[list[dict]], *, add_generation_prompt: bool,
                 padding_side: str = "left") -> Any:
    """Tensors for a batch of conversations: chat template text + the images in order of appearance."""
    tok = getattr(processor, "tokenizer", processor)
    texts = [processor.apply_chat_template(c, add_generation_prompt=add_generation_prompt, tokenize=False)
             for c in convs]
    images = [[p["image"] for m in c for p in m["content"] if p["type"] == "image"] for c in convs]
    old, tok.padding_side = tok.padding_side, padding_side
    try:
        return processor(text=texts, images=images if any(images) else None, padding=True, return_tensors="pt")
    finally:
        tok.padding_side = old


def to_device(inputs: Any, device: str, dtype: Any) -> dict:
    """Move a processor's output to ``device``; floating tensors (pixels) to the model's dtype."""
    return {k: (v.to(device, dtype=dtype) if v.is_floating_point() else v.to(device)) if hasattr(v, "to") else v
            for k, v in inputs.items()}


@dataclass
class _Request:
    messages: tuple[Message, ...]
    config: GenerateConfig
    future: asyncio.Future


class HFLocalProvider:
    """A local vision-language model (see the module docstring)."""

    provider = "hf-local"
    honors_seed = True
    cacheable = True

    def __init__(self, model: str, *, adapter: str | None = None, device: str | None = None,
                 dtype: str | None = None, batch_size: int | None = None) -> None:
        if not model:
            raise ModelConfigError("the hf-local provider needs a folder: 'hf-local:PATH' "
                                   "(optionally 'hf-local:PATH?adapter=ADAPTER_DIR')")
        path, opts = parse_spec(model)
        self.model = model
        self.path = Path(path).expanduser().resolve()
        self.adapter = adapter or opts.get("adapter") or None
        self.device = device or opts.get("device") or "auto"
        self.dtype = dtype or opts.get("dtype") or "auto"
        if self.dtype not in _DTYPES:
            raise ModelConfigError(f"dtype must be one of {_DTYPES}, got {self.dtype!r}")
        try:
            self.batch_size = int(batch_size or opts.get("batch_size") or 1)
        except ValueError:
            raise ModelConfigError(f"batch_size must be an integer, got {opts.get('batch_size')!r}") from None
        if self.batch_size < 1:
            raise ModelConfigError("batch_size must be >= 1")
        _check_folder(self.path, "model")
        if self.adapter:
            _check_folder(Path(self.adapter).expanduser(), "adapter")
        # the core's concurrency limit is per endpoint: here, per loaded weights (+ adapter)
        self.endpoint = f"local:{self.path}" + (f"?adapter={Path(self.adapter).expanduser().resolve()}"
                                                 if self.adapter else "")
        self.default_concurrency = DEFAULT_CONCURRENCY
        self._identity: dict | None = None
        self._pending: dict[Any, list[_Request]] = {}

    def cache_identity(self) -> dict[str, Any]:
        """What changes the answers: the weights' and adapter's fingerprints, device and dtype."""
        if self._identity is None:
            self._identity = {
                "weights": folder_fingerprint(self.path),
                "adapter": folder_fingerprint(Path(self.adapter).expanduser()) if self.adapter else None,
                "device": self.device, "dtype": self.dtype}
        return self._identity

    def _vlm(self) -> LocalVLM:
        return load_local_vlm(self.path, adapter=self.adapter, device=self.device, dtype=self.dtype)

    async def complete(self, messages: tuple[Message, ...], config: GenerateConfig, timeout: float) -> Response:
        """Queue the call; the first waiting call of a batch runs the batch in a thread."""
        loop = asyncio.get_running_loop()
        req = _Request(messages, config, loop.create_future())
        queue = self._pending.setdefault(loop, [])
        queue.append(req)
        await asyncio.sleep(0)  # let calls issued together join the queue
        if req in queue:
            batch = self._take_batch(queue, req)
            try:
                results = await asyncio.to_thread(self._generate, batch)
            except BaseException as e:  # one failure fails the whole batch, each item recorded
                for r in batch:
                    if r is not req and not r.future.done():
                        r.future.set_exception(e if isinstance(e, Exception) else PermanentError(str(e)))
                raise
            for r, res in zip(batch, results, strict=True):
                if not r.future.done():
                    r.future.set_result(res)
        return await req.future

    def _take_batch(self, queue: list[_Request], first: _Request) -> list[_Request]:
        batch = [first]
        queue.remove(first)
        if first.config.temperature == 0:
            same = first.config.answer_settings()
            for r in list(queue):
                if len(batch) >= self.batch_size:
                    break
                if r.config.answer_settings() == same:
                    batch.append(r)
                    queue.remove(r)
        return batch

    def _generate(self, batch: list[_Request]) -> list[Response]:
        torch = _import_stack(self.adapter is not None)
        vlm = self._vlm()
        cfg = batch[0].config
        proc = vlm.processor
        tok = getattr(proc, "tokenizer", proc)
        convs = [to_hf_conversation(r.messages) for r in batch]
        with vlm.lock:
            try:
                inputs = encode_chats(proc, convs, add_generation_prompt=True, padding_side="left")
            except (ValueError, TypeError, KeyError) as e:
                raise PermanentError(f"hf-local {self.path}: the processor could not prepare the prompt "
                                     f"({type(e).__name__}: {e})", kind="bad_request") from e
            inputs = to_device(inputs, vlm.device, vlm.dtype)
            max_new = cfg.max_tokens or DEFAULT_MAX_TOKENS
            gen: dict[str, Any] = {"max_new_tokens": max_new, "do_sample": cfg.temperature > 0}
            if cfg.temperature > 0:
                gen["temperature"] = cfg.temperature
                if cfg.top_p is not None:
                    gen["top_p"] = cfg.top_p
                torch.manual_seed(cfg.seed if cfg.seed is not None else 0)
            if cfg.stop:
                gen["stop_strings"], gen["tokenizer"] = list(cfg.stop), tok
            gen.update(cfg.extra)
            with torch.inference_mode():
                out = vlm.model.generate(**inputs, **gen)
        prompt_len = inputs["input_ids"].shape[1]
        eos = _eos_ids(vlm.model, tok)
        results = []
        for row, mask in zip(out, inputs["attention_mask"], strict=True):
            new = row[prompt_len:].tolist()
            n_out = next((i for i, t in enumerate(new) if t in eos), None)
            finish = "stop" if n_out is not None else ("length" if len(new) >= max_new else "stop")
            new = new if n_out is None else new[:n_out]
            text = tok.decode(new, skip_special_tokens=True)
            if cfg.stop:
                cut = [text.find(s) for s in cfg.stop if s in text]
                if cut:
                    text, finish = text[:min(cut)], "stop"
            results.append(Response(text=text, finish_reason=finish,
                                    usage=Usage(input_tokens=int(mask.sum()), output_tokens=len(new)),
                                    raw={"device": vlm.device, "batch": len(batch)}))
        return results

    async def aclose(self) -> None:
        """Nothing to close: weights stay loaded for the process (shared by model objects)."""


def _eos_ids(model: Any, tok: Any) -> set[int]:
    eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    ids = set(eos if isinstance(eos, (list, tuple)) else [eos] if eos is not None else [])
    if tok.eos_token_id is not None:
        ids.add(tok.eos_token_id)
    if tok.pad_token_id is not None:
        ids.add(tok.pad_token_id)
    return ids


def create(model: str, **options: Any) -> HFLocalProvider:
    """Factory registered as ``hf-local``."""
    return HFLocalProvider(model, **options)


def describe_folder(folder: str | Path) -> dict:
    """``{"model_type", "architectures"}`` of a model folder's config.json (no torch needed)."""
    cfg = json.loads((Path(folder) / "config.json").read_text())
    return {"model_type": cfg.get("model_type"), "architectures": cfg.get("architectures")}
