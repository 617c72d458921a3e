"""codemods/config.py called directly, in the test's process: finding `[tool.jax-codemod]`, reading
it (every key, and the exact error for each mistake: the file, the key, what is wrong, the close
match of a typo), the precedence of what an entry point is given over the file over the defaults
(and of the environment's jax: codemods/target.py), the exclude matcher, per-file-ignores, the jax
floor and the helpers module.

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values.
Nothing here imports jax.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import pytest

from codemods import capabilities, config
from codemods import floor
from codemods.config import (KEYS, SECTION, Config, ConfigError, Found, checked_module_name, find, helpers_module_ready,
                             load, resolve)
from codemods.floor import declared_jax_floor
from codemods.engine.discovery import SKIPPED_DIRS
from codemods.registry import RULES, UnknownRule
from codemods.settings import PrecisionPolicy, Scope, Settings


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No jax in the tool's environment, none activated, the current folder the test's own."""
    monkeypatch.setattr(capabilities, "installed_jax_version", lambda: None)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    monkeypatch.chdir(tmp_path)


def pyproject(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(text)
    return folder / "pyproject.toml"


def table(folder: Path, body: str, project: str = "") -> Path:
    return pyproject(folder, (f"[project]\nname = 'p'\n{project}\n" if project else "") + f"[tool.jax-codemod]\n{body}\n")


def loaded(folder: Path, body: str, project: str = "") -> Config:
    table(folder, body, project)
    return load(find([folder]), RULES)


def error_of(folder: Path, body: str, project: str = "") -> str:
    table(folder, body, project)
    with pytest.raises(ConfigError) as raised:
        load(find([folder]), RULES)
    return str(raised.value)


# The rules a `JAX00` selector names: the seed rules and those the walls of issue 53 added.
JAX00 = tuple(rule.code for rule in RULES if rule.code.startswith("JAX00"))


def codes(rules) -> list[str]:
    return [rule.code for rule in rules]


# the constants and Config's defaults


def test_the_section_and_keys():
    assert SECTION == "jax-codemod"
    assert KEYS == ("select", "ignore", "scope", "jax-version", "precision-policy", "helpers-module",
                    "create-helpers-module", "unsafe-fixes", "exclude", "extend-exclude", "per-file-ignores",
                    "jax-floor", "notebooks")


def test_config_defaults(tmp_path: Path):
    default = Config()
    assert default.path is None and default.select == () and default.ignore == ()
    assert default.scope is None and default.jax_version is None and default.precision_policy is None
    assert default.helpers_module is None and default.create_helpers_module is False
    assert default.unsafe_fixes is False
    assert default.exclude == tuple(sorted(SKIPPED_DIRS))
    assert default.extend_exclude == () and default.per_file_ignores == ()
    assert default.jax_floor is None and default.notebooks is True and default.jax_floor_source == ""
    assert default.project_root is None and default.dependencies == ()
    assert default.root == tmp_path
    assert Config(path=tmp_path / "a" / "pyproject.toml").root == tmp_path / "a"


# find


def test_find_nothing(tmp_path: Path):
    (tmp_path / "src").mkdir()
    assert find([tmp_path / "src"]) == Found()


def test_find_the_nearest_table_from_a_folder_or_a_file(tmp_path: Path):
    outer = table(tmp_path, 'scope = "all"', "dependencies = ['jax>=0.4.30']")
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "sub" / "m.py").write_text("")
    pyproject(tmp_path / "pkg", "[project]\nname = 'inner'\ndependencies = ['jax>=0.5']\n")
    found = find([tmp_path / "pkg" / "sub" / "m.py"])
    assert found == Found(outer, {"scope": "all"}, outer, ["jax>=0.4.30"], tmp_path)
    assert find([tmp_path / "pkg" / "sub"]) == found
    inner = table(tmp_path / "pkg", "", "dependencies = ['jax>=0.5']")
    assert find([tmp_path / "pkg" / "sub" / "m.py"]) == Found(inner, {}, inner, ["jax>=0.5"], tmp_path / "pkg")
    assert find([tmp_path / "pkg"]) == Found(inner, {}, inner, ["jax>=0.5"], tmp_path / "pkg")


def test_find_a_file_named_by_a_relative_path_and_no_paths(tmp_path: Path):
    path = table(tmp_path, "")
    (tmp_path / "m.py").write_text("")
    assert find([Path("m.py")]).path == path
    assert find([]).path == path
    assert find([]).root == tmp_path


def test_find_without_a_table_keeps_the_nearest_projects_dependencies(tmp_path: Path):
    outer = pyproject(tmp_path, "[project]\nname = 'o'\ndependencies = ['jax>=0.4.1']\n")
    inner = pyproject(tmp_path / "a", "[project]\nname = 'i'\ndependencies = ['jax>=0.4.2']\n")
    (tmp_path / "a" / "b").mkdir()
    assert find([tmp_path / "a" / "b"]) == Found(None, None, inner, ["jax>=0.4.2"], tmp_path / "a")
    assert outer.is_file()
    pyproject(tmp_path / "a", "[tool.other]\nx = 1\n")  # no [project]: its dependencies are None
    assert find([tmp_path / "a" / "b"]) == Found(None, None, tmp_path / "a" / "pyproject.toml", None, tmp_path / "a")
    pyproject(tmp_path / "a", "project = 'not a table'\n")
    assert find([tmp_path / "a" / "b"]).dependencies is None


def test_find_passes_over_a_folder_named_pyproject_toml(tmp_path: Path):
    path = table(tmp_path, "")
    (tmp_path / "a" / "pyproject.toml").mkdir(parents=True)
    assert find([tmp_path / "a"]).path == path


def test_find_a_table_in_a_project_without_dependencies(tmp_path: Path):
    path = table(tmp_path, 'scope = "all"')
    assert find([tmp_path]) == Found(path, {"scope": "all"}, path, None, tmp_path)


def test_find_an_unreadable_pyproject_is_an_error_naming_it(tmp_path: Path):
    path = pyproject(tmp_path, "[tool.jax-codemod\n")
    with pytest.raises(ConfigError) as raised:
        find([tmp_path])
    assert str(raised.value).startswith(f"{path}: cannot read: ")
    assert "line 1" in str(raised.value)
    path.write_bytes(b"x = '\xff'\n")
    with pytest.raises(ConfigError, match=r"^" + str(path).replace("\\", "\\\\") + ": cannot read: .*utf-8"):
        find([tmp_path])


def test_find_the_project_root_without_a_table(tmp_path: Path):
    (tmp_path / "proj" / "src").mkdir(parents=True)
    (tmp_path / "proj" / ".git").mkdir()
    assert find([tmp_path / "proj" / "src"]).root == tmp_path / "proj"


# load: every key


def test_load_without_a_table(tmp_path: Path):
    pyproject(tmp_path, "[project]\nname = 'x'\ndependencies = ['jax>=0.4.30', 1, 'numpy']\n")
    with pytest.raises(ConfigError):
        load(find([tmp_path]), RULES)
    pyproject(tmp_path, "[project]\nname = 'x'\ndependencies = ['jax>=0.4.30', 'numpy']\n")
    assert load(find([tmp_path]), RULES) == Config(jax_floor=(0, 4, 30), jax_floor_source="pyproject.toml",
                                                   project_root=tmp_path, dependencies=("jax>=0.4.30", "numpy"))
    assert load(Found(), RULES) == Config()


def test_load_a_dependency_list_that_is_not_a_list(tmp_path: Path):
    found = Found(project=tmp_path / "pyproject.toml", dependencies="jax", root=tmp_path,
                  project_data={"project": {"dependencies": "jax"}})
    with pytest.raises(ConfigError) as raised:
        load(found, RULES)
    assert str(raised.value) == f"{tmp_path / 'pyproject.toml'}: `project.dependencies` must be a list of strings, not 'jax'"


def test_load_every_key(tmp_path: Path):
    got = loaded(tmp_path, '''\
select = ["JAX0", "jax-tree-map"]
ignore = ["JAX002"]
scope = "all"
jax-version = "0.5.1"
precision-policy = "highest"
helpers-module = "pkg.compat"
create-helpers-module = true
unsafe-fixes = true
exclude = ["gen"]
extend-exclude = ["third_party/*"]
per-file-ignores = { "tests/*" = ["JAX00", "accuracy-hints"], "x.py" = ["JAX101"] }
jax-floor = "0.4.31"
notebooks = false''', "dependencies = ['jax>=0.4.30', 'numpy']")
    assert got == Config(
        path=tmp_path / "pyproject.toml", select=("JAX0", "jax-tree-map"), ignore=("JAX002",), scope=Scope.ALL,
        jax_version=(0, 5, 1), precision_policy=PrecisionPolicy.HIGHEST, helpers_module="pkg.compat",
        create_helpers_module=True, unsafe_fixes=True, exclude=("gen",), extend_exclude=("third_party/*",),
        per_file_ignores=(("tests/*", JAX00), ("x.py", ("JAX101",))),
        jax_floor=(0, 4, 31), notebooks=False, jax_floor_source="jax-floor in pyproject.toml",
        project_root=tmp_path, dependencies=("jax>=0.4.30", "numpy"))


def test_load_an_empty_table_gives_the_defaults(tmp_path: Path):
    got = loaded(tmp_path, "")
    assert got == Config(path=tmp_path / "pyproject.toml", project_root=tmp_path)
    assert got.notebooks is True and got.unsafe_fixes is False and got.create_helpers_module is False
    assert got.exclude == tuple(sorted(SKIPPED_DIRS))


def test_load_the_floor_from_the_dependencies(tmp_path: Path):
    got = loaded(tmp_path, "", "dependencies = ['jax[tpu]>=0.4.30,<0.13']")
    assert (got.jax_floor, got.jax_floor_source) == ((0, 4, 30), "pyproject.toml")
    got = loaded(tmp_path, "", "dependencies = ['jax']")
    assert (got.jax_floor, got.jax_floor_source) == (None, "")


def test_load_the_floor_source_outside_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    got = loaded(tmp_path / "proj", 'jax-floor = "0.4.31"')
    assert got.jax_floor_source == f"jax-floor in {tmp_path / 'proj' / 'pyproject.toml'}"
    got = loaded(tmp_path / "proj", "", "dependencies = ['jax>=0.4.30']")
    assert got.jax_floor_source == str(tmp_path / "proj" / "pyproject.toml")
    monkeypatch.chdir(tmp_path)
    assert loaded(tmp_path / "proj", "", "dependencies = ['jax>=0.4.30']").jax_floor_source == \
        os.path.join("proj", "pyproject.toml")


def test_the_floor_key_overrides_unreadable_dependencies(tmp_path: Path):
    got = loaded(tmp_path, 'jax-floor = "0.4.35"', "dependencies = ['jax>=banana']")
    assert got.jax_floor == (0, 4, 35)


# load: the errors, each naming the file and the key


def test_a_table_that_is_not_a_table(tmp_path: Path):
    path = pyproject(tmp_path, '[tool]\njax-codemod = "x"\n')
    with pytest.raises(ConfigError) as raised:
        load(find([tmp_path]), RULES)
    assert str(raised.value) == f"{path}: `tool.jax-codemod` must be a table"


@pytest.mark.parametrize(("body", "wanted"), [
    ('selct = []', "unknown key `tool.jax-codemod.selct`; did you mean `select`?"),
    ('jax_version = "0.5"', "unknown key `tool.jax-codemod.jax_version`; did you mean `jax-version`?"),
    ('JAX-FLOOR = "0.5"', "unknown key `tool.jax-codemod.JAX-FLOOR`; did you mean `jax-floor`?"),
    ('nonsense = 1', "unknown key `tool.jax-codemod.nonsense`"),
    ('unsafe = true', "unknown key `tool.jax-codemod.unsafe`"),  # 0.67 like unsafe-fixes: under the 0.7 cutoff
    ('_ax_floor = "0.5"', "unknown key `tool.jax-codemod._ax_floor`; did you mean `jax-floor`?"),
    ('zzz = 1\naaa = 2', "unknown key `tool.jax-codemod.aaa`"),
])
def test_an_unknown_key_names_the_closest_known_one(tmp_path: Path, body: str, wanted: str):
    assert error_of(tmp_path, body) == \
        f"{tmp_path / 'pyproject.toml'}: {wanted} (known: {', '.join(KEYS)})"


@pytest.mark.parametrize(("body", "wanted"), [
    ('select = "JAX001"', "`tool.jax-codemod.select` must be a list of strings, not 'JAX001'"),
    ('select = ["JAX001", 1]', "`tool.jax-codemod.select` must be a list of strings, not ['JAX001', 1]"),
    ('ignore = ["JAX8"]', "`tool.jax-codemod.ignore` names an unknown rule code, prefix or name 'JAX8' (did you mean "),
    ('scope = "everywhere"', "`tool.jax-codemod.scope` must be one of kernels, all, not 'everywhere'"),
    ('scope = 1', "`tool.jax-codemod.scope` must be a string, not 1"),
    ('precision-policy = "low"', "`tool.jax-codemod.precision-policy` must be one of nearest, highest, not 'low'"),
    ('jax-version = "banana"', "`tool.jax-codemod.jax-version` is not a jax version: 'banana'"),
    ('jax-version = 0.5', "`tool.jax-codemod.jax-version` must be a string, not 0.5"),
    ('jax-floor = "x"', "`tool.jax-codemod.jax-floor` is not a jax version: 'x'"),
    ('helpers-module = "my-pkg.x"',
     "`tool.jax-codemod.helpers-module` is not a dotted module name (like `mypkg.jax_compat`): 'my-pkg.x'"),
    ('helpers-module = 3', "`tool.jax-codemod.helpers-module` must be a string, not 3"),
    ('unsafe-fixes = "yes"', "`tool.jax-codemod.unsafe-fixes` must be true or false, not 'yes'"),
    ('unsafe-fixes = 1', "`tool.jax-codemod.unsafe-fixes` must be true or false, not 1"),
    ('create-helpers-module = 0', "`tool.jax-codemod.create-helpers-module` must be true or false, not 0"),
    ('notebooks = "no"', "`tool.jax-codemod.notebooks` must be true or false, not 'no'"),
    ('exclude = "gen"', "`tool.jax-codemod.exclude` must be a list of strings, not 'gen'"),
    ('extend-exclude = [1]', "`tool.jax-codemod.extend-exclude` must be a list of strings, not [1]"),
    ('per-file-ignores = ["x"]', "`tool.jax-codemod.per-file-ignores` must be a table of glob = [codes], not ['x']"),
    ('per-file-ignores = { "a.py" = "JAX001" }',
     "`tool.jax-codemod.per-file-ignores.a.py` must be a list of rule codes, not 'JAX001'"),
    ('per-file-ignores = { "a.py" = [1] }', "`tool.jax-codemod.per-file-ignores.a.py` must be a list of rule codes, not [1]"),
    ('per-file-ignores = { "a.py" = ["JAX8"] }',
     "`tool.jax-codemod.per-file-ignores.a.py` names an unknown rule code, prefix or name 'JAX8' (did you mean "),
])
def test_each_mistake_is_an_error_naming_the_file_and_the_key(tmp_path: Path, body: str, wanted: str):
    assert error_of(tmp_path, body).startswith(f"{tmp_path / 'pyproject.toml'}: {wanted}")


def test_an_unknown_selector_says_how_rules_are_named_and_where_they_are_listed(tmp_path: Path):
    assert error_of(tmp_path, 'select = ["JAX0", "nope"]') == (
        f"{tmp_path / 'pyproject.toml'}: `tool.jax-codemod.select` names an unknown rule code, prefix or name "
        "'nope' (a code (JAX001), a prefix (JAX0, JAX1, JAX9) or a name (per-operand-precision); "
        "`jax-codemod rules` lists every rule)")


def test_a_helpers_module_that_is_a_keyword(tmp_path: Path):
    assert error_of(tmp_path, 'helpers-module = "pkg.class"') == (
        f"{tmp_path / 'pyproject.toml'}: `tool.jax-codemod.helpers-module` is not a dotted module name "
        "(like `mypkg.jax_compat`): 'pkg.class'")


def test_unreadable_dependencies_with_a_table(tmp_path: Path):
    assert error_of(tmp_path, "", "dependencies = ['jax>=banana']") == (
        f"{tmp_path / 'pyproject.toml'}: `project.dependencies` 'jax>=banana': not a version specifier: '>=banana'")
    assert error_of(tmp_path, "", "dependencies = 'jax'") == (
        f"{tmp_path / 'pyproject.toml'}: `project.dependencies` must be a list of strings, not 'jax'")
    assert error_of(tmp_path, "", "dependencies = ['jax', 2]") == (
        f"{tmp_path / 'pyproject.toml'}: `project.dependencies` must be a list of strings, not ['jax', 2]")
    assert error_of(tmp_path, "", "dependencies = ['-x']") == (
        f"{tmp_path / 'pyproject.toml'}: `project.dependencies` not a PEP 508 requirement: '-x'")


def test_per_file_ignores_resolve_names_and_prefixes_once_each(tmp_path: Path):
    got = loaded(tmp_path, 'per-file-ignores = { "a/*" = ["bf16-lstm", "JAX003", "JAX00"], "b.py" = [] }')
    assert got.per_file_ignores == (("a/*", ("JAX003", *(code for code in JAX00 if code != "JAX003"))), ("b.py", ()))


# the matcher: exclude, extend-exclude, per-file-ignores


def test_excluded_by_name_anywhere(tmp_path: Path):
    excluded = Config(path=tmp_path / "pyproject.toml").excluded()
    assert excluded(tmp_path / ".git")
    assert excluded(tmp_path / "a" / "node_modules")
    assert excluded("build")
    assert not excluded(tmp_path / "a" / "m.py")
    assert not excluded(tmp_path / "builder")


def test_excluded_adds_extend_exclude_and_the_command_lines(tmp_path: Path):
    cfg = Config(path=tmp_path / "pyproject.toml", exclude=("gen",), extend_exclude=("third_party/*",))
    excluded = cfg.excluded(["*.pyi"])
    assert excluded(tmp_path / "gen")
    assert excluded(tmp_path / "third_party" / "x.py")
    assert excluded(tmp_path / "a" / "b.pyi")
    assert not excluded(tmp_path / ".git")  # exclude replaces the default list
    assert not excluded(tmp_path / "a.py")
    assert not cfg.excluded()(tmp_path / "a" / "b.pyi")


def test_matcher_globs_by_name_by_relative_path_and_under_a_folder(tmp_path: Path):
    match = Config(path=tmp_path / "pyproject.toml").matcher(["*_pb2.py", "src/gen/", "docs/*.py"])
    assert match(tmp_path / "a" / "x_pb2.py")  # the name
    assert match(tmp_path / "src" / "gen")  # the relative path, trailing slash dropped
    assert match(tmp_path / "src" / "gen" / "deep" / "m.py")  # under a matching folder
    assert match(tmp_path / "docs" / "conf.py")
    assert not match(tmp_path / "other" / "src" / "gen")  # anchored at the root
    assert not match(tmp_path / "a" / "m.py")
    assert not match(tmp_path / "src" / "generated")


def test_matcher_relative_paths_are_taken_from_the_current_folder(tmp_path: Path):
    match = Config(path=tmp_path / "pyproject.toml").matcher(["src/gen"])
    assert match("src/gen/m.py")
    assert match("./src/gen")
    assert not match("src/m.py")


def test_matcher_outside_the_root_uses_the_path_as_given(tmp_path: Path):
    (tmp_path / "proj").mkdir()
    match = Config(path=tmp_path / "proj" / "pyproject.toml").matcher(["gen/*", "vendor"])
    assert match(tmp_path / "vendor")  # a name matches anywhere
    assert not match(tmp_path / "gen" / "m.py")  # not under the root: the absolute path does not match
    assert match("gen/m.py") is True  # outside the root: the path as given
    assert match(tmp_path / "proj" / "gen" / "m.py")
    match_abs = Config(path=tmp_path / "proj" / "pyproject.toml").matcher([f"{tmp_path}/other/*"])
    assert match_abs(tmp_path / "other" / "m.py")


def test_matcher_a_file_under_an_excluded_folder_named_explicitly(tmp_path: Path):
    match = Config(path=tmp_path / "pyproject.toml").matcher(["vendor"])
    assert match(tmp_path / "vendor" / "lib" / "m.py")
    assert match("vendor/m.py")
    assert not match(tmp_path / "vendored" / "m.py")
    assert not match(tmp_path.parent / "vendor" / "m.py") or tmp_path.parent == tmp_path


def test_matcher_dot_and_dot_dot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "gen" / "x").mkdir(parents=True)
    match = Config(path=tmp_path / "pyproject.toml").matcher(["gen"])
    monkeypatch.chdir(tmp_path / "gen")
    assert match(".")
    monkeypatch.chdir(tmp_path / "gen" / "x")
    assert match("..")
    assert match("")
    monkeypatch.chdir(tmp_path)
    assert not match(".")
    inner = Config(path=tmp_path / "pyproject.toml").matcher(["x"])
    monkeypatch.chdir(tmp_path / "gen" / "x")
    assert not inner("..")  # `..` is gen, not gen/x/..
    assert inner(".")
    glob = Config(path=tmp_path / "pyproject.toml").matcher(["g*"])
    monkeypatch.chdir(tmp_path / "gen")
    assert glob(".")
    assert glob("x/")


def test_matcher_a_glob_ending_in_x(tmp_path: Path):
    match = Config(path=tmp_path / "pyproject.toml").matcher(["src/GENX", "data/"])
    assert match(tmp_path / "src" / "GENX") and not match(tmp_path / "src" / "GEN")
    assert match(tmp_path / "data" / "a.csv")


def test_matcher_a_name_with_an_x_is_a_name_anywhere(tmp_path: Path):
    match = Config(path=tmp_path / "pyproject.toml").matcher(["XDIR"])
    assert match(tmp_path / "a" / "XDIR" / "m.py")


def test_load_checks_selectors_against_the_rules_it_is_given(tmp_path: Path):
    table(tmp_path / "sub", 'select = ["JAX002"]')
    with pytest.raises(ConfigError, match=r"names an unknown rule code, prefix or name 'JAX002' \(a code \(JAX001\), "
                                          r"a prefix \(JAX0\) .*\)$"):
        load(find([tmp_path / "sub"]), [rule for rule in RULES if rule.code == "JAX001"])


def test_matcher_with_no_patterns(tmp_path: Path):
    match = Config(path=tmp_path / "pyproject.toml").matcher([])
    assert not match(tmp_path / "a.py")
    assert not match("")


def test_matcher_caches_each_folder(tmp_path: Path):
    matcher = config._Matcher(["gen/*"], tmp_path)
    assert matcher("gen/a.py") and matcher("gen/b.py")
    assert matcher._folders == {"gen": str(tmp_path / "gen")}
    assert matcher._root == str(tmp_path) + os.sep


def test_ignored_rules(tmp_path: Path):
    cfg = Config(path=tmp_path / "pyproject.toml",
                 per_file_ignores=(("tests/*", ("JAX002",)), ("*.py", ("JAX001", "JAX002")), ("x", ())))
    assert cfg.ignored_rules(tmp_path / "tests" / "t.py") == frozenset({"JAX001", "JAX002"})
    assert cfg.ignored_rules(tmp_path / "tests" / "data.txt") == frozenset({"JAX002"})
    assert cfg.ignored_rules(tmp_path / "a.txt") == frozenset()
    assert Config().ignored_rules(tmp_path / "a.py") == frozenset()


# declared_jax_floor, checked_module_name, _version


@pytest.mark.parametrize(("dependencies", "floor"), [
    (["jax (>=0.4.30)"], (0, 4, 30)),
    (["jax(>=0.4.30)"], (0, 4, 30)),
    (["jax ( )"], None),
    (["jax @ file:///x"], None),
    (["jax>=0.4.30, <1"], (0, 4, 30)),
    (["jax<=0.5,>=0.4.2"], (0, 4, 2)),
    (["jax!=0.4.*,>=0.4.2"], (0, 4, 2)),
    (["jax==0.4.*"], (0, 4)),
    (["jax-dataclasses>=1"], None),
    (["Jax>=0.4.30"], (0, 4, 30)),
    (["jax\n>=0.4.30"], (0, 4, 30)),
    (["jax>=0.4.30;\nextra == 'x'"], (0, 4, 30)),
    (["jax>=0.6", "jax>=0.4.30"], (0, 4, 30)),
    (["jax>=0.4.30", "jax>=0.6"], (0, 4, 30)),
    ([" jax >= 0.4.30 "], (0, 4, 30)),
    (["jax>=0.4.30.post1"], (0, 4, 30)),
])
def test_declared_jax_floor(dependencies, floor):
    assert declared_jax_floor(dependencies) == floor


@pytest.mark.parametrize(("requirement", "message"), [
    ("jax>=0.4.*", "'jax>=0.4.*': not a version specifier: '>=0.4.*'"),
    ("jax~=0.4.*", "'jax~=0.4.*': not a version specifier: '~=0.4.*'"),
    ("jax>=0.4, banana", "'jax>=0.4, banana': not a version specifier: 'banana'"),
    ("jax>=", "'jax>=': not a version specifier: '>='"),
    ("-jax", "not a PEP 508 requirement: '-jax'"),
    ("jax>=1!0.4", "'jax>=1!0.4': not a version specifier: '>=1!0.4'"),
    ("jax (>=0.4.30", "'jax (>=0.4.30': not a version specifier: '(>=0.4.30'"),  # one parenthesis: not stripped
    ("jax >=0.4.30)", "'jax >=0.4.30)': not a version specifier: '>=0.4.30)'"),
    ("Jax_>=0.4.30", "'Jax_>=0.4.30': not a version specifier: '_>=0.4.30'"),
    ("", "not a PEP 508 requirement: ''"),
])
def test_declared_jax_floor_errors(requirement, message):
    with pytest.raises(ValueError) as raised:
        declared_jax_floor([requirement])
    assert str(raised.value) == message


def test_lower_bound_directly():
    assert floor._lower_bound("") is None
    assert floor._lower_bound("  ") is None
    assert floor._lower_bound("()") is None
    assert floor._lower_bound("@ https://x") is None
    assert floor._lower_bound("(>=0.4.1)") == (0, 4, 1)
    assert floor._lower_bound("<0.5,!=0.4.2") is None
    assert floor._lower_bound(">0.4.1") == (0, 4, 1)
    assert floor._lower_bound("~=0.4.1") == (0, 4, 1)
    assert floor._lower_bound("===0.4.1") == (0, 4, 1)
    assert floor._lower_bound("==0.4.1,>=0.4.9") == (0, 4, 9)
    assert floor._lower_bound("!=0.4.*") is None


@pytest.mark.parametrize("name", [None, "compat", "pkg.jax_compat", "_p.Ü2", "a.b.c"])
def test_checked_module_name_accepts(name: Optional[str]):
    assert checked_module_name(name) == name


@pytest.mark.parametrize("name", ["", "2pkg", "pkg.", ".pkg", "pkg..x", "my-pkg", "pkg.import", "if", "a b",
                                  "pkg.x\n", "pkg;import os"])
def test_checked_module_name_refuses(name: str):
    with pytest.raises(ValueError) as raised:
        checked_module_name(name)
    assert str(raised.value) == f"is not a dotted module name (like `mypkg.jax_compat`): {name!r}"


def test_shown_directly(tmp_path: Path):
    assert config._shown(None) == ""
    assert config._shown(tmp_path / "a" / "pyproject.toml") == os.path.join("a", "pyproject.toml")
    assert config._shown(tmp_path.parent / "pyproject.toml") == str(tmp_path.parent / "pyproject.toml")


def test_version_directly():
    assert config._version("--x", None) is None
    assert config._version("--x", "0.4.30") == (0, 4, 30)
    assert config._version("--x", [0, 5]) == (0, 5)
    assert config._version("--x", ()) is None
    with pytest.raises(ValueError) as raised:
        config._version("--x", "banana")
    assert str(raised.value) == "--x: not a jax version: 'banana'"


# resolve: the command line over the file over the defaults


def test_resolve_defaults():
    chosen, settings = resolve(Config(), RULES)
    assert codes(chosen) == [rule.code for rule in RULES if rule.default]
    assert settings == Settings()
    assert (settings.jax_version_source, settings.jax_floor_source) == ("", "")
    assert settings.scope is Scope.KERNELS and settings.precision_policy is PrecisionPolicy.NEAREST
    assert settings.unsafe_fixes is False and settings.helpers_module is None


FILE = Config(select=("JAX0",), ignore=("JAX002",), scope=Scope.ALL, jax_version=(0, 5, 0),
              precision_policy=PrecisionPolicy.HIGHEST, helpers_module="file.compat", unsafe_fixes=True,
              jax_floor=(0, 4, 30), jax_floor_source="pyproject.toml")


def test_resolve_the_file_over_the_defaults():
    chosen, settings = resolve(FILE, RULES)
    assert codes(chosen) == [code for code in JAX00 if code != "JAX002"]
    assert settings == Settings(jax_version=(0, 5, 0), scope=Scope.ALL, precision_policy=PrecisionPolicy.HIGHEST,
                                helpers_module="file.compat", unsafe_fixes=True, jax_floor=(0, 4, 30))
    assert (settings.jax_version_source, settings.jax_floor_source) == ("[tool.jax-codemod]", "pyproject.toml")


def test_resolve_what_is_given_over_the_file():
    chosen, settings = resolve(FILE, RULES, select=["JAX1"], ignore=["JAX101,JAX102"], jax_version="0.6.1",
                               jax_floor="0.4.35", scope="kernels", precision_policy="nearest",
                               helpers_module="cli.compat", unsafe_fixes=False)
    assert codes(chosen)[:2] == ["JAX100", "JAX103"] and "JAX101" not in codes(chosen)
    assert all(code.startswith("JAX1") for code in codes(chosen))
    assert settings == Settings(jax_version=(0, 6, 1), scope=Scope.KERNELS, precision_policy=PrecisionPolicy.NEAREST,
                                helpers_module="cli.compat", unsafe_fixes=False, jax_floor=(0, 4, 35))
    assert (settings.jax_version_source, settings.jax_floor_source) == ("--jax-version", "--jax-floor")


def test_resolve_given_as_enums_and_versions():
    _, settings = resolve(Config(), RULES, jax_version=(0, 7), jax_floor=(0, 4, 1), scope=Scope.ALL,
                          precision_policy=PrecisionPolicy.HIGHEST, unsafe_fixes=True)
    assert settings == Settings(jax_version=(0, 7), scope=Scope.ALL, precision_policy=PrecisionPolicy.HIGHEST,
                                unsafe_fixes=True, jax_floor=(0, 4, 1))
    assert settings.jax_floor_source == "--jax-floor"


def test_resolve_empty_options_leave_the_files():
    chosen, settings = resolve(FILE, RULES, select=[], ignore=[], jax_version=None, jax_floor=None, scope=None,
                               precision_policy=None, helpers_module=None, unsafe_fixes=None)
    assert (chosen, settings) == resolve(FILE, RULES)


def test_resolve_the_target_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / ".venv" / "lib" / "python3.12" / "site-packages" / "jax-0.4.33.dist-info").mkdir(parents=True)
    (tmp_path / "py").mkdir()
    (tmp_path / "py" / "lib" / "python3.12" / "site-packages" / "jax-0.4.34.dist-info").mkdir(parents=True)
    cfg = Config(project_root=tmp_path)
    _, settings = resolve(cfg, RULES)
    assert (settings.jax_version, settings.jax_version_source) == ((0, 4, 33), ".venv")
    _, settings = resolve(cfg, RULES, interpreter=str(tmp_path / "py"))
    assert (settings.jax_version, settings.jax_version_source) == ((0, 4, 34), "interpreter")
    _, settings = resolve(Config(project_root=tmp_path, jax_version=(0, 5)), RULES)
    assert (settings.jax_version, settings.jax_version_source) == ((0, 5), "[tool.jax-codemod]")
    _, settings = resolve(Config(dependencies=("jax==0.4.2",)), RULES)
    assert settings.jax_version is None
    (tmp_path / ".venv").rename(tmp_path / "old")
    _, settings = resolve(Config(project_root=tmp_path, dependencies=("jax==0.4.2",)), RULES)
    assert (settings.jax_version, settings.jax_version_source) == ((0, 4, 2), "pyproject.toml")


def test_resolve_errors_name_the_option():
    with pytest.raises(UnknownRule):
        resolve(Config(), RULES, select=["JAX8"])
    with pytest.raises(UnknownRule):
        resolve(Config(select=("JAX8",)), RULES)
    with pytest.raises(ValueError) as raised:
        resolve(Config(), RULES, jax_version="banana")
    assert str(raised.value) == "--jax-version: not a jax version: 'banana'"
    with pytest.raises(ValueError) as raised:
        resolve(Config(), RULES, jax_floor="x")
    assert str(raised.value) == "--jax-floor: not a jax version: 'x'"
    with pytest.raises(ValueError) as raised:
        resolve(Config(), RULES, helpers_module="a-b")
    assert str(raised.value) == "--helpers-module is not a dotted module name (like `mypkg.jax_compat`): 'a-b'"


def test_resolve_selects_among_the_rules_given():
    few = [rule for rule in RULES if rule.code in ("JAX001", "JAX002")]
    chosen, _ = resolve(Config(), few)
    assert codes(chosen) == ["JAX001", "JAX002"]
    chosen, _ = resolve(Config(ignore=("JAX001",)), few)
    assert codes(chosen) == ["JAX002"]


# helpers_module_ready


def test_no_helpers_module_needs_nothing(tmp_path: Path):
    assert helpers_module_ready(Config(), Settings(), create=True, write=True) is None
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("existing", ["pkg/compat.py", "src/pkg/compat.py", "pkg/compat/__init__.py",
                                      "src/pkg/compat/__init__.py"])
def test_an_existing_helpers_module_is_ready(tmp_path: Path, existing: str):
    (tmp_path / existing).parent.mkdir(parents=True)
    (tmp_path / existing).write_text("")
    assert helpers_module_ready(Config(project_root=tmp_path), Settings(helpers_module="pkg.compat"),
                                create=False, write=True) is None
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.py")) == [existing]


def test_a_folder_named_like_the_module_is_not_it(tmp_path: Path):
    (tmp_path / "pkg" / "compat.py").mkdir(parents=True)
    with pytest.raises(ConfigError):
        helpers_module_ready(Config(project_root=tmp_path), Settings(helpers_module="pkg.compat"), create=False,
                             write=True)


def test_a_missing_helpers_module_is_an_error_saying_what_to_do(tmp_path: Path):
    with pytest.raises(ConfigError) as raised:
        helpers_module_ready(Config(project_root=tmp_path), Settings(helpers_module="pkg.compat"), create=False,
                             write=True)
    assert str(raised.value) == (
        f"--helpers-module pkg.compat: no such module in the project {tmp_path} (looked for "
        f"{os.path.join('pkg', 'compat.py')} and {os.path.join('pkg', 'compat', '__init__.py')}); create it, or pass "
        "--create-helpers-module (`create-helpers-module = true` in [tool.jax-codemod]) to have it written")
    assert list(tmp_path.iterdir()) == []


def test_a_missing_helpers_module_in_the_current_folder(tmp_path: Path):
    with pytest.raises(ConfigError, match=rf"^--helpers-module compat: no such module in the project {tmp_path} "
                                          r"\(looked for compat.py and compat/__init__.py\)"):
        helpers_module_ready(Config(), Settings(helpers_module="compat"), create=False, write=False)


@pytest.mark.parametrize("cfg_create", [False, True])
def test_the_helpers_module_is_written_when_asked(tmp_path: Path, cfg_create: bool):
    cfg = Config(project_root=tmp_path, create_helpers_module=cfg_create)
    path = helpers_module_ready(cfg, Settings(helpers_module="pkg.sub.compat"), create=not cfg_create, write=True)
    assert path == tmp_path / "pkg" / "sub" / "compat.py"
    text = path.read_text()
    assert text.startswith('"""The helpers jax-codemod\'s fixes call (JAX002/JAX003), from its helpers_source.py."""\n')
    assert "def rsqrt_safe" in text and "def lstm_float32" in text
    assert text.count('"""The helpers') == 1
    from importlib import resources
    source = resources.files("codemods").joinpath("helpers_source.py").read_text()
    assert text.endswith(source[source.index('"""', 3) + 3:].lstrip("\n")) or source.split('"""')[2].strip() in text
    compile(text, str(path), "exec")
    # written once: the next run finds it
    assert helpers_module_ready(cfg, Settings(helpers_module="pkg.sub.compat"), create=True, write=True) is None


def test_the_helpers_module_is_written_into_an_existing_package(tmp_path: Path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    path = helpers_module_ready(Config(project_root=tmp_path), Settings(helpers_module="pkg.compat"), create=True,
                                write=True)
    assert path == tmp_path / "pkg" / "compat.py" and "def rsqrt_safe" in path.read_text()


def test_the_helpers_module_is_not_written_without_write(tmp_path: Path):
    assert helpers_module_ready(Config(project_root=tmp_path), Settings(helpers_module="pkg.compat"), create=True,
                                write=False) is None
    assert list(tmp_path.iterdir()) == []
