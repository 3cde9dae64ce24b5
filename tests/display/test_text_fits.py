"""Every label fits its box (issue 48 item 2): on every page, in English and in Japanese, at
1920x1080 and 1280x720, no text runs past its element (an HTML element whose scrollWidth exceeds its
clientWidth) and no name runs past its card or tile in a game's picture (an SVG text outside the
rectangle drawn for it). Japanese tile names such as "1〜5のストレート" lost their first and last
characters on the table page and the TV. Real tables (Dice Hunter with its tiles, DICETAR WARS on its
board, Die-angler with its cards), the hall and the tournament page, in Debian's chromium."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from table_rig import Rig
from test_hall_display import TABLES, StillHall
from test_tv_browser import ARTIFACTS, dicetar_game, hunter_game

from controller.tournament import Tournament
from controller.tournament_file import TournamentFile
from display.app import create_app
from display.hall_app import create_hall_app
from display.hub import Hub
from display.mqtt import Hall
from display.server import ServerThread
from display.tournament_app import TournamentView, create_tournament_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SCREENS = ((1920, 1080), (1280, 720))
LANGS = ("en", "ja")
TABLE_PAGES = ("/", "/tv", "/camera", "/admin", "/learn", "/stats")

#: every element whose own text runs past it, and every text of a picture's card or tile outside it
OVERFLOWS = """() => {
  const out = [];
  const own = (e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  for (const e of document.querySelectorAll('body *')) {
    if (e instanceof SVGElement || !e.getClientRects().length) continue;
    const st = getComputedStyle(e);
    if (st.visibility === 'hidden' || ['auto', 'scroll'].includes(st.overflowX)) continue;
    const boxy = 'td, th, button, .pill, h1, h2, h3, p, span, a, label, li, summary';
    if (!own(e) && !e.matches(boxy)) continue;
    if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
      out.push(`${e.tagName.toLowerCase()}.${e.className}: "${e.textContent.trim().slice(0, 50)}" `
        + `${e.scrollWidth} > ${e.clientWidth}`);
  }
  for (const g of document.querySelectorAll('svg g')) {
    const rect = [...g.children].find((c) => c.tagName === 'rect');
    if (!rect) continue;
    const r = rect.getBoundingClientRect();
    for (const t of g.querySelectorAll(':scope > text')) {
      const b = t.getBoundingClientRect();
      if (!t.textContent.trim() || !b.width) continue;
      if (b.left < r.left - 1 || b.right > r.right + 1)
        out.push(`svg ${g.getAttribute('class') || 'g'}: "${t.textContent}" `
          + `${b.left.toFixed(0)}..${b.right.toFixed(0)} outside `
          + `${r.left.toFixed(0)}..${r.right.toFixed(0)}`);
    }
  }
  return out;
}"""


def overflows(browser: Any, url: str, ready: str, shot_prefix: str = "") -> dict[str, list[str]]:
    """What overflows on the page at ``url`` (made ready by the selector ``ready``), per screen."""
    from playwright.sync_api import expect

    found: dict[str, list[str]] = {}
    for w, h in SCREENS:
        page = browser.new_page(viewport={"width": w, "height": h})
        page.goto(url)
        expect(page.locator(ready).first).to_be_attached(timeout=15_000)
        page.wait_for_timeout(400)  # the fetches after the first snapshot (events, names, readings)
        got = page.evaluate(OVERFLOWS)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^a-z0-9]+", "-", url.split("/", 3)[-1].lower()).strip("-") or "page"
        page.screenshot(path=str(ARTIFACTS / f"fits-{shot_prefix}-{name}-{w}x{h}.png"))
        if got:
            found[f"{url} {w}x{h}"] = got
        page.close()
    return found


GAMES: dict[str, Callable[[Callable[..., Rig]], Rig]] = {
    "dice-hunter": hunter_game,
    "dicetar-wars": dicetar_game,
    "die-angler": lambda make_rig: make_rig(
        game="die-angler", players=[("ann", "red"), ("bob", "blue")], options={"deck": "virtual"}
    ),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_no_text_runs_past_its_box_on_a_tables_pages(browser: Any, make_rig: Any, game: str) -> None:
    rig = GAMES[game](make_rig)
    hub = Hub()
    rig.table.listeners.append(hub.notify)
    found: dict[str, list[str]] = {}
    with ServerThread(create_app(rig.table, hub, admin_token=None, loopback_only_admin=True)) as server:
        for lang in LANGS:
            for path in TABLE_PAGES:
                sep = "&" if "?" in path else "?"
                ready = "body[data-connected=yes]" if path in ("/", "/tv", "/camera", "/admin") else "main"
                found |= overflows(browser, f"{server.url}{path}{sep}lang={lang}", ready, game)
    assert found == {}, found


def test_no_text_runs_past_its_box_on_the_hall_tournament_and_login_pages(
    browser: Any, make_rig: Any, tmp_path: Path
) -> None:
    found: dict[str, list[str]] = {}
    with ServerThread(create_hall_app(StillHall(TABLES), Hub())) as server:  # type: ignore[arg-type]
        for lang in LANGS:
            found |= overflows(browser, f"{server.url}/?lang={lang}", ".table-card", "hall")
    spec = TournamentFile.model_validate(
        {
            "tournament": {"name": "Kyoto Dice Open", "tables": ["table-1", "table-2"]},
            "players": [{"name": n} for n in ("ann", "bob", "cid", "dee")],
            "rounds": [{"game": "die-angler"}, {"game": "dicetar-wars"}],
        }
    )
    t = Tournament(spec, tmp_path / "t.sqlite3")
    t.start_next_round()
    try:
        with ServerThread(create_tournament_app(TournamentView(t, Hall(), Hub()))) as server:
            for lang in LANGS:
                found |= overflows(browser, f"{server.url}/?lang={lang}", "[data-match]", "tournament")
    finally:
        t.close()
    rig = make_rig()
    with ServerThread(create_app(rig.table, Hub(), admin_token="a-long-enough-admin-token-7c1e")) as server:
        for lang in LANGS:
            found |= overflows(browser, f"{server.url}/admin?lang={lang}", "body", "login")
    assert found == {}, found
