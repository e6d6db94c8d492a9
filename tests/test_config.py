"""Settings: select/ignore/severity, exclude patterns, and pyproject.toml discovery."""

from __future__ import annotations

import pytest
from autograd_lint.analysis import Finding, Severity, Span, Step
from autograd_lint.config import (
    ConfigError,
    Settings,
    find_project_root,
    load_settings,
)


def finding(code: str, severity: Severity = Severity.ERROR) -> Finding:
    step = Step(Span.of(1, 0, 1, 1), "built here")
    return Finding(code, severity, f"{code} message", Span.of(3, 2, 3, 9), (step,), path="a.py")


# -- which codes run ------------------------------------------------------------------------


def test_everything_is_enabled_by_default():
    assert all(Settings().enabled(code) for code in ("AG000", "AG001", "AG007"))


def test_select_takes_codes_and_prefixes_and_ignore_wins():
    settings = Settings(select=["AG00"], ignore=["AG002"])
    assert settings.enabled("AG001")
    assert not settings.enabled("AG002")
    assert not Settings(select=["AG001"]).enabled("AG002")
    assert not Settings(select=["AG00"]).enabled("AG010")


def test_syntax_errors_stay_unless_ignored_by_name():
    assert Settings(select=["AG001"]).enabled("AG000")
    assert Settings(select=[]).enabled("AG000")
    assert Settings(ignore=["AG0"]).enabled("AG000")
    assert not Settings(ignore=["AG000"]).enabled("AG000")


def test_apply_filters_and_rewrites_severity():
    settings = Settings(ignore=["AG003"], severity={"AG0": "info", "AG001": "warning"})
    original = [finding("AG001"), finding("AG002"), finding("AG003")]
    applied = settings.apply(original)
    assert [(f.code, f.severity) for f in applied] == [
        ("AG001", Severity.WARNING),  # the longest matching key wins
        ("AG002", Severity.INFO),
    ]
    # Everything but the severity is the finding as reported.
    assert applied[0].evidence == original[0].evidence
    assert applied[0].span == original[0].span and applied[0].message == original[0].message


def test_merged_replaces_only_what_is_given():
    base = Settings(select=["AG001"], ignore=["AG002"], exclude=["gen"])
    merged = base.merged(select=None, ignore=["AG003"])
    assert merged.select == ["AG001"]
    assert merged.ignore == ["AG003"]
    assert merged.exclude == ["gen"]
    assert base.ignore == ["AG002"]  # the original is left alone
    with pytest.raises(ConfigError):
        base.merged(severity={"AG001": "fatal"})
    with pytest.raises(TypeError):
        base.merged(colour=True)


def test_from_mapping_normalises_case():
    settings = Settings.from_mapping(
        {"select": ["ag001"], "ignore": [" ag002 "], "severity": {"ag001": "WARNING"}}
    )
    assert settings == Settings(select=["AG001"], ignore=["AG002"], severity={"AG001": "warning"})


@pytest.mark.parametrize(
    ("data", "complaint"),
    [
        ({"selct": ["AG001"]}, "unknown key"),
        ({"select": "AG001"}, "'select' must be a list of strings"),
        ({"ignore": [1]}, "'ignore' must be a list of strings"),
        ({"select": ["E501"]}, "invalid rule code 'E501'"),
        ({"severity": {"AG001": "fatal"}}, "severity of AG001 must be one of error, warning, info"),
        ({"severity": ["AG001"]}, "'severity' must be a table"),
        ({"severity": {"X1": "error"}}, "invalid rule code"),
        ({"exclude": [""]}, "empty pattern"),
        ({"exclude": "build"}, "'exclude' must be a list of strings"),
    ],
)
def test_invalid_values_say_what_is_wrong(data, complaint):
    with pytest.raises(ConfigError, match=complaint):
        Settings.from_mapping(data)


# -- exclude --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "excluded"),
    [
        ("generated", "generated", True),
        ("generated", "pkg/generated", True),  # no slash: any depth
        ("data/raw", "data/raw", True),
        ("data/raw", "pkg/data/raw", False),  # a slash anchors at the root
        ("/top.py", "top.py", True),
        ("/top.py", "pkg/top.py", False),
        ("*_pb2.py", "pkg/deep/model_pb2.py", True),
        ("*_pb2.py", "pkg/model_pb2.pyc", False),
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/sub/a.py", False),  # `*` stays inside one directory
        ("src/**/*.py", "src/sub/deep/a.py", True),
        ("src/**/*.py", "src/a.py", True),
        ("**/fixtures", "a/b/fixtures", True),
        ("legacy/**", "legacy/x/y.py", True),
        ("test_?.py", "test_1.py", True),
        ("test_?.py", "test_10.py", False),
        ("[ab]*.py", "b_mod.py", True),
        ("[!ab]*.py", "b_mod.py", False),
        ("a.b", "axb", False),  # a dot is a dot
    ],
)
def test_exclude_patterns(tmp_path, pattern, path, excluded):
    target = tmp_path / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("")
    settings = Settings(exclude=[pattern], root=tmp_path)
    assert settings.is_excluded(target) is excluded


def test_trailing_slash_matches_directories_only(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "out").write_text("")
    settings = Settings(exclude=["out/"], root=tmp_path)
    assert settings.is_excluded(tmp_path / "out")
    assert not settings.is_excluded(tmp_path / "pkg" / "out")


def test_negation_re_includes_and_last_match_wins(tmp_path):
    for name in ("a_pb2.py", "keep_pb2.py"):
        (tmp_path / name).write_text("")
    settings = Settings(exclude=["*_pb2.py", "!keep_pb2.py"], root=tmp_path)
    assert settings.is_excluded(tmp_path / "a_pb2.py")
    assert not settings.is_excluded(tmp_path / "keep_pb2.py")


def test_paths_outside_the_root_are_not_excluded(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    settings = Settings(exclude=["*.py"], root=root)
    assert not settings.is_excluded(tmp_path / "elsewhere.py")
    assert not settings.is_excluded(root)
    assert not Settings(exclude=["*.py"]).is_excluded(root / "a.py")  # no root, no exclude


# -- discovery ------------------------------------------------------------------------------


def test_find_project_root_by_pyproject_or_git(tmp_path):
    project = tmp_path / "proj"
    deep = project / "src" / "pkg"
    deep.mkdir(parents=True)
    (project / "pyproject.toml").write_text("")
    assert find_project_root(deep) == project
    assert find_project_root(deep / "mod.py") == project

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "a").mkdir()
    assert find_project_root(repo / "a") == repo


def test_find_project_root_outside_any_project(tmp_path):
    found = find_project_root(tmp_path / "loose.py")
    assert found is None or tmp_path not in (found, *found.parents)


def test_load_settings_reads_the_nearest_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.autograd-lint]\nselect = ["AG001"]\n')
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.autograd-lint]\nignore = ["AG002"]\n'
        'exclude = ["gen"]\nseverity = { AG001 = "warning" }\n'
    )
    settings = load_settings(inner / "mod.py")
    assert settings.select is None
    assert settings.ignore == ["AG002"]
    assert settings.exclude == ["gen"]
    assert settings.severity == {"AG001": "warning"}
    assert settings.root == inner
    assert load_settings(tmp_path).select == ["AG001"]


def test_missing_section_gives_defaults(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    settings = load_settings(tmp_path)
    assert (settings.select, settings.ignore, settings.exclude, settings.severity) == (
        None,
        [],
        [],
        {},
    )
    assert settings.root == tmp_path


def test_invalid_toml_and_invalid_values_are_config_errors(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.autograd-lint\nselect = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.autograd-lint]\nselect = "AG001"\n')
    with pytest.raises(ConfigError, match="pyproject.toml: 'select' must be a list"):
        load_settings(tmp_path)


def test_parents_option_excludes_files_under_an_excluded_directory(tmp_path):
    target = tmp_path / "src" / "generated" / "deep" / "a.py"
    target.parent.mkdir(parents=True)
    target.write_text("")
    settings = Settings(exclude=["generated/"], root=tmp_path)
    assert not settings.is_excluded(target)
    assert settings.is_excluded(target, parents=True)
    assert not settings.is_excluded(tmp_path / "src" / "a.py", parents=True)
    # The root itself and anything above it are never excluded.
    assert not Settings(exclude=["*"], root=target.parent).is_excluded(target.parent, parents=True)
