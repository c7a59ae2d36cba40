"""What trained a run beyond its config, stored with it (the store's ``environment`` column):
the software and machine a re-run needs to be identical, and the plugins whose code defined its
task or model (name and source hash), so that no reader puts one plugin's bound beside another
plugin's runs.
"""

from __future__ import annotations

import platform
from functools import cache
from typing import Any

import torch

from ccomplexity import plugins


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
                {"kind": kind, "name": definition.name, "source": definition.source,
                 "sha256": definition.sha256}
            )  # fmt: skip
    return found


def run_environment(task: str, arch: str, device: torch.device) -> dict[str, Any]:
    """The environment of a run of ``task`` and ``arch`` trained now on ``device``."""
    out: dict[str, Any] = {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu": cpu_kind(),
        "threads": torch.get_num_threads(),
        "deterministic": torch.are_deterministic_algorithms_enabled(),
    }
    if device.type == "cuda":
        out["gpu"] = torch.cuda.get_device_name(device)
    sources = plugin_sources(task, arch)
    if sources:
        out["plugins"] = sources
    return out
