"""The embedded model is checked file by file when it is loaded, and loading changes no environment.

Each test corrupts a copy of the model's directory (the 90 MB weights are linked, not copied,
unless the test corrupts them) and loads it through `load()`, as every scorer does: deleting the
check from `model.resolve()` makes these tests fail.
"""
import os
import subprocess
import sys

import pytest

from course_lib import model
from course_lib.caching import Cache

SOURCE = model.embedded_model_path()


@pytest.fixture
def model_copy(tmp_path, monkeypatch):
    """A copy of the embedded model's directory that `load()` will use, and nothing cached."""
    copy = tmp_path / "all-MiniLM-L6-v2"
    for name in model.EMBEDDED_FILES_SHA256:
        target = copy / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if name == "model.safetensors":
            target.symlink_to(SOURCE / name)
        else:
            target.write_bytes((SOURCE / name).read_bytes())
    monkeypatch.setattr(model, "embedded_model_path", lambda: copy)
    monkeypatch.setattr(model, "_LOADED", Cache())
    monkeypatch.setattr(model, "_VERIFIED", set())
    return copy


def test_every_file_of_the_model_directory_is_recorded():
    on_disk = {f.relative_to(SOURCE).as_posix() for f in SOURCE.rglob("*") if f.is_file()}
    assert on_disk == set(model.EMBEDDED_FILES_SHA256)
    assert {"vocab.txt", "config.json", "tokenizer_config.json", "model.safetensors"} <= on_disk


def test_an_intact_copy_loads(model_copy):
    tokenizer, bert = model.load(device="cpu")
    assert bert.config.hidden_size == 384 and tokenizer.vocab_size == 30522


def test_two_swapped_vocabulary_lines_are_refused(model_copy):
    vocab = model_copy / "vocab.txt"
    lines = vocab.read_text(encoding="utf-8").splitlines(keepends=True)
    k = lines.index("cat\n")
    lines[k], lines[k + 1] = lines[k + 1], lines[k]
    vocab.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(model.ModelNotAvailableError, match=r"vocab\.txt.*checksum"):
        model.load(device="cpu")


def test_a_changed_activation_in_config_is_refused(model_copy):
    config = model_copy / "config.json"
    text = config.read_text()
    assert '"hidden_act": "gelu"' in text
    config.write_text(text.replace('"hidden_act": "gelu"', '"hidden_act": "relu"'))
    with pytest.raises(model.ModelNotAvailableError, match=r"config\.json.*checksum"):
        model.load(device="cpu")


def test_corrupt_weights_are_refused(model_copy):
    weights = model_copy / "model.safetensors"
    weights.unlink()
    data = bytearray((SOURCE / "model.safetensors").read_bytes())
    data[-1] ^= 1  # one bit of the last weight
    weights.write_bytes(bytes(data))
    with pytest.raises(model.ModelNotAvailableError, match=r"model\.safetensors.*checksum"):
        model.load(device="cpu")


def test_a_missing_file_is_named(model_copy):
    (model_copy / "tokenizer_config.json").unlink()
    with pytest.raises(model.ModelNotAvailableError, match=r"tokenizer_config\.json is missing"):
        model.load(device="cpu")


def test_an_extra_file_is_named(model_copy):
    (model_copy / "added_tokens.json").write_text('{"[NEW]": 30522}')
    with pytest.raises(model.ModelNotAvailableError, match=r"added_tokens\.json"):
        model.load(device="cpu")


def test_loading_sets_no_environment_variable():
    code = ("import os; from course_lib.model import load; load(device='cpu'); "
            "print(sorted(k for k in os.environ if k.startswith(('HF_', 'TRANSFORMERS_'))))")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_"))}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout
