"""Figures a parser glued from cells printed one above the other are set apart where the page prints them so;
no figure is changed, and a run that can be cut more than one way, or in another order than the page's lines,
is left as it is. Text written for the test."""

from __future__ import annotations

from structaware_readers.text.layer import document_words, page_words
from structaware_readers.text.restore import restore_text
from structaware_readers.text.stacked_figures import split_stacked

PAGE = (
    "Sources and uses of cash\r\n(Dollars in Millions)\r\n$ 41.5 Opening balance\r\n32.7 cash from sales\r\n"
    "(13.4) cash used for plants\r\n(9.8) other uses\r\n$ (0.6) change in the year\r\nExhibits\r\n5.1 Lease\r\n"
    "6.2 Loan 8-K 12/4/2031\r\nS-1 5.1 10/9/2030\r\n12\r\n3\r\n1\r\n23\r\nNos. 333-\r\n181075 and\r\n"
    "$ 47 Rent\r\n1 Tax\r\nNote (1)\r\n(2) Rule 1(i)\r\n(5) applies\r\n"
)


def _page(text: str = PAGE):
    words, compounds = document_words([text])
    return page_words(text, words, compounds)


def test_a_column_of_figures_glued_into_one_cell_is_set_apart():
    page = _page()
    glued = "(Dollars in Millions)$ 41.532.7(13.4)(9.8)$ (0.6)"
    assert restore_text(glued, page) == "(Dollars in Millions)$ 41.5 32.7 (13.4) (9.8) $ (0.6)"
    assert restore_text("5.16.2; 12/4/203110/9/2030", page) == "5.1 6.2; 12/4/2031 10/9/2030"


def test_figures_cut_more_than_one_way_or_out_of_line_order_are_left():
    page = _page()
    assert split_stacked("123", page) is None  # ``12`` / ``3`` and ``1`` / ``23``: both printed in line order
    assert split_stacked("32.741.5", page) is None  # ``32.7`` is printed below ``41.5``
    assert restore_text("32.741.5", page) == "32.741.5"
    assert split_stacked("41.5", page) is None  # printed as it is
    # the traps: the figures of one number, or bare figures that may be one number, stay together
    assert restore_text("Nos. 333-181075 and", page) == "Nos. 333-181075 and"
    assert restore_text("Rent $471", page) == "Rent $471"
    assert split_stacked("$471", page) is None
    # footnote marks and a citation's parts are no amounts
    assert restore_text("Note (1)(2)", page) == "Note (1)(2)"
    assert restore_text("Rule 1(i)(5)", page) == "Rule 1(i)(5)"
