"""Ensembles: every member trains as if alone (compared with single runs), grouping, fallbacks."""

from __future__ import annotations

import pytest
import torch

import models
from ccomplexity.errors import InputError
from simulations import stacks
from simulations.checkpoints import load_checkpoint
from simulations.ensemble import StaticStep, train_ensemble
from simulations.recipes import Recipe, make_optimizer, set_lr
from simulations.stacked_optim import StackedAdam
from simulations.stacks import BATCHED, LoopStack, VmapStack
from simulations.training import TrainConfig, build_model, train
from simulations.units import plan_groups, shape_key

BASE = TrainConfig.of(
    task="index-lookup", arch="transformer", width=8, layers=2, length=6, heads=2, steps=12,
    eval_every=4, eval_samples=40, batch=8,
)  # fmt: skip
MEMBERS = [(3e-3, 0), (1e-2, 1), (1e-3, 2)]  # (lr, seed)


@pytest.fixture(autouse=True)
def _one_thread(one_thread):
    """Every test here on one torch thread."""


def members(**change) -> list[TrainConfig]:
    base = BASE.replace(**change)
    return [base.replace(lr=lr, seed=seed) for lr, seed in MEMBERS]


def weights(path: str) -> dict[str, torch.Tensor]:
    return load_checkpoint(path)[0].state_dict()


def test_plan_groups_by_shape_capped_in_order():
    a = members()
    b = members(length=8)
    groups = plan_groups([a[0], b[0], a[1], a[2], b[1]], cap=2)
    assert groups == [[a[0], a[1]], [a[2]], [b[0], b[1]]]
    assert plan_groups(a, cap=1) == [[c] for c in a]
    assert shape_key(a[0]) == shape_key(a[1]) != shape_key(b[0])
    for bad in (0, -1, True, 2.0):
        with pytest.raises(InputError, match="ensemble size"):
            plan_groups(a, cap=bad)


def test_runs_with_a_further_loss_term_train_alone():
    plain = members()
    regularised = members(reg_lambda=1.0, reg_block=1)
    groups = plan_groups([*plain, *regularised], cap=16)
    assert groups == [plain, *([c] for c in regularised)]
    with pytest.raises(InputError, match="trains alone"):
        train_ensemble(regularised[:2], device="cpu")


def test_members_report_what_single_runs_report_beyond_the_curve():
    """Addition's accuracy at its further operand counts, as the single run measures it."""
    configs = members(task="addition", length=4, digits=1, reverse=True, steps=8)[:2]
    together = train_ensemble(configs, device="cpu")
    for config, result in zip(configs, together, strict=True):
        alone = train(config, progress=False, device="cpu")
        assert set(result["accuracy_by_length"]) == {2, 3, 4}
        assert result["accuracy_by_length"] == alone["accuracy_by_length"]


def test_stacked_adam_is_torch_adam_bit_for_bit():
    gen = torch.Generator().manual_seed(0)
    lrs = [1e-2, 3e-3, 1e-4]
    stacked = [torch.randn(3, 5, 4, generator=gen), torch.randn(3, 7, generator=gen)]
    own = [[p[i].clone().requires_grad_() for p in stacked] for i in range(3)]
    optimisers = [torch.optim.Adam(o, lr=lr) for o, lr in zip(own, lrs, strict=True)]
    stacked = [p.clone().requires_grad_() for p in stacked]
    adam = StackedAdam(stacked, lrs)
    for _ in range(5):
        grads = [torch.randn(p.shape, generator=gen) for p in stacked]
        for i, optimiser in enumerate(optimisers):
            for p, g in zip(own[i], grads, strict=True):
                p.grad = g[i].clone()
            optimiser.step()
        for p, g in zip(stacked, grads, strict=True):
            p.grad = g.clone()
        adam.step()
    for i in range(3):
        for k in range(2):
            assert torch.equal(stacked[k][i].detach(), own[i][k].detach())


@pytest.mark.parametrize("optimizer", ["adam", "adamw"])
def test_stacked_adam_follows_the_recipe_as_torch_does(optimizer):
    """Weight decay (Adam's L2, AdamW's decoupled), the warm-up and cosine schedule and each
    member's gradient clipped to its own norm: torch's optimiser, clip_grad_norm_ and rate,
    member by member, to float tolerance."""
    recipe = Recipe(
        optimizer=optimizer, weight_decay=0.1, schedule="warmup-cosine", warmup=2, clip=0.5, steps=6
    )
    gen = torch.Generator().manual_seed(1)
    lrs = [1e-2, 3e-3]
    start = [torch.randn(2, 5, 4, generator=gen), torch.randn(2, 7, generator=gen)]
    own = [[p[i].clone().requires_grad_() for p in start] for i in range(2)]
    optimisers = [make_optimizer(optimizer, o, lr, 0.1) for o, lr in zip(own, lrs, strict=True)]
    stacked = StackedAdam([p.clone().requires_grad_() for p in start], lrs, recipe)
    for step in range(1, 7):
        grads = [3 * torch.randn(p.shape, generator=gen) for p in start]  # norms above the clip
        for i, optimiser in enumerate(optimisers):
            for p, g in zip(own[i], grads, strict=True):
                p.grad = g[i].clone()
            torch.nn.utils.clip_grad_norm_(own[i], 0.5)
            set_lr(optimiser, lrs[i] * recipe.factor(step))
            optimiser.step()
        for p, g in zip(stacked.params, grads, strict=True):
            p.grad = g.clone()
        stacked.step()
    for i in range(2):
        for k in range(2):
            assert torch.allclose(stacked.params[k][i], own[i][k], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("arch", "optimizer", "gpu_form", "strategy"),
    [
        ("transformer", "adamw", False, "vmap"),
        ("lstm", "adafactor", False, "loop"),
        ("dss", "adam", False, "vmap"),
        ("looped", "adafactor", False, "loop"),  # the CPU: torch's Adafactor, member by member
        ("looped", "adafactor", True, "vmap"),  # the GPU's stacked Adafactor, forced on the CPU
    ],
)
def test_members_follow_their_single_runs_recipe(arch, optimizer, gpu_form, strategy, monkeypatch):
    """A recipe (optimiser, decay, schedule, warm-up, clipping) in an ensemble: every member's
    curve, steps, verdict and last rate are its single run's, stacked or member by member."""
    if gpu_form:
        monkeypatch.setattr(stacks, "STACKED_ADAFACTOR_DEVICES", {"cpu"})
    recipe = {"optimizer": optimizer, "weight_decay": 0.1, "schedule": "warmup-cosine",
              "warmup": 5, "clip": 0.5}  # fmt: skip
    configs = members(arch=arch, steps=30, **recipe)[:2]
    together = train_ensemble(configs, device="cpu")
    assert together[0]["ensemble"]["strategy"] == strategy
    for config, result in zip(configs, together, strict=True):
        alone = train(config, progress=False, device="cpu")
        for key in ("curve", "steps", "verdict", "accuracy_ci", "lr_final", "config_hash"):
            assert result[key] == alone[key], key


def test_the_static_step_on_the_cpu_is_a_plain_step():
    configs = members()[:2]
    models_ = [build_model(c)[0] for c in configs]
    stack = VmapStack(models_, [c.recipe.lr for c in configs], torch.device("cpu"))
    task = build_model(configs[0])[1]
    gen = torch.Generator().manual_seed(0)
    batch = [torch.stack(t) for t in zip(*(task.sample(8, 6, gen) for _ in configs), strict=True)]
    static = StaticStep(stack, batch, torch.device("cpu"))
    assert not static.graphed
    before = {n: p.detach().clone() for n, p in stack.params.items()}
    static.run(*batch)
    assert stack.optimiser.steps == 1
    assert any(not torch.equal(before[n], p) for n, p in stack.params.items())


@pytest.fixture
def batched_on_cpu(monkeypatch):
    """Every batched form, also where the CPU would run the members one after the other."""
    monkeypatch.setattr(stacks, "CPU_LOOP", ())
    monkeypatch.setattr(stacks, "CPU_BATCHED_WORK", float("inf"))


@pytest.mark.parametrize("arch", ["lstm", "gru"])
def test_the_block_diagonal_rnn_trains_each_member_as_if_alone(arch, monkeypatch, batched_on_cpu):
    """The GPU's block-diagonal LSTM and GRU (forced here on the CPU): same curves as each member
    trained alone, weights equal to float tolerance, and no member's gradient reaches another's
    block."""
    monkeypatch.setattr(stacks, "BLOCK_DEVICES", {"cpu"})
    configs = members(arch=arch, layers=2)
    together = train_ensemble(configs, device="cpu")
    assert {r["ensemble"]["strategy"] for r in together} == {"block-diagonal"}
    for config, result in zip(configs, together, strict=True):
        alone = train(config, progress=False, device="cpu")
        assert (result["curve"], result["steps"]) == (alone["curve"], alone["steps"])
    weight = torch.randn(3, 4 * 5, 5, requires_grad=True)
    joined = stacks.block_diagonal(weight, 5)
    assert joined.shape == (4 * 3 * 5, 3 * 5)
    for g in range(4):  # gate g of member m: rows g*15 + 5m.., its own 5 columns
        for m in range(3):
            rows = slice(g * 15 + 5 * m, g * 15 + 5 * m + 5)
            assert torch.equal(joined[rows, 5 * m : 5 * m + 5], weight[m, 5 * g : 5 * g + 5])
            others = torch.ones(15, dtype=torch.bool)
            others[5 * m : 5 * m + 5] = False
            assert joined[rows][:, others].eq(0).all()
    joined[:15, :5].sum().backward()  # member 0's gate 0 block only
    assert weight.grad[0, :5].eq(1).all() and weight.grad[0, 5:].eq(0).all()
    assert weight.grad[1:].eq(0).all()


def test_a_member_stopping_first_leaves_the_block_rnn_in_training_mode(monkeypatch, batched_on_cpu):
    """The first member's result sets its model to eval mode on the CPU; the block-diagonal RNN
    of the members still training must stay in training mode (cuDNN refuses a backward through
    an RNN run in eval mode: every other member of such an ensemble failed on a GPU)."""
    monkeypatch.setattr(stacks, "BLOCK_DEVICES", {"cpu"})
    configs = members(arch="lstm", layers=1, task="dyck", length=4)  # accuracy > 0 at once
    configs[0] = configs[0].replace(target=1e-9)  # stops at the first evaluation
    calls: list[tuple[bool, bool]] = []  # (grad enabled, the RNN's train flag)
    lstm = torch._VF.lstm

    def spy(*args):
        calls.append((torch.is_grad_enabled(), args[6]))
        return lstm(*args)

    monkeypatch.setattr(torch._VF, "lstm", spy)
    results = train_ensemble(configs, device="cpu")
    assert [r["steps"] for r in results] == [4, 12, 12]
    assert len(calls) > 12 and all(train for grad, train in calls if grad)
    assert any(not train for grad, train in calls if not grad)  # the evaluations: eval mode


@pytest.mark.filterwarnings("error:.*batched form")  # no fallback to one member at a time
@pytest.mark.parametrize(
    ("arch", "extra"),
    [
        (
            "concat-transformer",
            {
                "task": "length2-path",
                "length": 4,
                "layers": 1,
                "heads": 1,
                "experts": 4,
                "gate": "softmax",
            },
        ),
        (
            "looped",
            {
                "task": "kg-path",
                "entities": 8,
                "relations": 4,
                "length": 2,
                "layers": 1,
                "loops": 2,
                "experts": 4,
                "expert": "glu",
            },
        ),
    ],
)
def test_mixture_of_experts_members_train_batched_as_if_alone(
    arch, extra, batched_on_cpu, monkeypatch
):
    """Experts route rows with ``nonzero``, which vmap cannot batch; on a GPU (forced here on
    the CPU) the ensemble's template routes densely instead, so the members train as one vmap
    stack, with the curves of each member trained alone."""
    monkeypatch.setattr(stacks, "DENSE_ROUTING_DEVICES", {"cpu"})
    configs = members(arch=arch, **extra)
    together = train_ensemble(configs, device="cpu")
    assert {r["ensemble"]["strategy"] for r in together} == {"vmap"}
    for config, result in zip(configs, together, strict=True):
        alone = train(config, progress=False, device="cpu")
        assert (result["curve"], result["steps"]) == (alone["curve"], alone["steps"])


def test_the_cpu_batches_only_tiny_models():
    cpu, cuda = torch.device("cpu"), torch.device("cuda")
    tiny, large = BASE, BASE.replace(width=64, length=64, batch=32)
    assert stacks.work(tiny) < stacks.CPU_BATCHED_WORK < stacks.work(large)
    assert stacks.batched_form(tiny, cpu) is VmapStack
    assert stacks.batched_form(large, cpu) is LoopStack
    assert stacks.batched_form(large, cuda) is VmapStack
    lstm = tiny.replace(arch="lstm")
    assert stacks.batched_form(lstm, cpu) is LoopStack
    assert stacks.batched_form(lstm, cuda) is stacks.RecurrenceStack
    experts = tiny.replace(experts=4)  # routed on the CPU: no vmap rule, no warning
    assert stacks.batched_form(experts, cpu) is LoopStack
    assert stacks.batched_form(experts, cuda) is VmapStack
    adafactor = tiny.replace(optimizer="adafactor")  # as the CPU's stores trained
    assert stacks.batched_form(adafactor, cpu) is LoopStack
    assert stacks.batched_form(adafactor, cuda) is VmapStack


@pytest.mark.parametrize("arch", list(models.REGISTRY))
def test_every_architecture_trains_each_member_as_if_alone(arch, tmp_path, batched_on_cpu):
    """The ensemble against the same configs run one by one with train(): same hashes, steps and
    accuracy curves, weights equal to float tolerance (batched matmuls and reductions may round
    differently in the last bit, and Adam carries that along)."""
    configs = members(arch=arch, layers=1 if arch == "concat-transformer" else 2)  # one layer
    alone = [
        train(c, checkpoint_dir=tmp_path / "alone", progress=False, device="cpu") for c in configs
    ]
    together = train_ensemble(configs, checkpoint_dir=tmp_path / "together", device="cpu")
    expected = BATCHED[arch].strategy if arch in BATCHED else "loop"
    hashes = [c.config_hash() for c in configs]
    expected_form = {"members": 3, "strategy": expected, "configs": hashes}
    assert all({k: r["ensemble"][k] for k in expected_form} == expected_form for r in together)
    for r in together:  # where the ensemble's time went, up to this member's stop
        timing = r["ensemble"]["timing"]
        assert timing["steps"] == r["steps"] and timing["member_steps"] >= r["steps"]
        parts = ("setup_seconds", "train_seconds", "eval_seconds", "result_seconds")
        assert all(timing[k] >= 0 for k in parts)
        total = sum(timing[k] for k in parts)  # from the start to just after the result
        assert r["wall_seconds"] - 0.01 <= total <= r["wall_seconds"] + 1.0
    for a, b in zip(alone, together, strict=True):
        assert b["config_hash"] == a["config_hash"] and b["config"] == a["config"]
        assert (b["steps"], b["curve"], b["best_accuracy"]) == (
            a["steps"],
            a["curve"],
            a["best_accuracy"],
        )
        assert (b["parameters"], b["state_numel"]) == (a["parameters"], a["state_numel"])
        assert set(b) == set(a) | {"ensemble"}
        own, batched = weights(a["checkpoint"]), weights(b["checkpoint"])
        for name, value in own.items():
            assert torch.allclose(batched[name], value, atol=5e-3), name


def test_members_stop_on_their_own_and_are_reported_at_once(tmp_path):
    """A member that reaches its target leaves at that evaluation (reported through on_result
    then), the others go on; the results equal the single runs'."""
    configs = [c.replace(target=t) for c, t in zip(members(), (1.0, 0.01, 1.0), strict=True)]
    reported = []
    together = train_ensemble(configs, device="cpu", on_result=reported.append)
    assert [r["config_hash"] for r in reported] == [configs[i].config_hash() for i in (1, 0, 2)]
    assert [r["steps"] for r in together] == [12, 4, 12]
    for config, result in zip(configs, together, strict=True):
        alone = train(config, progress=False, device="cpu")
        assert (result["steps"], result["curve"]) == (alone["steps"], alone["curve"])


def test_an_unknown_architecture_runs_one_after_the_other_bit_for_bit(tmp_path, monkeypatch):
    monkeypatch.delitem(BATCHED, "transformer")
    configs = members()[:2]
    together = train_ensemble(configs, checkpoint_dir=tmp_path / "together", device="cpu")
    assert together[0]["ensemble"]["strategy"] == "loop"
    for config, result in zip(configs, together, strict=True):
        alone = train(config, checkpoint_dir=tmp_path / "alone", progress=False, device="cpu")
        assert result["curve"] == alone["curve"]
        own, looped = weights(alone["checkpoint"]), weights(result["checkpoint"])
        assert all(torch.equal(looped[n], v) for n, v in own.items())


class WrongStack(VmapStack):
    def forward(self, tokens):
        return super().forward(tokens) * 1.5


class BrokenStack(VmapStack):
    def forward(self, tokens):
        raise RuntimeError("no batching rule")


@pytest.mark.parametrize(("form", "reason"), [(WrongStack, "differ"), (BrokenStack, "batching")])
def test_a_batched_form_that_fails_its_check_falls_back(form, reason, monkeypatch):
    monkeypatch.setitem(BATCHED, "transformer", form)
    configs = members()[:2]
    with pytest.warns(RuntimeWarning, match=reason):
        together = train_ensemble(configs, device="cpu")
    assert together[0]["ensemble"]["strategy"] == "loop"
    assert together[1]["curve"] == train(configs[1], progress=False, device="cpu")["curve"]


def test_bad_ensembles_are_refused():
    with pytest.raises(InputError, match="differ only in lr, seed, target"):
        train_ensemble([BASE, BASE.replace(width=16)], device="cpu")
    with pytest.raises(InputError, match="same config twice"):
        train_ensemble([BASE, BASE], device="cpu")
    with pytest.raises(InputError, match="non-empty list"):
        train_ensemble([], device="cpu")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
@pytest.mark.parametrize("arch", list(models.REGISTRY))
def test_on_the_gpu_the_ensemble_learns_as_on_the_cpu(arch):
    """The GPU path (pinned copies, CUDA graph after the warm-up steps, the fused Mamba scan):
    each architecture's batched form, the same steps as on the CPU and curves within a few
    evaluation examples."""
    layers = 1 if arch == "concat-transformer" else 2  # the concat-transformer has one layer
    configs = members(arch=arch, layers=layers, steps=24, eval_every=8)
    on_gpu = train_ensemble(configs, device="cuda")
    on_cpu = train_ensemble(configs, device="cpu")
    for g, c in zip(on_gpu, on_cpu, strict=True):
        assert g["steps"] == c["steps"] and g["device"].startswith("cuda")
        # on a GPU every architecture trains in its batched form (no fallback after the check)
        assert g["ensemble"]["strategy"] == BATCHED[arch].strategy
        for (step_g, acc_g), (step_c, acc_c) in zip(g["curve"], c["curve"], strict=True):
            assert step_g == step_c and abs(acc_g - acc_c) <= 0.1


def test_memorisation_ensembles_score_the_training_set_as_single_runs_do():
    """Memorisation feeds vectors, not token ids, with targets of another shape: the ensemble's
    step buffers take each tensor's own shape and dtype (the crash every memorisation ensemble
    hit), and its evaluation scores the whole fixed training set, as a single run does (it once
    scored eval_samples random picks of it: 0.525 where the run had 17/32), so each member's
    curve is its single run's."""
    base = TrainConfig.of(
        task="memorize",
        arch="concat-transformer",
        width=16,
        layers=1,
        length=32,
        steps=12,
        lr=3e-3,
        batch=32,
        heads=1,
        target=1.0,
        eval_every=4,
        eval_samples=40,
        mlp_width=4,
        optimizer="adamw",
        weight_decay=0.1,
    )
    configs = [base.replace(seed=s, lr=lr) for s, lr in ((0, 3e-3), (1, 1e-2))]
    models_ = [build_model(c)[0] for c in configs]
    stack = VmapStack(models_, [c.recipe.lr for c in configs], torch.device("cpu"))
    task = build_model(configs[0])[1]
    gen = torch.Generator().manual_seed(0)
    parts = [task.sample(8, base.task.length, gen) for _ in configs]
    batch = [torch.stack(t) for t in zip(*parts, strict=True)]
    assert batch[0].shape != batch[1].shape  # vectors in, one target per sequence
    static = StaticStep(stack, batch, torch.device("cpu"))
    static.run(*batch)  # the crash: buffers shaped like the tokens for every tensor
    assert stack.optimiser.steps == 1
    together = train_ensemble(configs, device="cpu")
    assert {r["ensemble"]["members"] for r in together} == {2}
    for config, result in zip(configs, together, strict=True):
        alone = train(config, progress=False, device="cpu")
        assert all(acc * 32 == round(acc * 32) for _, acc in result["curve"])  # n = 32 scored
        for key in ("curve", "steps", "best_accuracy", "evaluated", "verdict"):
            assert result[key] == alone[key], key
