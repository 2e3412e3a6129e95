"""Alternative text descriptions of algorithms -> boxes and edges (structaware_readers.algorithms.alt_text).

Every text below is real wording of the VA/DoD clinical practice guidelines' appendices "Alternative
Text Descriptions of Algorithms" (US federal government works, public domain), copied as the parser
(MinerU 4.0.12 flash tier) gives it: paragraphs joined by newlines, list markers kept. Each form has
a trap beside it.
"""

from __future__ import annotations

from structaware_readers.algorithms import parse_alt_text


def _edges(text: str) -> list[tuple[str, str, str]]:
    return [(e.source, e.target, e.label) for e in parse_alt_text(text).edges]


HTN_A = (
    "1. Module A begins with Box 1, in the shape of a rounded rectangle: “Adult in healthcare system”\n"
    "2. Box 1 connects to Box 2, in the shape of a hexagon, asks the question: “Is the patient currently being "
    "treated for HTN?” a. If the answer is “Yes” to Box 2, then Box 3, in the shape of an oval: “Go to Module B, "
    "Box 16” b. If the answer is “No” to Box 2, then Box 4, in the shape of a rectangle: “Obtain office blood "
    "pressure (see Sidebar 1)”\n"
    "3. Box 4 connects to Box 5, in the shape of a hexagon, asks the question: “When measured properly (see "
    "Appendix G), is SBP ≥120 mm Hg or DBP ≥80 mm Hg?” a. If the answer is “Yes” to Box 5, then Box 6, in the "
    "shape of a hexagon, asks the question:\n"
    "“Does patient have an acute injury or illness?”\n"
    "i. If the answer is “Yes” to Box 6, then Box 7, in the shape of a rectangle: “Return after acute episode "
    "resolved (typically within 4 weeks)\n"
    "1. Box 7 connects to Box 4, in the shape of a rectangle: “Obtain office blood pressure (see Sidebar 1)”\n"
    "ii. If the answer “No” to Box 6, then Box 8, in the shape of a rectangle: “Assess the need for and implement "
    "lifestyle modification, then follow up for adherence (e.g., diet, exercise, weight loss, alcohol moderation)”"
)


def test_start_connect_and_branches() -> None:
    desc = parse_alt_text(HTN_A)
    assert _edges(HTN_A) == [
        ("1", "2", ""),
        ("2", "3", "Yes"),
        ("2", "4", "No"),
        ("4", "5", ""),
        ("5", "6", "Yes"),
        ("6", "7", "Yes"),
        ("7", "4", ""),
        ("6", "8", "No"),  # "If the answer “No” to" (no "is") is the same branch form
    ]
    assert desc.boxes["1"].text == "Adult in healthcare system"
    assert desc.boxes["1"].shape == "rounded rectangle"
    # a question quoted on the next paragraph is still the box's text
    assert desc.boxes["6"].text == "Does patient have an acute injury or illness?"
    assert desc.boxes["2"].question and desc.boxes["2"].shape == "hexagon"
    assert not desc.boxes["4"].question
    # trap: the start box has no edge into it; an oval's "Go to Module B, Box 16" is text, not an edge
    assert all(e.target != "1" for e in desc.edges)
    assert desc.boxes["3"].text == "Go to Module B, Box 16"
    assert "16" not in desc.boxes


def test_closing_quote_dropped_text_runs_to_next_statement() -> None:
    desc = parse_alt_text(HTN_A)
    # the outline drops the closing quote of Box 7: its text ends before the next list item "1."
    assert desc.boxes["7"].text == "Return after acute episode resolved (typically within 4 weeks)"
    # trap: the statement after it is still read
    assert ("7", "4", "") in _edges(HTN_A)


def test_box_text_naming_other_boxes_is_no_edge() -> None:
    text = (
        "3. Box 2 connects to Box 3, in the shape of a hexagon, asks the question: “Is there an acute patient "
        "safety risk?” a. If the answer is “Yes” to Box 3, then Box 4, in the shape of a rectangle: “Inpatient or "
        "emergent care to stabilize”\n"
        "i. Box 4 connects to Box 5, in the shape of a rectangle: “After stabilization, reenter the algorithm at "
        "**Box 7** or **Box 18**, as appropriate”\n"
        "b. If the answer is “No” to Box 3, then Box 6\n"
        "4. Box 6, in the shape of a hexagon, asks the question: “Does the patient meet diagnostic criteria for MDD "
        "(see **Sidebar 2**)?”"
    )
    desc = parse_alt_text(text)
    assert _edges(text) == [("2", "3", ""), ("3", "4", "Yes"), ("4", "5", ""), ("3", "6", "No")]
    # trap: "Box 7" and "Box 18" inside Box 5's quoted text open no box
    assert "7" not in desc.boxes and "18" not in desc.boxes
    # a box stated on its own ("4. Box 6, in the shape of ...") gets its text and shape
    assert desc.boxes["6"].text.startswith("Does the patient meet diagnostic criteria for MDD")
    assert desc.boxes["6"].shape == "hexagon"


def test_answer_labels_as_written() -> None:
    text = (
        "ii. If the answer is “No (still suspect asthma)” to Box 6, then Box 8, in the shape of a hexagon, asks the "
        "question: “Is the patient capable of spirometry and is it readily available?”\n"
        "3. Box 18, in the shape of a hexagon, asks the question: “Has patient had previous adequate treatment "
        "trials?” a. If the answer is “Yes” to Box 18, then Box 19, in the shape of a rectangle: “Choose other "
        "treatment (based on patient preferences and characteristics) (see **Sidebar 5**)” i. If the “Patient "
        "agrees” to Box 19, then Box 24, in the shape of a rectangle:\n“Initiate treatment”\n"
        "2. Box 15 connects to Box 16, in the shape of a hexagon, asks the question: “Should the patient be in "
        "specialty MH care if not already?” a. If the answer is “Yes” to Box 16, then Box 17, in the shape of a "
        "circle: “Refer and engage in specialty MH care” b. If the answer is “No-N/A” to Box 16, then Box 18"
    )
    assert _edges(text) == [
        ("6", "8", "No (still suspect asthma)"),
        ("18", "19", "Yes"),
        ("19", "24", "Patient agrees"),
        ("15", "16", ""),
        ("16", "17", "Yes"),
        ("16", "18", "No-N/A"),
    ]
    # trap: "Box 18" stated on its own first and then reached by a branch keeps its text
    assert parse_alt_text(text).boxes["18"].text == "Has patient had previous adequate treatment trials?"


def test_continue_to_connects_back_and_also_connects() -> None:
    text = (
        "v. If the answer is “No” to Box 13, then continue to Box 18 in the shape of a rectangle: “Provide feedback "
        "as appropriate”. This connects back to Box 6.\n"
        "i. Box 29 also connects to Box 31.\n"
        "c. If the answer is “No” to Box 22, then continue to Box 24.\n"
        "i. Box 16 then connects to Box 23, in the shape of an oval: “Arrange transfer”"
    )
    desc = parse_alt_text(text)
    assert _edges(text) == [("13", "18", "No"), ("18", "6", ""), ("29", "31", ""), ("22", "24", "No"), ("16", "23", "")]
    assert desc.boxes["18"].text == "Provide feedback as appropriate"
    # trap: a box reached without a quote has no text (never the words after it)
    assert desc.boxes["24"].text == "" and desc.boxes["31"].text == ""


def test_repeated_box_keeps_its_first_text() -> None:
    # the obesity outline repeats Box 6 with Box 5's text by mistake; the first text is the box's own
    text = (
        "4. Box 5 connects to Box 6, in the shape of a hexagon, asks the question: “Is patient ready to engage with "
        "a weight management program?”\n"
        "b. If the answer is “No” to Box 9, then Box 6, in the shape of a rectangle: “With permission, assess "
        "patients (see Sidebar 3) and screen for overweight- and obesity-associated conditions (see Sidebar 1) "
        "and obesogenic medicationsc”"
    )
    desc = parse_alt_text(text)
    assert desc.boxes["6"].text == "Is patient ready to engage with a weight management program?"
    assert desc.boxes["6"].shape == "hexagon"
    assert _edges(text) == [("5", "6", ""), ("9", "6", "No")]


def test_box_text_with_list_inside_the_quote() -> None:
    text = (
        "a. If the answer is “Yes” to Box 26, then Box 27, in the shape of a rectangle: “Remove ICS:\n"
        "• If patient is on LABA/ICS + LAMA, then remove ICS and maintain LABA + LAMA as single combination inhaler\n"
        "• If patient is on LABA/ICS, then remove ICS and continue with LABA or LAMA”\n"
        "ii. If the answer is “No” to Box 26, then Box 29, in the shape of a rectangle: “Maintain ICS:”"
    )
    desc = parse_alt_text(text)
    assert desc.boxes["27"].text == (
        "Remove ICS: • If patient is on LABA/ICS + LAMA, then remove ICS and maintain LABA + LAMA as single "
        "combination inhaler • If patient is on LABA/ICS, then remove ICS and continue with LABA or LAMA"
    )
    assert _edges(text) == [("26", "27", "Yes"), ("26", "29", "No")]


def test_study_flow_form() -> None:
    text = (
        "1. Box 1: 16,492 citations identified by searches a. Right to Box 2: 11,050 citations excluded at the "
        "title level i. Citations excluded at this level were off-topic, not published in English, or published "
        "prior to inclusion date b. Down to Box 3\n"
        "2. Box 3: 5,442 abstracts reviewed a. Right to Box 4: 4,723 citations excluded at the abstract level"
    )
    desc = parse_alt_text(text)
    assert _edges(text) == [("1", "2", ""), ("1", "3", ""), ("3", "4", "")]
    assert desc.boxes["1"].text == "16,492 citations identified by searches"
    assert desc.boxes["3"].text == "5,442 abstracts reviewed"
    assert desc.boxes["2"].text.startswith("11,050 citations excluded at the title level")


def test_text_stating_no_box() -> None:
    intro = (
        "The following outline narratively describes the Management of Substance Use Disorders algorithm. An "
        "explanation of the purpose of the algorithm and description of the various shapes used within the "
        "algorithm can be found in the Algorithm section."
    )
    assert parse_alt_text(intro).edges == [] and parse_alt_text(intro).boxes == {}
    # trap: a sentence naming boxes without an outline's wording states nothing
    assert parse_alt_text("Return to Module A - Box 4 as indicated; see Box 7 or Box 18.").edges == []


def test_two_entry_points_and_terse_wording() -> None:
    # CKD Module A: "Beginning at Box 10", "Box 1 connects Box 2" (no "to"), "then to Box 11"
    text = (
        "1. Module A has two entry points, at Box 1 and Box 10. Beginning at Box 1, in the shape of a rounded "
        "rectangle: “Incidental finding of abnormal electrolytes, creatinine, proteinuria, hematuria, new highly "
        "elevated BP, or peripheral edema”\n"
        "2. Box 1 connects Box 2, in the shape of a rectangle: “Initial assessment for kidney (see Sidebars 1 and "
        "2) and non-kidney disease”\n"
        "4. Beginning at Box 10, in the shape of a rounded rectangle: “Patients at risk for CKD (Sidebar 1)”\n"
        "5. Box 10 connects Box 11, in the shape of a rectangle: “Periodically obtain SCr, eGFR, urinalysis, and spot uACR”\n"
        "ii. If the answer is “No” to Box 13, then to Box 11, in the shape of a rectangle:"
    )
    desc = parse_alt_text(text)
    assert _edges(text) == [("1", "2", ""), ("10", "11", ""), ("13", "11", "No")]
    assert desc.boxes["10"].text == "Patients at risk for CKD (Sidebar 1)"
    assert desc.boxes["1"].text.startswith("Incidental finding of abnormal electrolytes")
    # trap: "two entry points, at Box 1 and Box 10" names boxes but states no edge between them
    assert ("1", "10", "") not in _edges(text)
