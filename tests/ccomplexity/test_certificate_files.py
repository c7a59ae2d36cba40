"""Writing certificates: the exact text, the size limits at, below and above their value, and
the pair limit of explicit fooling sets."""

from __future__ import annotations

import errno
import json
import math
import os

import numpy as np
import pytest

from ccomplexity import __version__, certificates, limits, problems
from ccomplexity.errors import InputError


def small() -> dict:
    return certificates.fooling_set_certificate(
        problems.equality(1), np.array([0, 1]), np.array([0, 1]), 1
    )


def test_the_envelope_names_the_software_and_the_text_is_compact(tmp_path):
    cert = small()
    assert cert["software"] == {"name": "ccomplexity", "version": __version__}
    path = certificates.write_certificate(cert, tmp_path / "c.json")
    text = path.read_text()
    assert text == json.dumps(cert, separators=(",", ":")) + "\n"
    assert ", " not in text and '": ' not in text
    assert json.loads(text) == cert


def test_a_certificate_with_nan_is_not_written(tmp_path):
    cert = small()
    cert["claim"]["note"] = float("nan")
    with pytest.raises(ValueError, match="not JSON compliant"):
        certificates.write_certificate(cert, tmp_path / "c.json")
    assert not (tmp_path / "c.json").exists()


def test_the_byte_limit_of_each_kind_at_below_and_above(tmp_path, monkeypatch):
    cert = small()
    size = len(json.dumps(cert, separators=(",", ":"))) + 1
    for most, ok in ((size + 1, True), (size, True), (size - 1, False)):
        monkeypatch.setitem(limits.CERTIFICATE_KIND_BYTES, "fooling_set", most)
        path = tmp_path / f"{most}.json"
        if ok:
            assert certificates.write_certificate(cert, path).stat().st_size == size
        else:
            message = f"the fooling_set certificate would take {size} bytes; the limit for its "
            with pytest.raises(InputError, match=message + f"kind is {most}"):
                certificates.write_certificate(cert, path)
            assert not path.exists()


def test_a_kind_without_its_own_limit_has_the_general_one(tmp_path, monkeypatch):
    cert = {**small(), "kind": "other"}
    size = len(json.dumps(cert, separators=(",", ":"))) + 1
    monkeypatch.setattr(limits, "CERTIFICATE_BYTES", size)
    certificates.write_certificate(cert, tmp_path / "a.json")
    monkeypatch.setattr(limits, "CERTIFICATE_BYTES", size - 1)
    with pytest.raises(InputError, match=f"the other certificate would take {size} bytes"):
        certificates.write_certificate(cert, tmp_path / "b.json")


def test_the_output_path_is_checked_as_a_certificate(tmp_path):
    with pytest.raises(InputError, match=f"certificate {tmp_path} is a folder"):
        certificates.write_certificate(small(), tmp_path)


def test_the_pair_limit_of_explicit_fooling_sets_at_below_and_above(monkeypatch):
    eq = problems.equality(2)  # 4 pairs on the diagonal: 16 ordered pairs
    diag = np.arange(4)
    for most, ok in ((17, True), (16, True), (15, False)):
        monkeypatch.setattr(certificates, "MAX_PAIRWISE", most)
        if ok:
            assert certificates.fooling_set_certificate(eq, diag, diag, 1)["claim"]["size"] == 4
        else:
            limit = math.isqrt(15)
            with pytest.raises(InputError, match=f"limited to {limit} pairs, got 4; use the sym"):
                certificates.fooling_set_certificate(eq, diag, diag, 1)


def test_rows_and_columns_of_different_lengths_are_a_programming_error():
    with pytest.raises(ValueError, match="zip"):
        certificates.fooling_set_certificate(
            problems.equality(2), np.array([0, 1, 2]), np.array([0, 1]), 1
        )


def test_a_full_disk_while_writing_names_the_certificate(tmp_path, monkeypatch):
    def full(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    path = tmp_path / "c.json"
    with pytest.raises(InputError, match=r"^cannot write certificate .*c\.json: no space left"):
        certificates.write_certificate(small(), path)
    assert not path.exists() and list(tmp_path.iterdir()) == []
