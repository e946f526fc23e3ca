"""A reproducibility signature for a course_lib BERTScore, like bert-score's hash.

A score is only comparable with another computed under the same settings. The signature
records them in one string that a report can quote next to its numbers:

    all-MiniLM-L6-v2_L4_no-idf_raw_course_lib=0.1.0_torch=2.x_transformers=4.x

model (a name, never a machine path) _ L<layer> _ idf|no-idf _ raw|rescaled
[_no-special] _ versions of course_lib, torch and transformers.
Unlike bert-score's hash it records the *installed* package versions (from the package
metadata) and the layer actually used when `num_layers=None`.
"""
from __future__ import annotations

import importlib.metadata
import os

from course_lib.model import EMBEDDED_MODEL, default_layer, is_embedded

PACKAGES = ("course_lib", "torch", "transformers")


def model_name(model_type: str | None) -> str:
    """A machine-independent name: the embedded model's short name, a hub name as given,
    or only the last part of a local directory (`/some/dir/my-model/` -> `my-model`)."""
    if is_embedded(model_type):
        return EMBEDDED_MODEL.split("/")[-1]
    name = str(model_type).rstrip("/\\")
    if os.path.isdir(os.path.expanduser(name)) or name.startswith((".", "/", "~")):
        return os.path.basename(name)
    return name


def versions(packages=PACKAGES) -> dict[str, str]:
    """Installed version of each package ('unknown' when it has no metadata)."""
    out = {}
    for package in packages:
        try:
            out[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            out[package] = "unknown"
    return out


def signature(model_type=None, num_layers=None, idf=False, rescale_with_baseline=False,
              exclude_special=False) -> str:
    """The settings of a `course_lib.score` call as one string (same arguments, same meaning).

    idf may be True/False or a dict of weights (recorded as 'idf'; *which* corpus gave the
    weights is not recorded: say it in the report).
    """
    layer = default_layer(model_type) if num_layers is None else num_layers
    if not isinstance(layer, int) or isinstance(layer, bool) or layer < 0:
        raise ValueError(f"num_layers must be a non-negative int or None, got {num_layers!r}")
    use_idf = idf is not False and idf is not None
    parts = [model_name(model_type), f"L{layer}", "idf" if use_idf else "no-idf",
             "rescaled" if rescale_with_baseline else "raw"]
    if exclude_special:
        parts.append("no-special")
    parts += [f"{name}={version}" for name, version in versions().items()]
    return "_".join(parts)
