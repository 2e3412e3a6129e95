"""The Mermaid flowchart parser (structaware_readers.mermaid).

Fixtures in tests/fixtures/mermaid were written for these tests (see SOURCES.md there): clinical
algorithms in English and Chinese (nested subgraphs, fan-in, edges to subgraphs) and a sample of
every node shape, link style and label form of the flowchart grammar. Expected edge lists are
exact.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from structaware_readers.errors import MalformedInputError, StructawareError
from structaware_readers.mermaid import (
    Flowchart,
    FlowEdge,
    NotAFlowchartError,
    find_mermaid_blocks,
    parse_mermaid,
)

FIX = Path(__file__).parent / "fixtures" / "mermaid"
SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def _chart(name: str) -> Flowchart:
    path = FIX / name
    return parse_mermaid(path.read_text(encoding="utf-8"), path=str(path))


def _edges(chart: Flowchart) -> list[tuple[str, str, str]]:
    return [(e.source, e.target, e.label) for e in chart.edges]


# --------------------------------------------------------------------------------------------
# real-world style fixtures, exact edge lists


def test_hypertension_diagnosis_en() -> None:
    chart = _chart("hypertension_diagnosis_en.mmd")
    assert chart.direction == "TD"
    assert chart.title == "Figure 1. Diagnostic flowchart for suspected hypertension"
    assert chart.edge_texts() == [
        "Clinic BP >= 140/90 mmHg -> ABPM average >= 135/85 mmHg?",
        "ABPM average >= 135/85 mmHg? -(yes)-> Diagnose hypertension",
        "ABPM average >= 135/85 mmHg? -(no)-> Re-check BP in 5 years",
        "Diagnose hypertension -> Start lifestyle advice",
    ]
    assert list(chart.nodes) == ["bp", "abpm", "dx", "recheck", "life"]


def test_hypertension_diagnosis_zh() -> None:
    chart = _chart("hypertension_diagnosis_zh.mmd")
    assert chart.title == "图1 疑似高血压的诊断流程图"
    assert chart.edge_texts() == [
        "诊室血压≥140/90 mmHg -> 动态血压均值≥135/85 mmHg？",
        "动态血压均值≥135/85 mmHg？ -(是)-> 诊断为高血压",
        "动态血压均值≥135/85 mmHg？ -(否)-> 5年后复查血压",
        "诊断为高血压 -> 开始生活方式干预",
    ]
    assert _edges(chart)[1] == ("动态血压", "确诊", "是")


def test_t2dm_insulin_zh_nested_subgraphs() -> None:
    chart = _chart("t2dm_insulin_zh.mmd")
    assert chart.direction == "TB"
    assert _edges(chart) == [
        ("start", "hba1c", ""),
        ("hba1c", "lifestyle", "否"),
        ("hba1c", "symptoms", "是"),
        ("symptoms", "csii", "是"),
        ("symptoms", "mdi", "否"),
        ("csii", "target", ""),
        ("mdi", "target", ""),
        ("target", "followup", "是"),
        ("target", "强化", "否"),
        ("lifestyle", "combo", "3个月未达标"),
    ]
    assert chart.nodes["hba1c"] == "HbA1c≥9.0% 或空腹血糖≥11.1 mmol/L?"
    assert chart.nodes["combo"] == "联合第二种降糖药"
    assert chart.subgraphs == {"强化": ["symptoms", "csii", "mdi", "target"], "评估": ["csii", "mdi", "target"]}
    assert chart.subgraph_titles == {"强化": "短期胰岛素强化治疗", "评估": "疗程结束后评估"}
    assert chart.subgraph_parents == {"评估": "强化"}
    # an edge into a subgraph resolves to its title, and the subgraph is not a node
    assert chart.edge_texts()[8] == "血糖达标? -(否)-> 短期胰岛素强化治疗"
    assert "强化" not in chart.nodes
    assert chart.edges[9].stroke == "dotted"


def test_sepsis_screening_en() -> None:
    chart = _chart("sepsis_screening_en.mmd")
    assert chart.title == "Adult sepsis screening in the emergency department"
    assert chart.direction == "LR"
    assert chart.edge_texts() == [
        "Adult at triage -> qSOFA ≥ 2 or clinical concern?",
        "qSOFA ≥ 2 or clinical concern? -(no)-> Re-assess in 1 hour",
        "qSOFA ≥ 2 or clinical concern? -(yes)-> Hour-1 bundle",
        "Measure lactate -> Obtain blood cultures",
        "Obtain blood cultures -> Give broad-spectrum antibiotics",
        "Give broad-spectrum antibiotics -> MAP < 65 mmHg after fluids?",
        "Give 30 mL/kg crystalloid for hypotension or lactate ≥ 4 mmol/L -> MAP < 65 mmHg after fluids?",
        "MAP < 65 mmHg after fluids? -(yes)-> Start vasopressors",
        "MAP < 65 mmHg after fluids? -(no)-> Monitor and re-measure lactate",
    ]
    pressor = chart.edges[7]
    assert (pressor.edge_id, pressor.stroke, pressor.head) == ("e1", "thick", "arrow")
    assert chart.subgraphs == {"bundle": ["lactate", "cultures", "abx", "fluids", "vaso"]}
    assert "e1" not in chart.nodes  # the e1@{ animate: true } line is an edge property, not a node
    assert chart.skipped == []


def test_nsclc_nested_with_semicolons() -> None:
    chart = _chart("nsclc_nested_en.mmd")
    assert chart.direction == "LR"
    assert chart.edge_texts() == [
        "Stage IV NSCLC -> Molecular testing",
        "PD-L1 ≥ 50% -(yes)-> Pembrolizumab",
        "PD-L1 ≥ 50% -(no)-> Chemotherapy + immunotherapy",
        "Molecular testing -(EGFR)-> EGFR mutation positive",
        "Molecular testing -(ALK)-> ALK rearrangement positive",
        "Molecular testing -(none)-> No actionable driver",
        "EGFR mutation positive -> Progression",
        "ALK rearrangement positive -> Progression",
        "Progression -> Re-biopsy",
        "Re-biopsy -> Targeted therapy",
    ]
    assert chart.subgraph_parents == {"egfr": "targeted", "alk": "targeted"}
    assert chart.subgraphs["targeted"] == ["osim", "alec"]
    assert chart.nodes["osim"] == "Osimertinib"  # a node with no edge is still a node


def test_syntax_variety_shapes_links_and_labels() -> None:
    chart = _chart("syntax_variety.mmd")
    shapes = [chart.nodes[f"a{i}"] for i in range(1, 16)]
    assert shapes == [
        "Rectangle",
        "Rounded",
        "Stadium",
        "Subroutine",
        "Database",
        "Circle",
        "Double circle",
        "Flag",
        "Decision",
        "Hexagon",
        "Parallelogram",
        "Parallelogram alt",
        "Trapezoid",
        "Trapezoid alt",
        "Document #1",
    ]
    links = [(e.source, e.target, e.stroke, e.head, e.bidirectional) for e in chart.edges if e.source.startswith("b")]
    assert links == [
        ("b1", "b2", "normal", "open", False),
        ("b2", "b3", "dotted", "open", False),
        ("b3", "b4", "thick", "open", False),
        ("b4", "b5", "dotted", "arrow", False),
        ("b5", "b6", "thick", "arrow", False),
        ("b6", "b7", "normal", "circle", False),
        ("b7", "b8", "normal", "cross", False),
        ("b8", "b9", "normal", "arrow", True),
        ("b9", "b8", "normal", "arrow", True),
        ("b9", "b10", "normal", "circle", True),
        ("b10", "b9", "normal", "circle", True),
        ("b10", "b11", "normal", "cross", True),
        ("b11", "b10", "normal", "cross", True),
        ("b11", "b12", "normal", "arrow", False),
        ("b12", "b13", "thick", "arrow", False),
        ("b13", "b14", "dotted", "arrow", False),
    ]  # b14 ~~~ b15 is invisible: no edge, but both nodes exist
    assert "b15" in chart.nodes
    labelled = [(e.target, e.label) for e in chart.edges if e.source == "c1"]
    assert labelled == [
        ("c2", "pipe"),
        ("c3", "dashes"),
        ("c4", "dots"),
        ("c5", "thick"),
        ("c6", "quoted (with) --> arrow"),
        ("c7", "pipe with spaces"),
    ]
    assert chart.edge_texts()[-4:] == [
        'Bold and italic -> A & B "C"',
        'A & B "C" -> Heart rate > 100',
        "Heart rate > 100 -> two lines",
        "two lines -> The End",
    ]


@pytest.mark.parametrize("name", sorted(p.name for p in FIX.glob("*.mmd") if p.name != "sequence_not_flowchart.mmd"))
def test_every_fixture_parses_strictly_with_labels_resolved(name: str) -> None:
    chart = _chart(name)
    assert chart.edges and chart.skipped == []
    for edge in chart.edges:
        assert edge.source_label == chart.label(edge.source) and edge.source_label
        assert edge.target_label == chart.label(edge.target) and edge.target_label
        assert "[" not in edge.source_label[:1] and "<br" not in edge.text()


# --------------------------------------------------------------------------------------------
# syntax, one construct at a time


@pytest.mark.parametrize(
    ("node", "label"),
    [
        ("A[text]", "text"),
        ("A(text)", "text"),
        ("A([text])", "text"),
        ("A[[text]]", "text"),
        ("A[(text)]", "text"),
        ("A((text))", "text"),
        ("A(((text)))", "text"),
        ("A>text]", "text"),
        ("A{text}", "text"),
        ("A{{text}}", "text"),
        ("A[/text/]", "text"),
        ("A[\\text\\]", "text"),
        ("A[/text\\]", "text"),
        ("A[\\text/]", "text"),
        ('A@{ shape: rect, label: "x" }', "x"),
        ("A@{ shape: diam, label: 'Is it?' }", "Is it?"),
        ("A@{ shape: cyl }", "A"),
        ('A["text with (parens) and -> arrows"]', "text with (parens) and -> arrows"),
        ('A["`**bold** and _em_`"]', "bold and em"),
        ('A["`Line 1\nLine 2`"]', "Line 1 Line 2"),
        ("A[one<br>two<br/>three<br />four]", "one two three four"),
        ('A["#quot;quoted#quot; &amp; #35;1"]', '"quoted" & #1'),
        ("A[<b>bold</b> BP <140/90]", "bold BP <140/90"),
        ("A[fa:fa-user Patient]", "Patient"),
        ("A(f(x) and (y))", "f(x) and (y)"),
        ("A[text]:::highlight", "text"),
        ("A:::highlight", "A"),
        ("A [spaced]", "spaced"),
        ("初诊患者[初诊（门诊）患者]", "初诊（门诊）患者"),
    ],
)
def test_node_shapes_and_labels(node: str, label: str) -> None:
    chart = parse_mermaid(f"flowchart LR\n  {node} --> Z")
    first = next(iter(chart.nodes))
    assert chart.nodes[first] == label
    assert chart.edges[0].target == "Z"


@pytest.mark.parametrize(
    ("link", "stroke", "head", "n_edges"),
    [
        ("-->", "normal", "arrow", 1),
        ("---", "normal", "open", 1),
        ("-.->", "dotted", "arrow", 1),
        ("-.-", "dotted", "open", 1),
        ("==>", "thick", "arrow", 1),
        ("===", "thick", "open", 1),
        ("--o", "normal", "circle", 1),
        ("--x", "normal", "cross", 1),
        ("<-->", "normal", "arrow", 2),
        ("<==>", "thick", "arrow", 2),
        ("<-.->", "dotted", "arrow", 2),
        ("o--o", "normal", "circle", 2),
        ("x--x", "normal", "cross", 2),
        ("--->", "normal", "arrow", 1),
        ("----", "normal", "open", 1),
        ("====>", "thick", "arrow", 1),
        ("-..->", "dotted", "arrow", 1),
        ("~~~", None, None, 0),
    ],
)
def test_link_styles(link: str, stroke: str | None, head: str | None, n_edges: int) -> None:
    sources = [f"flowchart LR\n  A {link} B"]
    if link[0] not in "ox":  # "Ao--oB" is node "Ao" in Mermaid too: a leading o/x needs a space
        sources.append(f"flowchart LR\n  A{link}B")
    for src in sources:
        chart = parse_mermaid(src)
        assert list(chart.nodes) == ["A", "B"]
        assert len(chart.edges) == n_edges, src
        if n_edges:
            assert {(e.stroke, e.head) for e in chart.edges} == {(stroke, head)}
            assert [(e.source, e.target) for e in chart.edges] == [("A", "B"), ("B", "A")][:n_edges]


@pytest.mark.parametrize(
    ("statement", "label", "stroke"),
    [
        ("A -->|yes| B", "yes", "normal"),
        ("A-->|yes|B", "yes", "normal"),
        ("A --> |yes| B", "yes", "normal"),
        ('A -->|"quoted | bar"| B', "quoted | bar", "normal"),
        ("A -- yes --> B", "yes", "normal"),
        ("A -- two words --- B", "two words", "normal"),
        ("A -. maybe .-> B", "maybe", "dotted"),
        ("A == sure ==> B", "sure", "thick"),
        ('A --"quoted"--> B', "quoted", "normal"),
        ('A -- "with --> arrow" --> B', "with --> arrow", "normal"),
        ("A --ok--> B", "ok", "normal"),
        ("A -- non-smoker --> B", "non-smoker", "normal"),
        ("A -->|是| B", "是", "normal"),
        ("A -- 3个月后 --> B", "3个月后", "normal"),
        ("A -->|<b>HbA1c</b> ≥ 9%| B", "HbA1c ≥ 9%", "normal"),
    ],
)
def test_edge_labels(statement: str, label: str, stroke: str) -> None:
    chart = parse_mermaid(f"flowchart TD\n{statement}")
    assert _edges(chart) == [("A", "B", label)]
    assert chart.edges[0].stroke == stroke
    assert chart.edge_texts() == [f"A -({label})-> B"]


def test_circle_and_cross_heads_glued_to_the_next_node() -> None:
    # Mermaid reads "A---oB" as a circle edge to B (its documented pitfall)
    assert [(e.target, e.head) for e in parse_mermaid("graph LR\nA---oB").edges] == [("B", "circle")]
    assert [(e.target, e.head) for e in parse_mermaid("graph LR\nA--xB").edges] == [("B", "cross")]


def test_chains_and_ampersand_groups() -> None:
    chart = parse_mermaid("flowchart LR\n A --> B --> C\n D & E --> F & G\n H --> I & J --> K")
    assert [(e.source, e.target) for e in chart.edges] == [
        ("A", "B"),
        ("B", "C"),
        ("D", "F"),
        ("D", "G"),
        ("E", "F"),
        ("E", "G"),
        ("H", "I"),
        ("H", "J"),
        ("I", "K"),
        ("J", "K"),
    ]


def test_bidirectional_labelled_link_gives_two_labelled_edges() -> None:
    chart = parse_mermaid("flowchart LR\n A <-- sync --> B")
    assert chart.edge_texts() == ["A -(sync)-> B", "B -(sync)-> A"]
    assert all(e.bidirectional for e in chart.edges)


def test_edge_ids() -> None:
    src = "flowchart LR\n A e1@--> B\n B e2@-.->|later| C\n e1@{ animate: true }\n e2@{ curve: linear }"
    chart = parse_mermaid(src)
    got = [(e.edge_id, e.source, e.target, e.label) for e in chart.edges]
    assert got == [("e1", "A", "B", ""), ("e2", "B", "C", "later")]
    assert list(chart.nodes) == ["A", "B", "C"]


@pytest.mark.parametrize(
    ("header", "direction"),
    [
        ("flowchart TD", "TD"),
        ("flowchart TB", "TB"),
        ("flowchart BT", "BT"),
        ("flowchart RL", "RL"),
        ("flowchart LR", "LR"),
        ("graph LR", "LR"),
        ("graph TD;", "TD"),
        ("flowchart", "TB"),
        ("flowchart-elk TD", "TD"),
        ("graph >", "LR"),
        ("  %% comment first\n\nflowchart RL", "RL"),
    ],
)
def test_headers_and_directions(header: str, direction: str) -> None:
    chart = parse_mermaid(f"{header}\n  A --> B")
    assert chart.direction == direction
    assert _edges(chart) == [("A", "B", "")]


def test_semicolons_and_same_line_statements() -> None:
    chart = parse_mermaid("graph TD;A-->B;B-->C;\nC-->D;D[Done];")
    assert _edges(chart) == [("A", "B", ""), ("B", "C", ""), ("C", "D", "")]
    assert chart.nodes["D"] == "Done"


def test_front_matter_title_comments_and_directives() -> None:
    src = (
        '---\ntitle: "Algorithm 2: follow-up"\nconfig:\n  theme: forest\n---\n'
        "%%{init: {'flowchart': {'curve': 'basis'}}}%%\n"
        "flowchart TD\n  %% whole-line comment\n  A --> B %% trailing comment\n"
    )
    chart = parse_mermaid(src)
    assert chart.title == "Algorithm 2: follow-up"
    assert _edges(chart) == [("A", "B", "")]


def test_ignored_statements() -> None:
    src = """flowchart LR
    A[Start] --> B
    click A callback "Tooltip; with semicolon"
    click B href "https://example.org/a;b" _blank
    style A fill:#f9f,stroke:#333,stroke-width:4px
    classDef green fill:#9f6,stroke:#333;
    class A,B green
    linkStyle 0 stroke:#ff3,stroke-width:4px
    accTitle: Accessible title
    accDescr {
        A multi-line
        description
    }
    B --> C
    """
    chart = parse_mermaid(src)
    assert _edges(chart) == [("A", "B", ""), ("B", "C", "")]
    assert list(chart.nodes) == ["A", "B", "C"]


def test_last_label_wins_and_later_declarations_resolve_earlier_edges() -> None:
    chart = parse_mermaid("flowchart TD\n A --> B\n A[First]\n B[Target]\n A[Second]")
    assert chart.edge_texts() == ["Second -> Target"]


def test_unicode_ids() -> None:
    chart = parse_mermaid("flowchart TD\n  诊断 --> 治疗\n  A[初诊患者] -->|是| B{血压≥140/90?}")
    assert chart.edge_texts() == ["诊断 -> 治疗", "初诊患者 -(是)-> 血压≥140/90?"]


def test_nodes_without_edges_are_a_valid_flowchart() -> None:
    chart = parse_mermaid("flowchart TD\n  A[Only a box]\n  B((another))")
    assert chart.nodes == {"A": "Only a box", "B": "another"}
    assert chart.edges == [] and chart.edge_texts() == []


def test_subgraph_title_forms() -> None:
    src = """flowchart TB
    subgraph one [First title]
      a1 --> a2
    end
    subgraph two["Second title"]
      b1 --> b2
    end
    subgraph "Third title"
      c1 --> c2
    end
    subgraph Fourth title with spaces
      d1 --> d2
    end
    subgraph five
      e1
    end
    one --> two
    """
    chart = parse_mermaid(src)
    assert chart.subgraph_titles == {
        "one": "First title",
        "two": "Second title",
        "Third title": "Third title",
        "Fourth title with spaces": "Fourth title with spaces",
        "five": "five",
    }
    assert chart.subgraphs["five"] == ["e1"]
    assert chart.edge_texts()[-1] == "First title -> Second title"


def test_fenced_source_is_unwrapped() -> None:
    chart = parse_mermaid("```mermaid\nflowchart LR\n  A --> B\n```\n")
    assert _edges(chart) == [("A", "B", "")]


def test_flow_edge_text_format() -> None:
    assert FlowEdge("a", "b", "yes", "A", "B").text() == "A -(yes)-> B"
    assert FlowEdge("a", "b", "", "A", "B").text() == "A -> B"


def test_unit_builder_contract() -> None:
    """The exact edge texts the unit builder (units.py) turns into flow_path units."""
    src = (
        "flowchart TD\n  A[Clinic BP >= 140/90] --> B{ABPM >= 135/85?}\n"
        "  B -->|yes| C[Diagnose hypertension]\n  B -->|no| D[Re-check in 5 years]"
    )
    chart = parse_mermaid(src)
    assert chart.edge_texts() == [
        "Clinic BP >= 140/90 -> ABPM >= 135/85?",
        "ABPM >= 135/85? -(yes)-> Diagnose hypertension",
        "ABPM >= 135/85? -(no)-> Re-check in 5 years",
    ]


# --------------------------------------------------------------------------------------------
# errors


@pytest.mark.parametrize(
    ("src", "diagram_type"),
    [
        ("sequenceDiagram\n  A->>B: hi", "sequenceDiagram"),
        ("classDiagram\n  Animal <|-- Duck", "classDiagram"),
        ("stateDiagram-v2\n  [*] --> Still", "stateDiagram-v2"),
        ("erDiagram\n  CUSTOMER ||--o{ ORDER : places", "erDiagram"),
        ("gantt\n  title A Gantt", "gantt"),
        ('pie title Pets\n  "Dogs" : 386', "pie"),
        ("mindmap\n  root((mindmap))", "mindmap"),
        ("---\ntitle: x\n---\n%% comment\ngitGraph\n  commit", "gitGraph"),
    ],
)
def test_other_diagram_types_raise_not_a_flowchart(src: str, diagram_type: str) -> None:
    with pytest.raises(NotAFlowchartError) as info:
        parse_mermaid(src, path="fig3.mmd")
    err = info.value
    assert isinstance(err, MalformedInputError) and isinstance(err, StructawareError)
    assert err.diagram_type == diagram_type
    assert err.path == "fig3.mmd" and err.field == "mermaid"
    assert str(err) == f"fig3.mmd: mermaid: a Mermaid {diagram_type} is not a flowchart"


def test_sequence_fixture_is_not_a_flowchart() -> None:
    with pytest.raises(NotAFlowchartError, match="sequenceDiagram"):
        _chart("sequence_not_flowchart.mmd")


@pytest.mark.parametrize(
    ("src", "message"),
    [
        ("", "empty"),
        ("   \n\n", "empty"),
        ("%% only a comment\n", "no diagram header"),
        ("hello world", "expected a 'flowchart' or 'graph' header, got 'hello'"),
        ("A --> B", "header"),
        ("flowchart TD", "no nodes"),
        ("flowchart TD\n  %% nothing\n", "no nodes"),
        ("flowchart TD\n  A[unclosed --> B", "line 2, column 4: node shape '[' is not closed"),
        ("flowchart TD\n  A --> B\n  ]]] (((", "line 3, column 3: expected a node id"),
        ("flowchart TD\n  A --> ", "line 2, column 9: expected a node after the link"),
        ("flowchart TD\n  A B", "line 2, column 5: expected a link"),
        ("flowchart TD\n  A & --> B", "expected a node after '&'"),
        ("flowchart TD\n  subgraph S\n  A --> B", "subgraph 'S' is not closed"),
        ("flowchart TD\n  A --> B\n  end", "'end' without an open subgraph"),
        ("flowchart TD\n  A -->|never closed B", "edge label '|' is not closed"),
        ('flowchart TD\n  A["never closed] --> B', "unterminated quoted text"),
    ],
)
def test_malformed_input_raises_with_location(src: str, message: str) -> None:
    with pytest.raises(MalformedInputError) as info:
        parse_mermaid(src, path="doc.md", field="content")
    assert message in str(info.value)
    assert info.value.path == "doc.md" and info.value.field == "content"
    assert not isinstance(info.value, NotAFlowchartError)


def test_lenient_mode_skips_bad_statements() -> None:
    src = "flowchart TD\n  A --> B\n  ]]] (((\n  B -->|ok| C\n  D[unclosed --> E\n"
    chart = parse_mermaid(src, strict=False)
    assert _edges(chart) == [("A", "B", ""), ("B", "C", "ok")]
    assert chart.skipped == ["line 3: ]]] (((", "line 5: D[unclosed --> E"]
    assert "D" not in chart.nodes  # a failed statement leaves nothing behind
    with pytest.raises(MalformedInputError, match="no nodes; skipped: line 2"):
        parse_mermaid("flowchart TD\n  ]]]\n", strict=False)


def test_type_errors() -> None:
    with pytest.raises(TypeError):
        parse_mermaid(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        find_mermaid_blocks(b"```mermaid")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Markdown fences


def test_find_mermaid_blocks_in_fixture_markdown() -> None:
    blocks = find_mermaid_blocks((FIX / "guideline_with_mermaid.md").read_text(encoding="utf-8"))
    assert blocks == [
        (
            "flowchart TD\n  A[Clinic BP >= 140/90] --> B{ABPM confirms?}\n  B -- yes --> C[Diagnose hypertension]\n"
            "  B -- no --> D[Re-measure in 5 years]"
        ),
        "graph LR\n  start --> stop",
        "flowchart LR\n  indented --> block",
    ]
    assert [len(parse_mermaid(b).edges) for b in blocks] == [3, 1, 1]


def test_find_mermaid_blocks_edge_cases() -> None:
    assert find_mermaid_blocks("no fences here") == []
    assert find_mermaid_blocks("```{mermaid}\ngraph TD\nA-->B\n```") == ["graph TD\nA-->B"]
    assert find_mermaid_blocks("```mermaid\n```") == [""]
    # an unclosed fence runs to the end of the document (CommonMark)
    assert find_mermaid_blocks("text\n```mermaid\ngraph TD\nA-->B\n") == ["graph TD\nA-->B"]
    # a closing fence must be at least as long as the opening one
    assert find_mermaid_blocks("````mermaid\ngraph TD\n```\nA-->B\n````") == ["graph TD\n```\nA-->B"]
    assert find_mermaid_blocks("```mermaidx\ngraph TD\n```") == []


@pytest.mark.shared
def test_unstructured_markdown_input_has_a_parsable_mermaid_block() -> None:
    path = SHARED / "fixtures" / "unstructured" / "generated_0.27.35_offline_stub" / "inputs" / "sample.md"
    if not path.exists():
        pytest.skip(f"{path} not found (shared fixtures absent)")
    blocks = find_mermaid_blocks(path.read_text(encoding="utf-8"))
    assert len(blocks) == 1
    chart = parse_mermaid(blocks[0], path=str(path))
    assert chart.edge_texts() == [
        "Clinic BP >= 140/90 -> ABPM confirms?",
        "ABPM confirms? -(yes)-> Diagnose hypertension",
        "ABPM confirms? -(no)-> Re-measure in 5 years",
    ]


def test_mutated_sources_give_a_flowchart_or_a_typed_error() -> None:
    """Deterministic fuzzing: damaged fixture sources never raise anything but MalformedInputError."""
    import random

    rng = random.Random(20261129)
    sources = [p.read_text(encoding="utf-8") for p in sorted(FIX.glob("*.mmd"))]
    alphabet = '[](){}<>|&;:"-=.~ox@`#\n %'
    parsed = rejected = 0
    for _ in range(300):
        chars = list(rng.choice(sources))
        for _ in range(rng.randint(1, 6)):
            k = rng.randrange(len(chars))
            op = rng.random()
            if op < 0.4:
                chars[k] = rng.choice(alphabet)
            elif op < 0.7:
                del chars[k]
            else:
                chars.insert(k, rng.choice(alphabet))
        src = "".join(chars)
        for strict in (True, False):
            try:
                chart = parse_mermaid(src, strict=strict)
            except MalformedInputError:
                rejected += 1
            else:
                parsed += 1
                assert all(e.source_label and e.target_label for e in chart.edges)
    assert parsed > 100 and rejected > 50


# --------------------------------------------------------------------------------------------
# ../shared/cases/14-*: Chinese labels, quoted labels in shapes, bare CJK ids ending in "."


def _case14(shared_dir: Path, name: str) -> Flowchart:
    (folder,) = (shared_dir / "cases").glob("14-*")
    return parse_mermaid((folder / name).read_text(encoding="utf-8"), path=name)


def test_case14_lr_chinese_labels_edges_and_subgraph(shared_dir: Path) -> None:
    chart = _case14(shared_dir, "input_lr_chinese.mmd")
    assert len(chart.nodes) == 10 and len(chart.edges) == 13 and list(chart.subgraphs) == ["hospitalSystem"]
    assert chart.nodes["patient"] == "病人" and chart.nodes["consultation"] == "咨询"
    assert chart.nodes["pastTests"] == "Pastiest 结果的医疗记录"
    assert _edges(chart) == [
        ("patient", "consultation", "提交咨询"), ("consultation", "medicalRecord", "生成病历"),
        ("medicalRecord", "pastTests", ""), ("medicalRecord", "doctor", "查询病历"),
        ("doctor", "reviewRecords", "查看病历"), ("reviewRecords", "diagnosis", "诊断"),
        ("diagnosis", "prescription", "开具药方"), ("diagnosis", "suggestTests", "建议检查"),
        ("suggestTests", "patient", ""), ("prescription", "patient", ""),
        ("patient", "feedback", "填写反馈"), ("feedback", "medicalRecord", "更新病历"), ("feedback", "doctor", ""),
    ]  # fmt: skip
    texts = chart.edge_texts()
    assert "咨询 -(生成病历)-> 生成病历" in texts and "医生 -(查看病历)-> 查看病历" in texts
    assert chart.subgraph_titles["hospitalSystem"] == "医院系统"
    assert chart.subgraphs["hospitalSystem"] == [
        "consultation", "medicalRecord", "reviewRecords", "diagnosis", "prescription", "suggestTests", "feedback",
    ]  # fmt: skip
    assert chart.nodes["consultation"] == "咨询" and "hospitalSystem" not in chart.nodes


def test_case14_bare_cjk_ids_ending_in_a_dot_keep_every_edge(shared_dir: Path) -> None:
    chart = _case14(shared_dir, "input_bare_cjk_ids.mmd")
    assert [(e.source_label.rstrip("."), e.target_label.rstrip("."), e.label) for e in chart.edges] == [
        ("普通病人", "需要基本的预约挂号功能能够查看医生排班并选择合适时间进行预约", "高优先级"),
        ("老年病人", "希望系统能提供语音输入功能减少打字困难", "中优先级"),
        ("医院管理员", "需要系统提供财务报告和预算管理功能", "低优先级"),
        ("病人用户需求分类表", "医疗预约管理系统", "满足需求"),
        ("专家用户需求分类表", "医疗预约管理系统", "满足需求"),
    ]
    # subgraph ids used as endpoints are the subgraphs, not new empty nodes
    assert "病人用户需求分类表" in chart.subgraphs and "病人用户需求分类表" not in chart.nodes
    assert all(e.source_label and e.target_label for e in chart.edges)


def test_case14_chain_label_applies_to_one_link(shared_dir: Path) -> None:
    chart = _case14(shared_dir, "input_chain_quoted_label.mmd")
    assert len(chart.edges) == 8
    assert [(e.source, e.target, e.label) for e in chart.edges[3:]] == [
        ("validateRegDetails", "regSuccess", "Valid"), ("regSuccess", "sendConfirmation", ""),
        ("sendConfirmation", "confirmEmail", ""), ("confirmEmail", "regComplete", ""),
        ("validateRegDetails", "startReg", "Invalid"),
    ]  # fmt: skip
    assert chart.nodes["validateRegDetails"] == "Validate Details"


@pytest.mark.parametrize(
    "src",
    ["graph TD; A-->B", "graph LR A-->B", "flowchart TD A[Start] --> B{Is it?}", "graph A-->B", "flowchart LR;A-->B;"],
)
def test_one_line_charts(src: str) -> None:
    from structaware_readers.mermaid import find_flowchart_source

    assert [(e.source, e.target) for e in parse_mermaid(src).edges] == [("A", "B")]
    assert find_flowchart_source(src) == src  # recognised as Mermaid by both readers


def test_find_flowchart_source_leaves_other_code_alone() -> None:
    from structaware_readers.mermaid import find_flowchart_source

    assert find_flowchart_source("graph = build_graph(nodes)") is None
    assert find_flowchart_source("print('flowchart')") is None
    assert find_flowchart_source("```mermaid\ngraph TD\n  A-->B\n```") == "graph TD\n  A-->B"


def test_dots_in_bare_ids() -> None:
    chart = parse_mermaid("flowchart TD\n  v1.2 --> 结束.\n  A.-->B")
    assert _edges(chart) == [("v1.2", "结束.", ""), ("A.", "B", "")]
