"""The search page of ``structaware serve`` in a real headless browser.

Debian's ``chromium`` and ``chromium-driver`` (``apt-get install -y chromium chromium-driver``; ``.ci/run``
installs them before the test command), driven through Selenium. The test starts the browser itself
(headless, no sandbox, no background networking: the flags a closed network needs) and skips, saying
why, only where no browser or driver is installed. It ingests a fixture PDF (MinerU parses it), serves
the index on 127.0.0.1, searches in the page, checks that the hits appear and that each outline in
each page image lies on the unit's bbox (within 2 px, read from the image's pixels in the browser),
searches again with a filter (the script swaps the results in without a reload and keeps the URL and
the history in step), and follows a hit's stable link. With the page's scripts disabled, a link to a
search shows its hits and the plain form searches: the server renders them.

``STRUCTAWARE_UPDATE_SCREENSHOTS=1`` writes the page as the README shows it to
``docs/images/search-page.png`` (as golden files are regenerated); the README's picture is that file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from structaware_retrievers.index.structure_index import StructureIndex
from structaware_retrievers.pictures.evidence_image import OUTLINE_COLOR
from structaware_retrievers.serve.app import QueryServer, make_server

REPO = Path(__file__).resolve().parents[1]
PDF = REPO / "tests" / "fixtures" / "pdf" / "synthetic_guideline_en.pdf"
SCREENSHOT = REPO / "docs" / "images" / "search-page.png"
WAIT = 120  # seconds for a search (the model loads on the first) and its images
BROWSER = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
DRIVER = shutil.which("chromedriver")
# headless Chromium on a closed network: no sandbox as root, no background connections that would be refused
FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1366,1000",
)  # fmt: skip

pytestmark = pytest.mark.e2e

# the outline's inner edges in the natural-size image, measured from its pixels across the middle of each box
MEASURE = """
const [img, color] = arguments;
const boxes = JSON.parse(img.dataset.bboxes);
const c = document.createElement("canvas");
c.width = img.naturalWidth; c.height = img.naturalHeight;
const g = c.getContext("2d");
g.drawImage(img, 0, 0);
const d = g.getImageData(0, 0, c.width, c.height).data;
const outline = (x, y) => {
  if (x < 0 || y < 0 || x >= c.width || y >= c.height) return false;
  const i = (y * c.width + x) * 4;
  return Math.abs(d[i] - color[0]) <= 24 && Math.abs(d[i + 1] - color[1]) <= 24 && Math.abs(d[i + 2] - color[2]) <= 24;
};
// from outside the box inwards: the first pixel after a run of outline pixels
const inner = (from, to, step, at) => {
  let seen = false;
  for (let v = from; v !== to; v += step) {
    if (at(v)) seen = true; else if (seen) return v;
  }
  return null;
};
return boxes.map((b) => {
  const e = [Math.round(b[0] * c.width), Math.round(b[1] * c.height), Math.round(b[2] * c.width), Math.round(b[3] * c.height)];
  const mx = Math.round((e[0] + e[2]) / 2), my = Math.round((e[1] + e[3]) / 2);
  const left = inner(e[0] - 12, e[0] + 12, 1, (x) => outline(x, my));
  const top = inner(e[1] - 12, e[1] + 12, 1, (y) => outline(mx, y));
  const right = inner(e[2] + 12, e[2] - 12, -1, (x) => outline(x, my));
  const bottom = inner(e[3] + 12, e[3] - 12, -1, (y) => outline(mx, y));
  return {expected: e, found: [left, top, right === null ? null : right + 1, bottom === null ? null : bottom + 1],
          size: [c.width, c.height], shown: img.getBoundingClientRect().width};
});
"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if BROWSER is None or DRIVER is None:
        pytest.skip("no headless browser here: `apt-get install -y chromium chromium-driver` (.ci/run installs them)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium (the test extra) is not installed")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    for flag in (*FLAGS, f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QueryServer]:
    pytest.importorskip("mineru", reason="ingesting the fixture PDF needs MinerU (the mineru extra)")
    folder = tmp_path_factory.mktemp("page") / "ix"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "sa-cache"))
        with StructureIndex(folder) as ix:
            ix.ingest([PDF]).raise_for_errors()  # MinerU parses it (flash tier, offline)
        index = StructureIndex(folder)
        srv = make_server(index, port=0)
        thread = threading.Thread(target=srv.serve_forever, daemon=True)
        thread.start()
        try:
            yield srv
        finally:
            srv.shutdown()
            srv.server_close()
            thread.join(30)
            index.close()


def _search(driver: Any, text: str, **selects: str) -> list[Any]:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    for name, value in selects.items():
        field = driver.find_element(By.ID, name)
        if field.tag_name == "select":
            Select(field).select_by_value(value)
        else:
            field.clear()
            field.send_keys(value)
    box = driver.find_element(By.ID, "q")
    box.clear()
    box.send_keys(text, Keys.ENTER)
    WebDriverWait(driver, WAIT).until(lambda d: re.fullmatch(r"\d+ hits?", d.find_element(By.ID, "status").text))
    return driver.find_elements(By.CSS_SELECTOR, "#results .hit")


def _loaded_images(driver: Any, hit: Any) -> list[Any]:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    images = hit.find_elements(By.CSS_SELECTOR, ".pages img")
    WebDriverWait(driver, WAIT).until(
        lambda d: all(
            d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", i) for i in images
        )
    )
    return images


def _assert_outlines_on_bboxes(driver: Any, hit: Any) -> int:
    """Every bbox of the hit on every page image has its outline there, within 2 px; returns the boxes checked.

    Outlines are drawn just outside each region, so where two regions of the hit touch (a row and the
    next row of its group) the upper one's outline runs on into the lower one's: that shared edge is
    found up to one outline width (4 px) inside the region."""
    checked = 0
    for img in _loaded_images(driver, hit):
        boxes = driver.execute_script(MEASURE, img, list(OUTLINE_COLOR))
        for box in boxes:
            assert None not in box["found"], box
            others = [b["expected"] for b in boxes if b is not box]
            for side, (f, e) in enumerate(zip(box["found"], box["expected"])):
                # the opposite edge of a neighbour on this side (top <-> bottom, left <-> right)
                shared = any(abs(o[(side + 2) % 4] - e) <= 2 for o in others)
                inward = f - e if side < 2 else e - f
                assert abs(f - e) <= 2 or (shared and 0 <= inward <= 4 + 2), box
            assert box["shown"] >= 300  # shown large enough to read on a laptop screen
            checked += 1
    return checked


def test_search_shows_hits_with_their_outlined_pages_then_filters(browser: Any, server: QueryServer) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(server.url + "/")
    assert browser.title == "structaware search"
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("data-enhanced") == "true"  # the script runs
    browser.execute_script("window.samePage = true")  # gone if a search reloaded the page
    hits = _search(browser, "What is the blood pressure target for adults 57-59 y?")
    assert len(hits) >= 3
    first = hits[0]
    assert first.find_element(By.CSS_SELECTOR, ".badge.type").text == "table_row"
    assert "Adults 57-59 y" in first.find_element(By.CSS_SELECTOR, ".text").text
    assert "Columns: Population" in first.find_element(By.CSS_SELECTOR, ".context").text
    # the hit's row and its group's rows, on pages 3 and 4: every outline on its bbox
    assert _assert_outlines_on_bboxes(browser, first) >= 2
    if os.environ.get("STRUCTAWARE_UPDATE_SCREENSHOTS") == "1":
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SCREENSHOT))

    # a second search with filters: graded recommendations only
    hits = _search(browser, "blood pressure", type="recommendation", grade="A")
    assert hits and all(h.find_element(By.CSS_SELECTOR, ".badge.type").text == "recommendation" for h in hits)
    assert all("A" in h.find_element(By.CSS_SELECTOR, ".badge.grade").text.split() for h in hits)
    assert "type=recommendation" in browser.current_url and "grade=A" in browser.current_url  # a stable link
    assert _assert_outlines_on_bboxes(browser, hits[0]) == 1
    assert browser.execute_script("return window.samePage") is True  # both searches without a reload
    assert browser.title == "blood pressure - structaware search"

    # back: the first search again, from the history, still without a reload
    shown = (  # the title, the first hit's unit type, the form's unit type
        "return [document.title, document.querySelector('#results .badge.type')?.textContent,"
        " document.getElementById('type').value]"
    )
    browser.back()
    WebDriverWait(browser, WAIT).until(lambda d: d.execute_script(shown)[1] == "table_row")
    assert browser.execute_script(shown) == ["What is the blood pressure target for adults 57-59 y? - structaware search",
                                             "table_row", ""]  # the form follows the URL  # fmt: skip
    assert "type=" not in browser.current_url and browser.execute_script("return window.samePage") is True
    browser.forward()
    WebDriverWait(browser, WAIT).until(lambda d: d.execute_script(shown)[1] == "recommendation")
    assert browser.execute_script(shown) == ["blood pressure - structaware search", "recommendation", "recommendation"]
    hits = browser.find_elements(By.CSS_SELECTOR, "#results .hit")

    # the hit's own link opens that hit alone, with its outline, and survives a reload
    unit_id = hits[0].get_attribute("data-unit-id")
    hits[0].find_element(By.CSS_SELECTOR, "a.hit-link").click()
    WebDriverWait(browser, WAIT).until(lambda d: "unit=" in d.current_url and d.find_elements(By.CSS_SELECTOR, ".hit"))
    link = browser.current_url
    browser.get(link)
    WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".hit"))
    (alone,) = browser.find_elements(By.CSS_SELECTOR, ".hit")
    assert alone.get_attribute("data-unit-id") == unit_id
    assert _assert_outlines_on_bboxes(browser, alone) == 1


def test_the_page_is_usable_from_the_keyboard(browser: Any, server: QueryServer) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(server.url + "/?q=blood+pressure+target")  # the URL alone runs the search
    WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#results .hit"))
    browser.find_element(By.TAG_NAME, "body").click()
    ActionChains(browser).send_keys("j").perform()
    focused = browser.switch_to.active_element
    assert focused.get_attribute("class") == "hit-link"
    ActionChains(browser).send_keys("/").perform()
    assert browser.switch_to.active_element.get_attribute("id") == "q"
    assert json.loads(browser.find_element(By.CSS_SELECTOR, ".hit img").get_attribute("data-bboxes"))


def test_without_javascript_a_search_link_and_the_form_show_the_hits(browser: Any, server: QueryServer) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})  # the page's scripts never run
    try:
        browser.get(
            server.url + "/?q=blood+pressure+target+for+adults+57-59+y&type=table_row&k=3"
        )  # a link to a search
        assert browser.find_element(By.TAG_NAME, "html").get_attribute("data-enhanced") is None
        assert browser.find_element(By.ID, "status").text == "3 hits"
        hits = browser.find_elements(By.CSS_SELECTOR, "#results .hit")
        assert len(hits) == 3 and {h.find_element(By.CSS_SELECTOR, ".badge.type").text for h in hits} == {"table_row"}
        assert "Adults 57-59 y" in hits[0].find_element(By.CSS_SELECTOR, ".text").text
        assert Select(browser.find_element(By.ID, "type")).first_selected_option.get_attribute("value") == "table_row"

        # the plain GET form: the browser submits it, the server answers with the hits
        Select(browser.find_element(By.ID, "type")).select_by_value("recommendation")
        browser.find_element(By.ID, "grade").send_keys("A")
        box = browser.find_element(By.ID, "q")
        box.clear()
        box.send_keys("blood pressure")
        browser.find_element(By.CSS_SELECTOR, "#search button[type=submit]").click()
        WebDriverWait(browser, WAIT).until(lambda d: "type=recommendation" in d.current_url)
        assert "grade=A" in browser.current_url and "q=blood+pressure" in browser.current_url
        hits = browser.find_elements(By.CSS_SELECTOR, "#results .hit")
        assert hits and all(h.find_element(By.CSS_SELECTOR, ".badge.type").text == "recommendation" for h in hits)
        assert all("A" in h.find_element(By.CSS_SELECTOR, ".badge.grade").text.split() for h in hits)
        assert browser.find_element(By.TAG_NAME, "html").get_attribute("data-enhanced") is None
        # the pictures the server linked, each outline on its bbox (measured by the test's own script)
        assert _assert_outlines_on_bboxes(browser, hits[0]) == 1

        # a misspelt filter in a link: the typed error, in words, in the page
        browser.get(server.url + "/?q=blood+pressure&type=tabel_row")
        line = browser.find_element(By.ID, "status")
        assert line.text.startswith("UnknownFilterError filter.unit_type: unknown unit type 'tabel_row'")
        assert "error" in line.get_attribute("class").split() and not browser.find_elements(
            By.CSS_SELECTOR, "#results .hit"
        )
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
