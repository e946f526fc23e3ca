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

from course_lib.call.setting import Setting, resolve_setting

PACKAGES = ("course_lib", "torch", "transformers")


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
    """The settings of a `course_lib.score` call as one string (same arguments, same meaning,
    resolved by the same `resolve_setting`: a layer `score` refuses is refused here too).

    idf may be True/False or a dict of weights (recorded as 'idf'; *which* corpus gave the
    weights is not recorded: say it in the report).
    """
    setting = resolve_setting(model_type, num_layers, idf, rescale_with_baseline=rescale_with_baseline)
    return signature_of(setting, exclude_special)


def signature_of(setting: Setting, exclude_special: bool = False) -> str:
    """The signature of a resolved setting: the model's machine-independent name
    (`ModelRef.display_name`), the layer actually used, idf, rescaling, the versions."""
    parts = [setting.model.display_name, f"L{setting.layer}", "idf" if setting.idf else "no-idf",
             "rescaled" if setting.rescale_with_baseline else "raw"]
    if exclude_special:
        parts.append("no-special")
    parts += [f"{name}={version}" for name, version in versions().items()]
    return "_".join(parts)
