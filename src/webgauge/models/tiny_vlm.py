"""A tiny vision-language model with random weights, built on the spot, for tests and recipes.

``build_tiny_vlm(folder)`` writes a real ``transformers`` LLaVA model (a CLIP vision tower, a
two-layer MLP projector and a Qwen2 language model, each a few tens of thousands of
parameters) with a byte-level BPE tokenizer trained here with ``tokenizers`` on the
benchmark's own prompts, a chat template and a CLIP image processor, all saved with
``save_pretrained``. It loads with ``AutoProcessor`` and ``AutoModelForImageTextToText``
exactly as a downloaded checkpoint does, so the ``hf-local`` provider and ``understand
finetune`` run their real code paths on it without downloading anything.

Weights are drawn with a wide ``init_std`` (0.3 rather than the usual 0.02): with 32 hidden units
behind an RMS norm, the usual scale caps every logit near zero, and a LoRA adapter (which does
not touch the output layer, as in the paper) could then barely move the loss.

Why LLaVA and not Qwen2.5-VL (the paper's model): with ``transformers`` 5 the Qwen2-VL family's
processor always carries a video processor, which needs ``torchvision``; the CPU build of
``torchvision`` is not on PyPI. LLaVA's processor needs only Pillow. The language model is a
Qwen2 stack, so LoRA targets the same projection names as on Qwen2.5-VL.

The answers of a random model are noise; the point is that every step (chat template,
image tokens, generation, LoRA training, adapter loading) is exercised. Same ``seed``, same
weights.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["build_tiny_vlm", "TINY_CHAT_TEMPLATE", "TINY_SPECIAL_TOKENS"]

TINY_SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<image>")

# ChatML, the format of the Qwen family; an image part becomes one <image> token that the
# processor expands to the image's patch tokens.
TINY_CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for c in message['content'] %}{% if c['type'] == 'image' %}<image>"
    "{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


_WORDS = ("contain overlap top-left top-right bottom-left bottom-right left right top bottom "
          "top bar, left sidebar, right sidebar, bottom bar, main content, else, NONE, Sign up, Delete account, "
          "Submit, Search, Buy now, Log in")


def _corpus() -> list[str]:
    """Text the tokenizer learns from: the understand prompts (read as files: importing the suite
    would pull in the browser layer) and the words its answers use."""
    prompts = Path(__file__).resolve().parents[1] / "understand" / "prompts"
    texts = [p.read_text() for p in sorted(prompts.glob("*.txt"))] + [_WORDS]
    texts += [f"{i}-{j}: " for i in range(1, 5) for j in range(1, 5)]
    return texts * 4


def build_tiny_vlm(folder: str | Path, *, seed: int = 0, hidden_size: int = 32, layers: int = 2,
                   image_size: int = 56, vocab_size: int = 800, init_std: float = 0.3) -> Path:
    """Write a tiny random LLaVA model + processor into ``folder`` (see module docstring); returns it."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import (
        CLIPImageProcessor,
        CLIPVisionConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
        PreTrainedTokenizerFast,
        Qwen2Config,
    )
    from transformers.utils import logging as hf_logging

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(TINY_SPECIAL_TOKENS),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    bpe.train_from_iterator(_corpus(), trainer)
    tok = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                  chat_template=TINY_CHAT_TEMPLATE, extra_special_tokens={"image_token": "<image>"})
    ids: dict[str, int] = {t: int(tok.convert_tokens_to_ids(t)) for t in TINY_SPECIAL_TOKENS}  # type: ignore[arg-type]
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # "CLIPImageProcessor falls back to the PIL backend": expected here
    try:
        images = CLIPImageProcessor(size={"shortest_edge": image_size},
                                    crop_size={"height": image_size, "width": image_size})
    finally:
        hf_logging.set_verbosity(verbosity)
    processor = LlavaProcessor(image_processor=images, tokenizer=tok, patch_size=14, image_token="<image>",
                               vision_feature_select_strategy="default", num_additional_image_tokens=1,
                               chat_template=TINY_CHAT_TEMPLATE)
    config = LlavaConfig(
        text_config=Qwen2Config(vocab_size=len(tok), hidden_size=hidden_size, intermediate_size=2 * hidden_size,
                                num_hidden_layers=layers, num_attention_heads=2, num_key_value_heads=1,
                                max_position_embeddings=2048, bos_token_id=None, eos_token_id=ids["<|im_end|>"],
                                pad_token_id=ids["<|endoftext|>"], initializer_range=init_std),
        vision_config=CLIPVisionConfig(hidden_size=hidden_size, intermediate_size=2 * hidden_size,
                                       num_hidden_layers=layers, num_attention_heads=2, image_size=image_size,
                                       patch_size=14, projection_dim=hidden_size),
        image_token_index=ids["<image>"], vision_feature_select_strategy="default", vision_feature_layer=-1,
        initializer_range=init_std)  # type: ignore[call-arg]  # a PretrainedConfig keyword, not in the stub
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(config)
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    model.generation_config.bos_token_id = None
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


def main(argv: list[str] | None = None) -> None:
    """``python -m webgauge.models.tiny_vlm OUT [--seed N]``: write a tiny random VLM folder."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m webgauge.models.tiny_vlm", description=main.__doc__)
    ap.add_argument("out", help="folder to write (hf-local:OUT loads it)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(f"tiny vision-language model written to {build_tiny_vlm(args.out, seed=args.seed)}")


if __name__ == "__main__":
    main()
