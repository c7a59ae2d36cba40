"""Planning a sweep's units: which runs train together as one ensemble.

Runs whose training configs differ only in :data:`MEMBER_FIELDS` (:func:`shape_key`) may share a
batch (:mod:`simulations.ensemble` trains them); :func:`plan_units` cuts them into units of at
most a given size for the workers. Nothing here needs torch, so a sweep's own process plans and
leases without loading it (its workers load it when they train).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ccomplexity import limits
from simulations.run_config import TrainConfig

MEMBER_FIELDS = ("lr", "seed", "target")
"""The fields in which the members of one ensemble may differ; all others form the shape key
(model, task, length, batch and the schedule: steps and evaluations)."""


def trains_alone(config: TrainConfig) -> bool:
    """Whether a run's loss has a term beyond the cross-entropy (the block-cosine regulariser,
    a mixture-of-experts balance loss), which an ensemble's step does not compute, or its model
    holds its messages at p bits, which the ensembles' batched forms do not: such a run trains
    alone."""
    return (
        config.recipe.reg_lambda is not None
        or config.model.balance > 0
        or config.model.precision is not None
    )


def shape_key(config: TrainConfig) -> tuple[tuple[str, Any], ...]:
    """Every config field but :data:`MEMBER_FIELDS`: configs with equal keys can share a batch."""
    return tuple((k, v) for k, v in config.to_dict().items() if k not in MEMBER_FIELDS)


def plan_groups(configs: Sequence[TrainConfig], cap: int) -> list[list[TrainConfig]]:
    """The configs in groups of equal :func:`shape_key`, at most ``cap`` each, first seen first.
    A group is also kept within ``limits.FORWARD_NUMBERS`` activations (members x
    :meth:`simulations.run_config.TrainConfig.activations`, as its members evaluate at once): a
    shape whose members do not all fit is split evenly into groups that do."""
    limits.ENSEMBLE.check(cap, "ensemble size")
    by_key: dict[tuple, list[TrainConfig]] = {}
    for config in configs:
        alone = (("config_hash", config.config_hash()),) if trains_alone(config) else ()
        by_key.setdefault(shape_key(config) + alone, []).append(config)
    groups = []
    for members in by_key.values():
        # the model's size was checked when the config was made (a capacity search's grown
        # configs: at both ends of the growth, simulations.capacity.check_growth)
        numbers = members[0].activations()
        size, fit = cap, max(1, limits.FORWARD_NUMBERS // numbers)
        if fit < min(cap, len(members)):  # split evenly into groups that fit
            size = -(-len(members) // -(-len(members) // fit))
        groups += [members[i : i + size] for i in range(0, len(members), size)]
    return groups


def plan_units(
    pending: list[tuple[str, TrainConfig]], cap: int, workers: int
) -> list[list[tuple[str, TrainConfig]]]:
    """(hash, config) pairs in ensembles of at most ``cap`` (:func:`plan_groups`); the largest is
    halved while there are fewer units than ``workers``, so that no worker idles while another
    trains a big ensemble."""
    key = {id(config): h for h, config in pending}
    units = [
        [(key[id(c)], c) for c in group] for group in plan_groups([c for _, c in pending], cap)
    ]
    while len(units) < workers and max(map(len, units), default=1) > 1:
        big = max(units, key=len)
        units.remove(big)
        units += [big[: len(big) // 2], big[len(big) // 2 :]]
    return units
