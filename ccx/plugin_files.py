"""Loading plugin files once every built-in registry has declared its names."""

from __future__ import annotations

from collections.abc import Sequence


def load_plugins(files: Sequence[str], entry_points: bool = False) -> None:
    """Load the plugin ``files`` (and the installed entry points, when ``entry_points``) after
    every built-in registry declared its names (:func:`ccomplexity.plugins.declare`), so that a
    plugin shadowing a built-in task or model is refused as it registers. The task registry
    imports torch: a cost paid only by a call that loads a plugin."""
    import models  # noqa: F401  (each registry declares its names as it is imported)
    import simulations.tasks  # noqa: F401
    from ccomplexity import claims, plugins, problems  # noqa: F401

    for file in files:
        plugins.load_file(file)
    if entry_points:
        plugins.load_entry_points()
