"""The documentation's tools (tools/): the Differences page's tables, the API coverage count
and the site's link check, on small made-up inputs whose answers are known."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import api_coverage  # noqa: E402
import check_site  # noqa: E402
import differences  # noqa: E402


def test_differences_reads_every_table_without_torch():
    tables = differences.load_tables()
    assert set(tables) == {name for name, _, _ in differences.TABLES}
    for xfails in tables.values():
        assert all(isinstance(key, str) and key and isinstance(reason, str) and reason
                   for key, reason in xfails.items())
    # every table imports nothing of torch: the page builds where torch is absent
    source = "".join((differences.TESTS / f"{name}.py").read_text() for name in tables)
    assert "import torch" not in source


def test_differences_groups_shared_reasons_and_escapes_cells():
    names = [name for name, _, _ in differences.TABLES]
    tables = dict.fromkeys(names, {})
    tables[names[0]] = {"a|float32": "why | here", "b": "why | here", "c": "other"}
    page = differences.markdown(tables)
    assert "Expected failures: 3, with 2 distinct reasons." in page
    assert "| `a\\|float32`, `b` | why \\| here |" in page
    assert "| `c` | other |" in page
    assert page.count("nothing is expected to fail") == len(names) - 1


def _site(tmp_path, pages):
    for path, text in pages.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    return tmp_path


def test_broken_links_finds_missing_pages_and_anchors(tmp_path):
    site = _site(tmp_path, {
        "index.html": '<a href="api/">ok</a> <a href="api/#x">ok</a> <a href="gone.html">no</a>'
                      ' <a href="api/#missing">no</a> <a href="https://example.org/">out</a>'
                      ' <img src="/logo.png">',
        "api/index.html": '<h2 id="x">x</h2> <a href="../index.html">up</a>',
        "logo.png": ""})
    assert sorted(check_site.broken_links(site)) == [
        "index.html: api/#missing (no such anchor)", "index.html: gone.html"]


def test_api_coverage_counts_the_anchors_of_the_built_reference(tmp_path, capsys):
    names = api_coverage.group_names("tapegrad.nn", api_coverage.GROUPS["nn classes"][1])
    assert "Linear" in names and "Module" in names
    anchors = "".join(f'<div id="tapegrad.nn.{name}"></div>' for name in names)
    site = _site(tmp_path, {"api/nn/index.html": anchors})
    assert {f"tapegrad.nn.{name}" for name in names} <= api_coverage.anchors(site)
    # only nn's classes are named: their share of all the public names, and not more
    share = 100 * len(names) / sum(len(api_coverage.group_names(path, keep))
                                   for path, keep in api_coverage.GROUPS.values())
    assert api_coverage.main([str(site), "--min", str(share - 0.1)]) == 0
    assert api_coverage.main([str(site), "--min", str(share + 0.1)]) == 1
    assert f"nn classes: {len(names)}/{len(names)} named" in capsys.readouterr().out


def test_the_api_tables_show_signatures_readably():
    import api_reference
    optim = api_reference.table("optim")
    assert "collections.abc" not in optim and "lr: float | Tensor = 0.001" in optim.replace(
        "\\|", "|")
    transformer = api_reference.signature(api_reference.resolve("tapegrad.nn.Transformer"))
    assert "activation: str | Callable[[Tensor], Tensor] = relu" in transformer
    assert not transformer.endswith("-> None") and "'" not in transformer
