"""The guided learning page ``/learn`` in one language, as every other page (issue 34 item 4 for
issue 29 item 4's page): with ``?lang=ja`` or table.toml's ``[display] language = "ja"`` its
sentences are Japanese, the table's own included (a notice, a step's message, a refusal, why no die
can be taught here): the table says each in English and names it by its catalogue key
(``controller.teach.Said``), and the page says it from ``display/lang/<lang>.json``.  Real photos
(tests/controller/teach_scene.py), real table, real Chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest
from fastapi.testclient import TestClient
from test_display_browser import ARTIFACTS
from test_learn_browser import TOKEN, _table, served

from controller import teach
from display.app import create_app
from display.hub import Hub
from display.i18n import catalogue, said
from tests.controller.teach_scene import empty_table, needs_real, nudged, roll

JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff01-\uff60]")
START = {"action": "start", "owner": "ann", "colour": "green", "kind": "d20"}
#: what the English page says in a session (static and from the table), none of it on the Japanese page
ENGLISH = (
    "Teach the table a die",
    "Your name",
    "Teach a die",
    "Teaching ann's green d20",
    "Faces taught",
    "Save the set for the table",
    "Stop without saving",
    "What the camera saw",
    "Still missing",
    "Not this die",
    "The table cannot tell which face it shows",
    "not taught yet",
    "It shows 7",
    "roll 1",
    "leave one die only",
    "dice are on the table",
    "Or the face it really shows",
)


class Recorded(teach.Said):
    """`controller.teach.Said`, every sentence made kept (to check each in both languages)."""

    made: ClassVar[list[teach.Said]] = []

    def __new__(cls, text: str, key: str, **fields: Any) -> Recorded:
        out = super().__new__(cls, text, key, **fields)
        cls.made.append(out)
        return out  # type: ignore[return-value]


def _check(sentences: list[teach.Said]) -> set[str]:
    """Each sentence: the English catalogue says it word for word as the table does; the Japanese
    one says it in Japanese, every field filled.  The keys seen."""
    for s in sentences:
        assert said("en", s.key) == str(s), (s.key, str(s))
        ja = said("ja", s.key)
        assert JAPANESE.search(ja) and "{" not in ja.replace("{}", ""), (s.key, ja)
        assert ja != str(s)
    return {s.key["key"] for s in sentences}


@needs_real
def test_every_sentence_the_table_says_on_the_learn_page_has_its_words_in_both_catalogues(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(teach, "Said", Recorded)
    Recorded.made = []
    monkeypatch.setattr(teach, "N_EACH", 1)
    table = _table(tmp_path)
    errors: list[teach.Said] = []

    def refused(command: dict[str, Any]) -> None:
        with pytest.raises(teach.TeachError) as e:
            table.teach(command, "ann")
        assert e.value.said is not None and said("en", e.value.said) == str(e.value)
        errors.append(Recorded.made[-1])

    refused({"action": "save"})
    refused({"action": "fly"})
    refused({**START, "kind": "d12"})
    refused({**START, "owner": " "})
    refused({**START, "colour": ""})
    table.teach(START, "ann")
    refused(START)
    refused({"action": "answer", "roll": 1, "face": 3})
    refused({"action": "save"})  # every face missing
    table.on_settled(empty_table(), 1.0, 1.0, empty=empty_table())
    table.on_settled(roll(3, 0, also=5), 2.0, 2.0, empty=empty_table())
    for i, face in enumerate(range(1, 21)):
        table.on_settled(roll(face, i), 3.0 + i, 3.0 + i, empty=empty_table())
        n = table.teaching.rolls[-1].n
        if i == 0:
            refused({"action": "answer", "roll": n, "face": 21})
            table.teach({"action": "skip", "roll": n}, "ann")
        if i == 4:  # an answer for a roll no longer shown, or of another session
            refused({"action": "answer", "roll": n - 1, "face": face})
            refused({"action": "answer", "roll": n, "session": 999, "face": face})
        table.teach({"action": "answer", "roll": n, "face": face}, "ann")
        if i == 6:
            table.on_settled(nudged(face, i, (12, -8), 6.0), 9.5, 9.5, empty=empty_table())
        if i == 2:
            table.teach({"action": "answer", "roll": n, "face": 20}, "ann")  # 3 taught as 20, then right
            refused({"action": "save"})
            table.teach({"action": "answer", "roll": n, "face": face}, "ann")
    table.teach({"action": "save"}, "ann")
    table.teach(START, "ann")
    table.teach({"action": "cancel"}, "ann")
    keys = _check(Recorded.made)
    assert {
        "learn.err.no_session",
        "learn.err.action",
        "learn.err.kind",
        "learn.err.owner",
        "learn.err.colour",
        "learn.err.busy",
        "learn.err.roll",
        "learn.err.face",
        "learn.err.incomplete_missing",
        "learn.msg.start",
        "learn.msg.skipped",
        "learn.msg.taught",
        "learn.msg.saved_now",
        "learn.msg.cancel",
        "learn.notice.no_die",
        "learn.notice.many",
        "learn.notice.nudged_face",
        "learn.err.stale",
        "learn.err.stale_session",
    } <= keys, keys

    # the table's sentences that no step above made: their fields filled, both languages
    more = [
        teach.Said("x", "why.pip", game="dice-hunter", kinds=["d6"], numbered=["d10", "d10p", "d20"]),
        teach.Said("x", "why.no_store", file="table.toml", setting="[table] dice_set", example="dice_set"),
        teach.Said("x", "notice.frame", t=1.5, why="bad"),
        teach.Said("x", "notice.unsaved", t=1.5, why="disk full"),
        teach.Said("x", "notice.no_empty", name=teach.name_key(START)),
        teach.Said("x", "notice.no_empty_mode", name=teach.name_key(START)),
        teach.Said("x", "notice.nudged", roll=3, name=teach.name_key(START)),
        teach.Said("x", "msg.saved_later", name=teach.name_key(START), crops=80, path="p", joined=""),
        teach.Said("x", "err.other_kind", kind="d10", stored="d20", set="s", path="p"),
    ]
    for s in more:
        ja = said("ja", s.key)
        assert JAPANESE.search(ja) and "{" not in ja, (s.key, ja)
    both = ("learn.err.incomplete_both", "learn.err.incomplete_short", "learn.msg.complete")
    both += ("learn.msg.to_go",)
    short = [{"key": "learn.err.count", "face": 7, "n": 1, "each": 4}]
    for key in both:
        fields = {"kind": "d20", "missing": [1, 2], "short": short, "each": 4, "n": 3}
        fields["name"] = teach.name_key(START)
        ja = said("ja", {"key": key, **fields})
        assert JAPANESE.search(ja) and "{" not in ja, (key, ja)
    # a Japanese page says the table's words by key: the die's name in Japanese, its colour too
    assert said("ja", teach.name_key(START)) == "annの緑のd20"
    ja_keys = {k for k in catalogue("ja") if k.startswith("learn.")}
    en_keys = {k for k in catalogue("en") if k.startswith("learn.")}
    assert ja_keys == en_keys and len(en_keys) > 60


def test_the_learn_page_takes_the_tables_language_and_the_url_overrides_it(tmp_path: Path) -> None:
    table = _table(tmp_path)
    ja = TestClient(create_app(table, Hub(), admin_token=TOKEN, language="ja"))
    page = ja.get("/learn").text
    assert '<html lang="ja">' in page and "テーブルにダイスを教える" in page
    assert '<html lang="en">' in ja.get("/learn?lang=en").text
    en = TestClient(create_app(table, Hub(), admin_token=TOKEN))
    assert '<html lang="en">' in en.get("/learn").text and '<html lang="ja">' in en.get("/learn?lang=ja").text
    # a refusal carries its key beside its English words
    bad = en.post(
        "/api/admin/learn",
        headers={"X-Admin-Token": TOKEN},
        json={"who": "ann", "command": {"action": "save"}},
    )
    key = bad.json()["error_key"]
    assert bad.status_code == 400 and key == {"key": "learn.err.no_session", "action": "save"}
    assert said("ja", key) == "「save」：教えているダイスがありません。先に教え始めてください"


# -- in chromium -------------------------------------------------------------------------------


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    yield ctx
    ctx.close()


def _session(page: Any, server: Any, table: Any, path: str) -> str:
    """Teach ann's green d20 on ``path`` through two dice left on the table and two rolls; the
    page's text at the end (the view and the progress shown)."""
    from playwright.sync_api import expect

    page.goto(server.url + path)
    page.fill("#learn-token", TOKEN)
    page.click("#learn-token-ok")
    expect(page.locator("#learn-setup")).to_be_visible(timeout=10_000)
    page.fill("#learn-who", "ann")
    page.fill("#learn-owner", "ann")
    page.fill("#learn-colour", "green")
    page.select_option("#learn-kind", "d20")
    page.click("#learn-start")
    expect(page.locator("#learn-progress [data-face]")).to_have_count(20, timeout=10_000)
    table.on_settled(roll(3, 0, also=5), 1.0, 1.0, empty=empty_table())
    expect(page.locator("#learn-notice")).to_be_visible(timeout=10_000)
    table.on_settled(roll(7, 1), 2.0, 2.0, empty=empty_table())
    expect(page.locator("#learn-roll")).to_be_visible(timeout=10_000)
    expect(page.locator("#learn-notice")).to_be_hidden()
    table.on_settled(roll(9, 0, also=5), 3.0, 3.0, empty=empty_table())
    expect(page.locator("#learn-notice")).to_be_visible(timeout=10_000)
    return str(page.locator("body").inner_text())


@needs_real
@pytest.mark.browser
@pytest.mark.slow
def test_the_japanese_learn_page_says_every_sentence_in_japanese(context: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    en_table = _table(tmp_path / "en")
    with served(en_table) as server:
        shown = _session(context.new_page(), server, en_table, "/learn").lower()
        missing = [s for s in ENGLISH if s.lower() not in shown]
        assert not missing, missing  # (the list itself: the English page says every one)

    table = _table(tmp_path / "ja")
    with served(table) as server:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        shown = _session(page, server, table, "/learn?lang=ja")
        english = [s for s in ENGLISH if s.lower() in shown.lower()]
        assert not english, (english, shown)
        expect(page.locator("#learn-name")).to_have_text("annの緑のd20を教えています")
        expect(page.locator("#learn-notice")).to_have_text(
            "テーブルにダイスが2個あります。annの緑のd20だけを残して、もう一度振ってください"
        )
        expect(page.locator("#learn-roll-no")).to_have_text("1回目")
        for japanese in ("教えた目", "このセットをテーブルに保存", "カメラが見たもの", "まだない目："):
            assert japanese in shown, japanese
        # a step's message and a refusal, from the table, in Japanese
        page.click('#learn-faces button[data-face="7"]')
        expect(page.locator("#learn-msg")).to_have_text("1回目を7として教えました（残り20面）")
        # the page keeps it off and redraws it off on every settled frame: enable and click it in one
        # step, so no redraw falls between the two
        page.locator("#learn-save").evaluate("b => { b.disabled = false; b.click(); }")
        expect(page.locator("#learn-msg")).to_contain_text("保存できません：d20のセットが未完成です。")
        page.click("#learn-cancel")
        expect(page.locator("#learn-msg")).to_have_text(
            "annの緑のd20を教えるのをやめました。何も保存していません"
        )
        assert not JAPANESE.search(str(page.locator("#learn-msg").get_attribute("class")))
        assert errors == []
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "learn-ja.png"), full_page=True)
        # the table page while a die is taught says what it waits for in Japanese too
        table.teach(START, "ann")
        tpage = context.new_page()
        tpage.goto(server.url + "/?lang=ja")
        expect(tpage.locator("#waiting")).to_have_text(
            "教えるダイス：annの緑のd20を振ってください（ゲームは待機中）", timeout=10_000
        )
        texts = [e["text"] for e in httpx.get(server.url + "/api/events?limit=100&lang=ja").json()["events"]]
        assert "annがテーブルにannの緑のd20を教え始めた" in texts, texts[-6:]
        assert "annが1回目を7として教えた" in texts, texts[-6:]
