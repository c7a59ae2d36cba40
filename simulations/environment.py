"""What trained a run beyond its config, stored with it (the store's ``environment`` column):
the software and machine a re-run needs to be identical, and the plugins whose code defined its
task or model (name and source hash), so that no reader puts one plugin's bound beside another
plugin's runs.

What decides a CPU re-run's numbers (``ccx rerun``, :mod:`simulations.rerun`): the torch
version, the vector instructions its kernels dispatch on (``cpu_capability``: e.g. AVX2 or
AVX512, which choose other summation orders), the thread count, and torch's deterministic
algorithms (switched on by the trainer). :data:`IDENTITY` names them; the CPU's model name and
the Python version are recorded beside them for the reader.
"""

from __future__ import annotations

import platform
from functools import cache
from typing import Any

import torch

from ccomplexity import plugins

IDENTITY = ("torch", "cpu_capability", "threads", "deterministic", "gpu")
"""The environment fields a re-run must share with the stored run for its numbers to be the
same bit for bit (``gpu``: the GPU's name, for a run trained on one)."""


@cache
def cpu_kind() -> str:
    """The CPU's model name (Linux: ``/proc/cpuinfo``), else the platform's processor string."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def plugin_sources(task: str, arch: str) -> list[dict[str, str]]:
    """The loaded plugins defining ``task`` or model ``arch``: kind, name, source and sha256."""
    found = []
    for kind, definition in (
        ("task", plugins.task_definition(task)),
        ("model", plugins.model_definition(arch)),
    ):
        if definition is not None:
            found.append(
                {
                    "kind": kind,
                    "name": definition.name,
                    "source": definition.source,
                    "sha256": definition.sha256,
                }
            )
    return found


def run_environment(task: str, arch: str, device: torch.device) -> dict[str, Any]:
    """The environment of a run of ``task`` and ``arch`` trained now on ``device``."""
    out: dict[str, Any] = {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu": cpu_kind(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "threads": torch.get_num_threads(),
        "deterministic": torch.are_deterministic_algorithms_enabled(),
    }
    if device.type == "cuda":
        out["gpu"] = torch.cuda.get_device_name(device)
    sources = plugin_sources(task, arch)
    if sources:
        out["plugins"] = sources
    return out


def identity_differences(stored: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """The :data:`IDENTITY` fields in which ``now`` differs from the ``stored`` environment, each
    as "field: stored -> now"; fields the stored run did not record (a run of an older store)
    are said as "field: not recorded"."""
    out = []
    for field in IDENTITY:
        if field not in stored and field not in now:
            continue
        if field not in stored:
            out.append(f"{field}: not recorded")
        elif stored.get(field) != now.get(field):
            out.append(f"{field}: {stored.get(field)} -> {now.get(field)}")
    return out
