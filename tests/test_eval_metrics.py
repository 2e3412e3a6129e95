"""Metrics against hand-computed examples (paper 3.3 / 4.4 definitions, see evaluation/metrics.py)."""

from __future__ import annotations

import pytest

from structaware_retrievers.evaluation.metrics import (
    QueryOutcome,
    budget_hit,
    context_cost,
    coverage,
    covers,
    first_hit_rank,
    hit_at_k,
    metric_vector,
    outcome_from_flags,
    reciprocal_rank,
    summarize,
    summarize_by_type,
    token_counts,
    tokens,
)


def test_tokens_strip_latex_cells_and_thousands():
    gold = r"Nonaccrual loans retained $^{(\mathrm{a})}$ & \$ & 2,489 & \$ & 689 & $22 \%$"
    assert tokens(gold) == ["nonaccrual", "loans", "retained", "a", "2489", "689", "22"]
    # the same row as a parser renders it matches token for token
    assert tokens("Nonaccrual loans retained(a) | $ 2,489 | $ 689 | 22%") == tokens(gold)


def test_tokens_nfkc_entities_decimals_and_cjk():
    assert tokens("ＡＢＣ &amp; 1.5% (370)") == ["abc", "1.5", "370"]
    assert tokens("推荐等级A级") == ["推", "荐", "等", "级", "a", "级"]
    assert tokens("Total\\,net revenue") == ["total", "net", "revenue"]


def test_tokens_latex_tables_from_ohr_bench():
    # a JSON writer left "\\begin" as backspace + "egin"; column specs and \hline carry no evidence
    gold = "\x08egin{tabular}{|c|c|c|} \\hline Foreign exchange & \\$ & (88) & 3,520 \\\\ \\hline \\end{tabular}"
    assert tokens(gold) == ["foreign", "exchange", "88", "3520"]
    # OCR'd bold numbers come out digit by digit inside \mathbf
    assert tokens("Net Capital & $\\mathbf{2 4 , 5 7 8}$ & $\\mathbf{1 6 . 9}$") == ["net", "capital", "24578", "16.9"]
    # \multicolumn keeps only its content; an unknown command keeps its word
    assert tokens("\\multicolumn{3}{|c|}{$0.02 \\%$} \\June 30") == ["0.02", "june", "30"]
    # inline HTML from the parser: tags dropped, comparison signs kept out of the way
    assert tokens("Carrying value(<sup>a</sup>) <140/90 mmHg") == ["carrying", "value", "a", "140", "90", "mmhg"]


def test_coverage_is_multiset_fraction_of_gold():
    gold = token_counts("842 689 842 nonaccrual")  # 4 tokens, 842 twice
    assert coverage(gold, token_counts("nonaccrual 842 689")) == pytest.approx(3 / 4)
    assert coverage(gold, token_counts("842 842 689 nonaccrual extra words")) == 1.0
    assert coverage(token_counts(""), token_counts("anything")) == 0.0
    # threshold 0.8: 4 of 5 gold tokens is enough, 3 of 5 is not
    g5 = token_counts("a b c d e")
    assert covers([g5], token_counts("a b c d"))
    assert not covers([g5], token_counts("a b c"))
    # several gold spans: any one covered counts
    assert covers([g5, token_counts("x y")], token_counts("x y"))


def test_rank_metrics_hand_computed():
    flags = [False, False, True, True]
    assert first_hit_rank(flags) == 3
    assert first_hit_rank([False, False]) is None
    assert hit_at_k(3, 1) == 0.0 and hit_at_k(3, 5) == 1.0 and hit_at_k(None, 5) == 0.0
    assert reciprocal_rank(3) == pytest.approx(1 / 3)
    assert reciprocal_rank(None) == 0.0
    assert reciprocal_rank(101, depth=100) == 0.0


def test_context_cost_sums_top5():
    assert context_cost([100, 200, 300, 400, 500, 600]) == 1500
    assert context_cost([10, 20]) == 30


def test_budget_policies_hand_computed():
    # ranks:   1 (1200 chars, miss) 2 (300, miss) 3 (500, hit)
    flags, lengths = [False, False, True], [1200, 300, 500]
    # stop: rank 1 does not fit 1,000 -> list ends, no hit
    assert budget_hit(flags, lengths, 1000, "stop") is False
    # skip: rank 1 skipped, 300 + 500 = 800 fits, rank 3 hits
    assert budget_hit(flags, lengths, 1000, "skip") is True
    # 2,000: 1200 + 300 = 1500, + 500 = 2000 fits exactly -> hit under both
    assert budget_hit(flags, lengths, 2000, "stop") is True
    assert budget_hit(flags, lengths, 1999, "stop") is False
    with pytest.raises(ValueError, match="policy"):
        budget_hit(flags, lengths, 1000, "truncate")


def _outcomes():
    # q1: page hit at 1, element hit at 2, evidence hit at 2; q2: page hit at 3, no element hit;
    # q3 (no gold text): page hit at 6
    q1 = outcome_from_flags(
        "q1",
        "table",
        [True, True, False],
        [False, True, False],
        [False, True, False],
        [400, 400, 400],
        budgets=(1000,),
    )
    q2 = outcome_from_flags(
        "q2",
        "text",
        [False, False, True],
        [False, False, False],
        [False, False, True],
        [900, 50, 60],
        budgets=(1000,),
    )
    q3 = outcome_from_flags("q3", "text", [False] * 5 + [True], None, None, [100] * 6, budgets=(1000,))
    return [q1, q2, q3]


def test_outcome_from_flags():
    q1, q2, q3 = _outcomes()
    assert (q1.page_rank, q1.element_rank, q1.evidence_rank) == (1, 2, 2)
    assert q1.ctx_chars == 1200 and q1.has_gold_text
    assert q1.budget_hits == {"stop": {1000: True}, "skip": {1000: True}}
    # 900 + 50 + 60 = 1010 > 1000: the hit at rank 3 does not fit under either policy
    assert q2.budget_hits == {"stop": {1000: False}, "skip": {1000: False}}
    assert q3.page_rank == 6 and not q3.has_gold_text and q3.element_rank is None


def test_summarize_hand_computed():
    s = summarize(_outcomes(), ks=(1, 5))
    assert s["n"] == 3 and s["n_gold_text"] == 2
    assert s["PH@1"] == pytest.approx(1 / 3)
    assert s["PH@5"] == pytest.approx(2 / 3)  # q3 hits at 6
    assert s["MRR_p"] == pytest.approx((1 + 1 / 3 + 1 / 6) / 3)
    # element/evidence means over the 2 questions with gold text
    assert s["EH@1"] == 0.0
    assert s["EH@5"] == pytest.approx(1 / 2)
    assert s["MRR_e"] == pytest.approx((1 / 2 + 0) / 2)
    assert s["EvH@5"] == 1.0
    assert s["MRR_ev"] == pytest.approx((1 / 2 + 1 / 3) / 2)
    assert s["Ctx"] == pytest.approx((1200 + 1010 + 500) / 3)  # q3: top 5 of 6 x 100
    assert s["budget_stop@1000"] == pytest.approx(2 / 3)  # q1 and q3 hit, q2 does not fit
    na = summarize(_outcomes(), ks=(5,), element_addressable=False)
    assert na["EH@5"] is None and na["MRR_e"] is None and na["EvH@5"] == 1.0


def test_summarize_budget_q3_counts():
    q3 = _outcomes()[2]
    # 6 results of 100 chars all fit in 1,000 and the 6th is a page hit
    assert q3.budget_hits["stop"][1000] is True


def test_summarize_by_type_and_vectors():
    by = summarize_by_type(_outcomes(), ks=(5,))
    assert set(by) == {"all", "table", "text"}
    assert by["table"]["n"] == 1 and by["table"]["PH@5"] == 1.0
    assert by["text"]["PH@5"] == pytest.approx(1 / 2)
    outs = _outcomes()
    assert metric_vector(outs, "PH@1") == [1.0, 0.0, 0.0]
    assert metric_vector(outs, "MRR_p") == pytest.approx([1.0, 1 / 3, 1 / 6])
    assert metric_vector(outs, "EH@5") == [1.0, 0.0, 0.0]
    assert metric_vector(outs, "Ctx") == [1200.0, 1010.0, 500.0]
    for bad in ("PH", "MRR_p@5", "XX@1"):
        with pytest.raises(ValueError, match="unknown metric"):
            metric_vector(outs, bad)


def test_queryoutcome_is_plain_data():
    o = QueryOutcome("q", "text", None, None, None, False, 0)
    assert summarize([o])["PH@1"] == 0.0 and summarize([o])["EvH@1"] is None
