"""The model registry: every name builds, follows the interface and is described."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models import FAMILIES, REGISTRY, build, describe_models, model_class
from models.base import RecurrentModel, SequenceModel

NAMES = [
    "transformer", "lstm", "gru", "mamba", "dss", "linear-transformer", "retnet",
    "concat-transformer", "looped",
]  # fmt: skip


def test_names():
    assert list(REGISTRY) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_every_model_follows_the_interface(name):
    torch.manual_seed(0)
    layers = 1 if name == "concat-transformer" else 2  # the mixture-of-parrots one-layer class
    model = build(name, vocab_size=4, n_out=3, width=8, layers=layers)
    assert isinstance(model, SequenceModel) and model.name == name
    t = torch.randint(0, 4, (2, 6), generator=torch.Generator().manual_seed(0))
    assert model(t).shape == (2, 6, 3)
    described = model.describe()
    assert described["parameters"] == described["total_parameters"] == model.param_count() > 0
    assert 0 < described["active_parameters"] <= described["total_parameters"]
    assert model.recurrent == isinstance(model, RecurrentModel)
    if model.recurrent:
        assert model.state_numel() > 0
        assert (model(t) - model.run_steps(t)[0]).abs().max() < 1e-4
    with torch.no_grad():
        model.set_precision(FixedPoint(16, 8))
        out = model(t)
        assert torch.equal(out, model(t))
        if model.recurrent:
            assert torch.equal(out, model.run_steps(t)[0])


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(InputError, match="unknown model 'rwkv'; known: transformer, lstm, gru"):
        build("rwkv")


@pytest.mark.parametrize("name", NAMES)
def test_unknown_config_field(name):
    with pytest.raises(InputError, match="no field"):
        build(name, not_a_field=1)


def test_describe_models():
    described = describe_models()
    assert [d["name"] for d in described] == NAMES
    by_name = {d["name"]: d for d in described}
    attention = ("transformer", "concat-transformer", "looped")
    assert not any(by_name[n]["recurrent"] for n in attention)
    assert all(by_name[n]["recurrent"] for n in NAMES if n not in attention)
    assert by_name["transformer"]["config"]["max_length"] == 64
    assert by_name["dss"]["config"]["state_size"] == 16
    for d in described:
        assert {"vocab_size", "n_out", "width", "layers"} <= set(d["config"])
        assert d["description"] and "\n" not in d["description"]


def test_registry_is_torch_free_and_modules_are_imported_lazily():
    code = (
        "import models, sys; models.family('lstm'); "
        "print(sorted(m for m in sys.modules if m.startswith(('models.', 'torch'))))"
    )
    root = Path(__file__).parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_families_cover_the_registry():
    assert set(FAMILIES) == set(REGISTRY)
    for name in REGISTRY:
        recurrent = issubclass(model_class(name), RecurrentModel)
        assert (FAMILIES[name] == "recurrent") == recurrent
        assert FAMILIES[name] in ("recurrent", "attention", "concat-attention", "looped")
    assert FAMILIES["concat-transformer"] == "concat-attention"
    assert FAMILIES["looped"] == "looped"  # depth k L: one-layer transformer claims must not match


ONE_LAYER = "concat-transformer"  # Sec. 3 of the parrots paper: one layer only


@pytest.mark.parametrize("name", sorted(REGISTRY))
@pytest.mark.parametrize("options", [{"width": 8}, {"width": 12, "layers": 2, "experts": 4}])
def test_the_size_check_counts_what_a_built_model_holds(name, options):
    """``check_size`` counts on the meta device with the random fills skipped: the same numbers
    as the model built on the CPU, parameters and buffers."""
    import dataclasses

    from models import check_size, config_class

    fields = {f.name for f in dataclasses.fields(config_class(model_class(name)))}
    config = config_class(model_class(name)).from_dict(
        {k: v for k, v in options.items() if k in fields and (k, name) != ("layers", ONE_LAYER)}
    )
    model = model_class(name)(config)
    held = sum(t.numel() for t in [*model.parameters(), *model.buffers()])
    assert check_size(name, config) == held
