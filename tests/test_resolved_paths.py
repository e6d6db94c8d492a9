"""FolderResolver resolves a run's files a folder at a time: always what Path.resolve gives."""

from __future__ import annotations

import os
from pathlib import Path

from autograd_lint.resolved_paths import FolderResolver


def test_every_kind_of_path_resolves_as_path_resolve_does(tmp_path, monkeypatch):
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    (real / "a.py").write_text("")
    (real / "sub" / "b.py").write_text("")
    (tmp_path / "linked_dir").symlink_to(real)  # a folder that is a link
    (real / "link.py").symlink_to(real / "sub" / "b.py")  # a file that is a link
    (real / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    monkeypatch.chdir(real)
    paths = [
        real / "a.py",
        real / "sub" / "b.py",
        tmp_path / "linked_dir" / "a.py",
        tmp_path / "linked_dir" / "sub" / "b.py",
        real / "link.py",
        tmp_path / "linked_dir" / "link.py",
        real / "dangling.py",
        real / "missing.py",
        real / "sub" / ".." / "a.py",
        Path("a.py"),
        Path("sub") / "b.py",
        Path("link.py"),
        Path("."),
        Path(".."),
    ]
    folders = FolderResolver()
    for _ in range(2):  # the second time from the folders it kept
        for path in paths:
            assert folders.resolve(path) == path.resolve(), path


def test_a_file_made_a_link_later_in_a_run_is_followed(tmp_path):
    (tmp_path / "target.py").write_text("")
    first, second = tmp_path / "first.py", tmp_path / "second.py"
    first.write_text("")
    folders = FolderResolver()
    assert folders.resolve(first) == first.resolve()
    os.symlink(tmp_path / "target.py", second)  # links are asked of each file, not kept
    assert folders.resolve(second) == (tmp_path / "target.py").resolve()


def test_a_path_asked_again_is_answered_without_the_file_system(tmp_path, monkeypatch):
    # The CLI asks twice of every file (its identity, its cache entry): both get one answer.
    (tmp_path / "a.py").write_text("")
    folders = FolderResolver()
    first = folders.resolve(tmp_path / "a.py")
    asked: list[Path] = []
    real_is_symlink = Path.is_symlink

    def counting(self):
        asked.append(self)
        return real_is_symlink(self)

    monkeypatch.setattr(Path, "is_symlink", counting)
    assert folders.resolve(tmp_path / "a.py") == first == (tmp_path / "a.py").resolve()
    assert asked == []
    folders.resolve(tmp_path / "b.py")  # a path not asked before still is
    assert asked == [tmp_path / "b.py"]
