"""The limits module and the output-path checks: one line naming the limit, nothing created."""

from __future__ import annotations

import os

import pytest

from ccomplexity import limits
from ccomplexity.errors import InputError, check_int
from ccomplexity.files import check_output_file, check_output_folder


def test_a_limit_names_itself_the_range_and_what_to_do():
    assert limits.WIDTH.check(16) == 16
    with pytest.raises(InputError, match=r"^--width 100000 exceeds the limit of 16384; use a"):
        limits.WIDTH.check(100_000, "--width")
    with pytest.raises(InputError, match=r"width must be an integer in 1\.\.16384, got 0"):
        limits.WIDTH.check(0)
    with pytest.raises(InputError, match="got True"):
        limits.SEED.check(True)
    with pytest.raises(InputError, match="got '3'"):
        limits.SEED.check("3")
    with pytest.raises(InputError, match=r"a 100-bit number exceeds"):
        limits.LENGTH.check(10**30)
    with pytest.raises(InputError, match=r"a 100-bit negative number"):
        check_int(-(10**30), "x", 0)
    assert len(str(pytest.raises(InputError, check_int, "y" * 500, "x").value)) < 120


def test_powers_and_tree_sizes_without_huge_numbers():
    assert limits.power_at_most(2, 20, 1 << 20) and not limits.power_at_most(2, 21, 1 << 20)
    assert not limits.power_at_most(3, 10**30, 10**6)  # decided without computing 3^(10^30)
    assert limits.power_at_most(1, 10**30, 1) and limits.power_at_most(7, 0, 1)
    assert limits.levels_at_most(2, 2, 100) == 7  # Dyck-(2,2): 7 stacks
    assert limits.levels_at_most(1, 9, 100) == 10
    assert limits.levels_at_most(2, 10**9, 1000) is None
    assert limits.levels_at_most(10**30, 1, 4096) is None


def test_forward_passes_are_bounded():
    limits.check_forward(500, 801, 64, heads=8, layers=2)  # the paper profile's largest
    with pytest.raises(InputError, match="numbers at once"):
        limits.check_forward(10**7, 10, 8, layers=256)
    with pytest.raises(InputError, match="numbers at once"):
        limits.check_forward(100_000, 100_000, 8, heads=2)


def test_files_are_read_only_within_their_size(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert limits.read_bytes(path, 10, "spec") == b"x" * 10
    with pytest.raises(InputError, match="has 10 bytes; the limit is 9"):
        limits.read_bytes(path, 9, "spec")
    with pytest.raises(InputError, match="does not exist or is not a file"):
        limits.read_bytes(tmp_path, 9, "spec")


def test_output_paths_are_checked_and_nothing_is_created(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("x")
    cases = [
        (lambda: check_output_file("adir", "certificate"), "is a folder"),
        (lambda: check_output_file("afile/c.json", "certificate"), "lies under afile"),
        (lambda: check_output_file("no/c.json", "certificate"), "does not exist"),
        (lambda: check_output_file("", "certificate"), "does not name a file"),
        (lambda: check_output_folder("afile", "figure folder"), "is a file, not a folder"),
        (lambda: check_output_folder("afile/a/b", "figure folder"), "lies under afile"),
    ]
    for call, message in cases:
        with pytest.raises(InputError, match=message):
            call()
    assert check_output_file("new/c.json", "store", create_folder=True).name == "c.json"
    assert check_output_folder("new/sub", "figure folder").name == "sub"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir", "afile"]


def test_an_input_of_the_command_is_refused_as_output(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.csv").write_text("1,0\n")
    (tmp_path / "link.csv").symlink_to(tmp_path / "in.csv")
    for output in ("in.csv", "./in.csv", str(tmp_path / "in.csv"), "link.csv"):
        with pytest.raises(InputError, match="is an input of this command"):
            check_output_file(output, "certificate", inputs=[None, "in.csv"])
    with pytest.raises(InputError, match="is an input of this command"):
        check_output_folder(".", "figure folder", inputs=[str(tmp_path)])
    assert check_output_file("out.json", "certificate", inputs=["in.csv"]).name == "out.json"
    assert (tmp_path / "in.csv").read_text() == "1,0\n"


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")
def test_a_pseudo_file_system_is_refused_even_for_root(tmp_path):
    with pytest.raises(InputError, match="not writable"):
        check_output_folder("/proc/ccx-missing", "checkpoint folder")
    with pytest.raises(InputError, match="not writable"):
        check_output_file("/proc/ccx-missing.json", "certificate")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_an_unwritable_folder_is_refused(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    with pytest.raises(InputError, match="not writable"):
        check_output_file(locked / "c.json", "certificate")


def test_names_beyond_the_system_limits_and_broken_links_are_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.symlink("nowhere", "dangling")
    os.symlink("loop_a", "loop_b")
    os.symlink("loop_b", "loop_a")
    cases = {
        "a" * 300 + ".json": "NAME_MAX",
        "/".join(["b" * 200] * 25): "PATH_MAX",
        "dangling": r"dangling symbolic link \(to nowhere\)",
        "loop_a": "symbolic link loop",
    }
    for path, fragment in cases.items():
        for check in (check_output_file, check_output_folder):
            with pytest.raises(InputError, match=fragment):
                check(path, "out")
    assert sorted(os.listdir(tmp_path)) == ["dangling", "loop_a", "loop_b"]


def test_a_link_in_the_way_of_a_written_file_is_refused_and_left_alone(tmp_path):
    """A file is never written through a symbolic link, named or inside an output folder."""
    from ccomplexity.files import atomic_open, check_folder_files

    target, link = tmp_path / "target.txt", tmp_path / "link.txt"
    target.write_text("old")
    link.symlink_to(target.name)
    with pytest.raises(InputError, match=r"link.txt is a symbolic link \(to target.txt\)"):
        check_output_file(link, "out")
    with pytest.raises(InputError, match="is a symbolic link"):
        check_folder_files(tmp_path, ["a.csv", "link.txt"], "figure file")
    with pytest.raises(InputError, match="is a symbolic link"), atomic_open(link) as handle:
        handle.write("new")
    assert link.is_symlink() and os.readlink(link) == "target.txt"
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "target.txt"]
    # a link to a folder on the way is the user's own: written through
    (tmp_path / "real").mkdir()
    (tmp_path / "via").symlink_to("real")
    with atomic_open(tmp_path / "via" / "new.txt") as handle:
        handle.write("made")
    assert (tmp_path / "real" / "new.txt").read_text() == "made"


def test_no_written_file_replaces_an_input_of_the_command(tmp_path):
    """Inside one command (:func:`command_inputs`), a file it read is refused as an output by
    inode: under another name (a hard link) too; outside a command nothing is recorded."""
    from ccomplexity.files import atomic_open, command_inputs, note_input, umask

    store, twin = tmp_path / "s.db", tmp_path / "fig.csv"
    store.write_text("runs")
    os.link(store, twin)
    with command_inputs():
        note_input(store)
        refused = pytest.raises(InputError, match="fig.csv is an input of this command")
        with refused, atomic_open(twin) as handle:
            handle.write("a,b")
    assert store.read_text() == "runs" and twin.read_text() == "runs"
    note_input(store)  # no command: not recorded
    with atomic_open(twin) as handle:
        handle.write("a,b")
    assert store.read_text() == "runs" and twin.read_text() == "a,b"
    assert twin.stat().st_mode & 0o777 == 0o666 & ~umask()


def test_a_full_disk_is_one_line_naming_the_path_and_leaves_nothing(tmp_path):
    import errno

    from ccomplexity.errors import DiskFull
    from ccomplexity.files import atomic_open

    (tmp_path / "c.json").write_text("old")
    full = pytest.raises(DiskFull, match="cannot write certificate .*c.json: no space left")
    with full, atomic_open(tmp_path / "c.json", what="certificate") as handle:
        handle.write("x" * 100)
        raise OSError(errno.ENOSPC, "No space left on device")  # what the write met
    assert os.listdir(tmp_path) == ["c.json"] and (tmp_path / "c.json").read_text() == "old"
