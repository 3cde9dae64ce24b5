"""A page in one language (issue 34 item 4): with ``?lang=ja`` (or table.toml's ``[display] language``)
the table page, TV mode and the admin page say their sentences in Japanese, not only the names of
cards and tiles; the sentences are data (``display/lang/<lang>.json``), and the setting is checked
like every other key of table.toml.  The browser tests run in Debian's chromium.

The committed screenshot of TV mode in Japanese is made so:

    DICETABLE_WRITE_SCREENSHOTS=1 PYTHONPATH=$PWD .venv/bin/python -m pytest \
        tests/display/test_page_language.py
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from table_rig import Rig, d6
from test_display_browser import ARTIFACTS, served

from controller.config import parse_config
from display import describe
from display.app import create_app
from display.hub import Hub
from display.i18n import LANG_DIR, STATIC, catalogue

ROOT = Path(__file__).resolve().parents[2]
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff01-\uff60]")
#: sentences the English table page shows in a Dice Hunter game at ann's choice (compared lower-cased:
#: the headings are upper-cased by the style sheet)
ENGLISH = (
    "The table waits for",
    "choice from ann",
    "Scores",
    "Latest events",
    "Dice as the camera read them: tap one to fix it",
    "early game",
    "round 1/4",
    "ann's turn",
    "roll 1 of 3",
    "deck: 11 left",
    "chips left: 20",
    "Face up",
    "chips 0",
    "A new game of Dice Hunter",
    "The camera read 5 dice",
    "ann rolled",
    "The table marked its place",
    "playing",
    "Camera",
    "Admin",
)
#: the same sentences as the Japanese page says them
JAPANESE_SENTENCES = (
    "テーブルが待っているもの",
    "annの選択",
    "得点",
    "最新の出来事",
    "カメラが読んだダイス（タップして訂正）",
    "前半戦",
    "ラウンド 1/4",
    "annの手番",
    "山札：残り11",
    "ダイスハンターの新しいゲーム：ann、bob、cid",
    "カメラがダイス5個を読んだ：赤 3",
    "プレイ中",
)
#: the fix picker's sentences in English
PICKER_ENGLISH = ("It really shows:", "your name", "close", "read as")


# -- the catalogues ---------------------------------------------------------------------------


def _used_keys() -> set[str]:
    """Every catalogue key a page names: t("key") in the scripts, data-t="key" in the pages."""
    keys: set[str] = set()
    for js in STATIC.glob("*.js"):
        keys |= set(re.findall(r"""\bt\(\s*["']([\w.]+)["']""", js.read_text(encoding="utf-8")))
    for page in STATIC.glob("*.html"):
        keys |= set(re.findall(r'data-t(?:-placeholder)?="([\w.]+)"', page.read_text(encoding="utf-8")))
    return keys


def test_every_sentence_a_page_names_is_in_both_catalogues_and_the_japanese_one_is_japanese() -> None:
    en = json.loads((LANG_DIR / "en.json").read_text(encoding="utf-8"))
    ja = json.loads((LANG_DIR / "ja.json").read_text(encoding="utf-8"))
    used = _used_keys()
    assert len(used) > 100, sorted(used)  # the scan itself finds the pages' keys
    assert not used - set(en), sorted(used - set(en))
    assert not set(en) - set(ja), sorted(set(en) - set(ja))  # nothing left to the English fallback
    assert not {k for k in ja if not k.startswith(("word.", "event."))} - set(en)
    # every outcome the log can tell has its Japanese sentence
    missing = [k for k in describe.OUTCOMES if f"event.outcome.{k}" not in ja]
    assert not missing, missing
    # the Japanese catalogue says its sentences in Japanese: no English word is left in one (a few
    # names are written in Latin letters in Japanese too)
    latin = {
        k: words
        for k, v in ja.items()
        if (
            words := set(re.findall(r"[A-Za-z]{2,}", re.sub(r"\{\w+\}", "", v)))
            - {"TV", "API", "HP", "KO", "ID", "Ctrl"}
        )
    }
    assert not latin, latin


def test_a_catalogue_that_is_not_a_table_of_sentences_is_refused_by_name(tmp_path: Path) -> None:
    from display import i18n

    bad = tmp_path / "ja.json"
    bad.write_text('["not", "an object"]', encoding="utf-8")
    with pytest.raises(ValueError, match=r"ja\.json must be one JSON object of key -> text"):
        i18n._load(bad)
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match=r"ja\.json cannot be read"):
        i18n._load(bad)


def test_the_page_carries_its_languages_catalogue_and_the_tables_default_language(rig: Rig) -> None:
    client = TestClient(create_app(rig.table, Hub(), language="ja"))
    html = client.get("/").text
    assert '<html lang="ja">' in html and "テーブルが待っているもの" in html
    assert "The table waits for" not in html.split('id="catalogue">', 1)[1].split("</script>", 1)[0]
    assert '<html lang="en">' in client.get("/?lang=en").text  # ?lang= overrides the default
    assert '<html lang="ja">' in client.get("/tv?lang=xx").text  # a language it lacks: the default
    texts = [e["text"] for e in client.get("/api/events").json()["events"]]
    assert texts and all(JAPANESE.search(t) for t in texts), texts
    texts = [e["text"] for e in client.get("/api/events?lang=en").json()["events"]]
    assert texts[0].startswith("A new game of Dice Hunter"), texts
    english = TestClient(create_app(rig.table, Hub()))
    assert '<html lang="en">' in english.get("/").text
    assert '<html lang="ja">' in english.get("/?lang=ja").text
    # no sentence can end the inlined script early
    assert catalogue("ja") and "</script" not in html.split('id="catalogue">', 1)[1].split("</script>", 1)[0]


def test_the_table_toml_language_reaches_the_tables_display(tmp_path: Path) -> None:
    from controller.live import table_app

    raw = {"table": {"id": "t9", "options": {"deck": "virtual"}}, "display": {"language": "ja"}}
    rig = Rig(tmp_path, cfg=parse_config(raw))
    try:
        app, _hub = table_app(rig.table, "127.0.0.1", None)
        page = TestClient(app, base_url="http://127.0.0.1").get("/")
        assert '<html lang="ja">' in page.text, page.text
    finally:
        rig.close()


# -- the setting is checked like every other key -----------------------------------------------


def _cli(tmp_path: Path, *args: str, language: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "table.toml"
    path.write_text(
        '[table]\nid = "t"\ngame = "dice-hunter"\n[camera]\nsource = "v4l2:0"\n'
        f'[display]\nlanguage = "{language}"\n',
        encoding="utf-8",
    )
    return subprocess.run(
        [sys.executable, "-m", "controller", *args, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )


@pytest.mark.parametrize("command", [("check-config",), ("run", "--no-hold", "--config")])
def test_a_language_the_display_does_not_have_is_refused_naming_the_key(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    res = _cli(tmp_path, *command, language="fr")
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "display.language" in out and "'en' or 'ja'" in out and "'fr'" in out, out
    assert "Traceback" not in out


def test_japanese_is_a_language_check_config_passes(tmp_path: Path) -> None:
    res = _cli(tmp_path, "check-config", "--offline", language="ja")  # its v4l2:0 is not on this machine
    assert res.returncode == 0, res.stdout + res.stderr


# -- in chromium -------------------------------------------------------------------------------


def _text(page: Any) -> str:
    return str(page.locator("body").inner_text())


@pytest.mark.browser
@pytest.mark.slow
def test_the_japanese_table_page_tv_mode_and_picker_say_their_sentences_in_japanese(
    browser: Any,
    make_rig: Callable[..., Rig],
) -> None:
    from playwright.sync_api import expect

    rig = make_rig(options={"deck": "virtual"})
    rig.settle([d6(v) for v in (3, 3, 3, 5, 6)])
    with served(rig) as server:
        en = browser.new_page(viewport={"width": 1280, "height": 900})
        en.goto(server.url + "/")
        expect(en.locator("#waiting")).to_have_text("choice from ann", timeout=10_000)
        expect(en.locator("#events li").first).to_be_visible(timeout=10_000)
        shown = _text(en).lower()
        missing = [s for s in ENGLISH if s.lower() not in shown]
        assert not missing, missing  # (the list itself: the English page says every one)

        for path in ("/?lang=ja", "/tv?lang=ja"):
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            errors: list[str] = []
            page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
            page.goto(server.url + path)
            expect(page.locator("#waiting")).to_have_text("annの選択", timeout=10_000)
            expect(page.locator("#events li").first).to_contain_text("annの出目", timeout=10_000)
            expect(page.locator("#conn")).to_have_text("ライブ")
            shown = _text(page)
            # (TV mode shows the last four events and not the strip of read dice)
            tv_hides = (
                "カメラが読んだダイス（タップして訂正）",
                "ダイスハンターの新しいゲーム：ann、bob、cid",
            )
            wanted = [s for s in JAPANESE_SENTENCES if not (path.startswith("/tv") and s in tv_hides)]
            assert not [s for s in wanted if s not in shown], shown
            english = [s for s in ENGLISH if s.lower() in shown.lower()]
            assert not english, (path, english)
            assert errors == []
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"japanese{path.split('?')[0].replace('/', '-')}page.png"))
            if path.startswith("/tv") and os.environ.get("DICETABLE_WRITE_SCREENSHOTS") == "1":
                page.screenshot(path=str(ROOT / "docs" / "screenshots" / "tv-dice-hunter-ja-1920x1080.png"))

        # TV mode's largest sentence is drawn with the CJK font's glyphs, not empty boxes
        waiting = page.locator("#waiting")
        family = waiting.evaluate("e => getComputedStyle(e).fontFamily")
        assert "Noto Sans CJK JP" in family, family
        # drawn in its own font: the sentence, its kanji in the other order, and empty boxes in their place
        inks = waiting.evaluate(
            """(el) => {
                const c = document.createElement('canvas').getContext('2d');
                c.font = '60px ' + getComputedStyle(el).fontFamily;
                const ink = (t) => { c.clearRect(0, 0, 400, 90); c.fillText(t, 0, 70);
                  return Array.from(c.getImageData(0, 0, 400, 90).data).join(); };
                const text = el.textContent;
                const boxes = text.replace('の選択', '\\u{e0fff}'.repeat(3));
                return [ink(text), ink(text.replace('選択', '択選')), ink(boxes), ink(text)];
            }"""
        )
        assert inks[0] != inks[1] and inks[0] != inks[2]
        assert inks[0] == inks[3]  # (the check itself: the same text draws the same)

        # the picker of a die, tapped on the Japanese page, asks in Japanese
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(server.url + "/?lang=ja")
        expect(page.locator("button.die-pick")).to_have_count(5, timeout=10_000)
        page.locator("button.die-pick").first.click()
        dialog = page.locator("dialog#fix-die")
        expect(dialog).to_be_visible()
        expect(dialog).to_contain_text("実際の目：")
        expect(dialog).to_contain_text("閉じる")
        expect(dialog.locator("[data-read-as]")).to_contain_text("読み取り：赤 3")
        picker = str(dialog.inner_text())
        assert not [s for s in PICKER_ENGLISH if s.lower() in picker.lower()], picker
        assert dialog.locator("#fix-who").get_attribute("placeholder") == "あなたの名前"


@pytest.mark.browser
@pytest.mark.slow
def test_the_japanese_admin_page_says_its_sentences_in_japanese(
    browser: Any,
    make_rig: Callable[..., Rig],
) -> None:
    from playwright.sync_api import expect

    rig = make_rig(options={"deck": "virtual"})
    rig.settle([d6(v) for v in (3, 3, 3, 5, 6)])
    with served(rig, admin_token=None, loopback_only_admin=True) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(server.url + "/admin?lang=ja")
        expect(page.locator("#waiting")).to_have_text("annの選択", timeout=10_000)
        expect(page.locator("#expects")).to_have_text("ゲームが待っているもの：annの選択")
        expect(page.locator("#offers button").first).to_be_visible(timeout=10_000)
        shown = _text(page)
        for english in (
            "Referee",
            "Your name",
            "Start / resume",
            "Undo last input",
            "Give the game an input",
            "The game expects",
            "Readings of the latest settled frame",
            "Confirm",
        ):
            assert english.lower() not in shown.lower(), english
        for japanese in ("審判", "あなたの名前", "開始／再開", "最後の入力を取り消す", "ゲームへの入力"):
            assert japanese in shown, japanese


@pytest.mark.browser
@pytest.mark.slow
def test_what_the_table_could_not_do_is_said_in_the_pages_language(
    browser: Any,
    make_rig: Callable[..., Rig],
) -> None:
    """The table's notice (here: its reader failed on a frame) is English in the snapshot; a Japanese
    page says it from its catalogue by the notice's key."""
    from playwright.sync_api import expect
    from table_rig import FRAME

    rig = make_rig(options={"deck": "virtual"})
    rig.seen = [None]  # type: ignore[list-item]  # the reader breaks on this frame's dice
    rig.table.on_settled(FRAME, 1.0, 1.0)
    snap = rig.table.snapshot()
    assert snap["notice"].startswith("the vision reader failed on the frame at t=1.00 s")
    assert snap["notice_key"] == {"key": "notice.reader", "t": 1.0}
    with served(rig) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(server.url + "/?lang=ja")
        expect(page.locator("#notice")).to_have_text(
            "t=1.00 秒のフレームで画像認識が失敗しました。"
            "次のフレーム（投げ直し）を待つか、管理ページでスローを入力してください",
            timeout=10_000,
        )
        page.goto(server.url + "/")
        expect(page.locator("#notice")).to_contain_text("the vision reader failed on the frame at t=1.00 s")
