"""What a new user meets first: the package's dependencies, opening an index, bad settings
named, ids checked, a string given where rows are expected."""

import sys
from pathlib import Path

import pytest

import neardup

ROOT = Path(__file__).resolve().parents[2]
TEXT = "a page about ducks and where they swim in the summer " * 10


def test_the_package_declares_pyarrow():
    if sys.version_info < (3, 11):
        pytest.skip("tomllib is Python 3.11+")
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert any(d.startswith("pyarrow") for d in project["dependencies"])


def test_index_of_a_path_opens_it_or_raises(tmp_path):
    with pytest.raises(neardup.NeardupError, match="no index here"):
        neardup.Index(tmp_path / "missing")
    with pytest.raises(neardup.NeardupError, match="no index here"):
        neardup.Index(tmp_path)
    neardup.Index.create(tmp_path / "idx")
    idx = neardup.Index(tmp_path / "idx")
    assert idx.stats()["pages"] == 0
    assert neardup.Index.open(str(tmp_path / "idx")).stats()["pages"] == 0


@pytest.mark.parametrize("make", [
    lambda: neardup.dedup([{"id": "a", "text": TEXT}], num_perm=-1),
    lambda: neardup.dedup([{"id": "a", "text": TEXT}], threshold=2),
    lambda: neardup.MinHash(num_perm=-1),
    lambda: neardup.MinHashLSH(num_perm=-1),
])
def test_a_bad_setting_is_a_value_error_naming_it(make):
    with pytest.raises(ValueError, match="num_perm|threshold"):
        make()


@pytest.mark.parametrize("ids,error,words", [
    (["a", None], ValueError, "is null"),
    (["a", "a"], ValueError, "same id"),
    ([1.5, 2.5], TypeError, "id column is"),
])
def test_ids_are_checked(ids, error, words):
    import pyarrow as pa
    table = pa.table({"id": ids, "text": [TEXT, TEXT]})
    with pytest.raises(error, match=words):
        neardup.dedup(table)


def test_list_ids_are_refused():
    with pytest.raises(TypeError, match="id"):
        neardup.dedup([{"id": [1], "text": TEXT}, {"id": [2], "text": TEXT}])


def test_a_string_is_not_rows():
    with pytest.raises(TypeError, match="data is a string"):
        neardup.dedup("hello")
