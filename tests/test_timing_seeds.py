"""Every quantitative figure of the four seed documents that the timing model covers
(tests/seed_figures.py): the quoted sentence stands in its document, and the model's value is
within 3 % of the document's (or, where two documents disagree, of the figure the model follows,
with the reason written down). docs/timing.md is the same table (tools/gen_seed_table.py)."""
import pytest

import seed_figures as S

if not S.SEEDS.is_dir():
    pytest.skip("../shared/seeds is not present", allow_module_level=True)

FIGURES = S.figures()


def test_figure_ids_are_unique():
    ids = [f.id for f in FIGURES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("fig", FIGURES, ids=[f.id for f in FIGURES])
def test_seed_figure(fig):
    assert S.quoted(fig), f"{fig.id}: the quote is not in {fig.source}: {fig.quote!r}"
    got = fig.measure()
    want = fig.check_value()
    assert got is not None, f"{fig.id}: the model has no value"
    assert abs(got - want) <= S.TOLERANCE * abs(want), \
        f"{fig.id}: model {got}, {fig.source} {want} ({fig.quote!r})"
    if fig.disagree:
        assert fig.disagree.strip(), fig.id


def test_doc_table_is_current():
    """docs/timing.md lists every figure (regenerate it with tools/gen_seed_table.py)."""
    doc = (S.Path(__file__).resolve().parents[1] / "docs" / "timing.md").read_text()
    missing = [f.id for f in FIGURES if f"`{f.id}`" not in doc]
    assert not missing, f"docs/timing.md lacks {missing[:5]}: run tools/gen_seed_table.py"
