"""The web page in a real browser (headless Chromium driven by Selenium) and over plain HTTP: the room and a board
at phone and desktop sizes, with screenshots checked for what they must show; live updates by server-sent events;
results and standings; downloads; the director's token."""

from __future__ import annotations

import io
import json
import shutil
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from companion.analysis.engine import Engine
from companion.analysis.spectator import spectator_advice
from companion.club.broker import free_port
from companion.club.server import ClubServer
from companion.club.store import Store
from companion.club.svg import DARK, LIGHT
from companion.club.topics import ClubURL
from companion.club.web import ClubWeb, WebThread
from companion.record.jellyfish import parse_match_text
from companion.record.journal import JournalHeader
from companion.record.recorder import Recorder, format_record

from .conftest import EVENT, feed, journal_lines, listening_addresses, make_journal

TOKEN = "director-token-for-the-tests"
PHONE, DESKTOP = (390, 844), (1366, 900)
SHOTS = Path(__file__).parent / "screenshots"  # kept after the run for a person to look at


@pytest.fixture(scope="module")
def match_lines(tmp_path_factory, demo_match):
    header, observations = demo_match
    journal = tmp_path_factory.mktemp("boards") / "demo.jsonl"
    make_journal(journal, header, observations).close()
    return journal_lines(journal)


@pytest.fixture(scope="module")
def site(tmp_path_factory, match_lines):
    """Three boards: 1 has finished the demo match, 2 is in the middle of it, 3 has just begun; engine advice on."""
    store = Store(str(tmp_path_factory.mktemp("web") / "club.db"))
    server = ClubServer(store, ClubURL.parse(f"mqtt://127.0.0.1/{EVENT}"))
    feed(server, "1", match_lines)
    feed(server, "2", match_lines[:120])
    feed(server, "3", match_lines[:4])
    server.set_label("2", "Top table")
    engine = Engine()
    web = ClubWeb(server, director_token=TOKEN, advisor=lambda game: spectator_advice(engine, game))
    thread = WebThread(web, port=free_port()).start()
    yield server, thread, match_lines
    thread.stop()
    store.close()


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--force-device-scale-factor=1", "--hide-scrollbars"):
        options.add_argument(arg)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                              options=options)
    yield driver
    driver.quit()


def _open(driver, url: str, size: tuple[int, int]) -> None:
    driver.set_window_size(*size)
    # the window's outer size includes no toolbar in headless mode; make the page's own width what we asked
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.set_window_size(size[0] * 2 - inner[0], size[1] * 2 - inner[1])
    driver.get(url)
    WebDriverWait(driver, 20).until(lambda d: d.execute_script("return document.readyState") == "complete")


def _shot(driver, name: str) -> np.ndarray:
    SHOTS.mkdir(exist_ok=True)
    png = driver.get_screenshot_as_png()
    (SHOTS / f"{name}.png").write_bytes(png)
    return cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)


def _element_shot(element) -> np.ndarray:
    """What the browser drew of one element (scrolled into view first, so a card below the fold counts too)."""
    element.parent.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    return cv2.imdecode(np.frombuffer(element.screenshot_as_png, np.uint8), cv2.IMREAD_COLOR)


def _pixels_like(image: np.ndarray, colour: str, tolerance: int = 12) -> int:
    """How many pixels of an image have this colour (#rrggbb)."""
    bgr = [int(colour[i:i + 2], 16) for i in (5, 3, 1)]
    return int((np.abs(image.astype(int) - bgr).max(axis=2) <= tolerance).sum())


def _no_sideways_scroll(driver) -> None:
    width, inner = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"the page is {width} px wide in a {inner} px window"


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_room_shows_every_board_with_its_picture(site, browser, size):
    server, thread, _ = site
    _open(browser, thread.url + "/", size)
    cards = browser.find_elements(By.CSS_SELECTOR, ".card")
    assert [c.get_attribute("id") for c in cards] == ["board-1", "board-2", "board-3"]
    _no_sideways_scroll(browser)
    one, two = server.summary("1"), server.summary("2")
    assert f"{one['players'][1 - one['winner']]}" in cards[0].text and "wins" in cards[0].text
    assert "Top table" in cards[1].text and f"{two['score'][0]}–{two['score'][1]} / 7" in cards[1].text
    assert two["last_play"] and two["last_play"] in cards[1].text
    tops = {round(c.rect["y"]) for c in cards}
    _shot(browser, f"room-{size[0]}x{size[1]}")
    for card in cards:
        board = card.find_element(By.CSS_SELECTOR, "svg.board")
        rect = board.rect
        assert rect["x"] >= 0 and rect["x"] + rect["width"] <= size[0]  # all of the picture across the screen
        image = _element_shot(board)
        # the picture is drawn, with both players' checkers, not just a box
        assert _pixels_like(image, "#2f6b45") > 0.1 * rect["width"] * rect["height"]
        assert _pixels_like(image, DARK) > 200 and _pixels_like(image, LIGHT) > 200
    if size == PHONE:
        assert len(tops) == 3 and cards[0].rect["width"] > 0.8 * size[0]  # one column, full width
    else:
        assert len(tops) == 1  # side by side


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_board_shows_the_position_large_with_pips_dice_cube_plays_and_advice(site, browser, size):
    server, thread, _ = site
    _open(browser, thread.url + "/board/2", size)
    b = server.summary("2")
    _no_sideways_scroll(browser)
    text = browser.find_element(By.ID, "panel").text
    assert f"{b['pips'][0]} pips" in text and f"{b['pips'][1]} pips" in text
    assert browser.find_element(By.ID, "status").text  # whose turn it is, in words
    plays = browser.find_elements(By.CSS_SELECTOR, "#plays li")
    assert len(plays) == len(b["plays"]) and plays[0].text == b["plays"][-1]  # newest first
    advice = browser.find_element(By.ID, "advice").text
    assert "Best play" in advice or "Cube" in advice
    board = browser.find_element(By.CSS_SELECTOR, "svg.board")
    facts = browser.find_element(By.CSS_SELECTOR, ".facts")
    _shot(browser, f"board-{size[0]}x{size[1]}")
    rect = board.rect
    assert rect["width"] > 0.45 * size[0] if size == DESKTOP else rect["width"] > 0.85 * size[0]
    image = _element_shot(board)
    assert _pixels_like(image, DARK) > 1000 and _pixels_like(image, LIGHT) > 1000
    if b["dice"]:
        assert len(browser.find_elements(By.CSS_SELECTOR, "svg.board .die")) == 2
    if size == PHONE:
        assert facts.rect["y"] >= rect["y"] + rect["height"] - 1  # the facts under the board
    else:
        assert facts.rect["x"] >= rect["x"] + rect["width"] - 1  # beside it


def _data_n(driver, element_id: str) -> str | None:
    # read in one script: the element may be replaced by the next update between two WebDriver calls
    return driver.execute_script(f"const e = document.getElementById('{element_id}'); return e && e.dataset.n")


def test_the_room_and_a_board_follow_the_match_live(site, browser, match_lines):
    server, thread, _ = site
    _open(browser, thread.url + "/", DESKTOP)
    before = browser.find_element(By.ID, "board-3").get_attribute("data-n")
    feed(server, "3", match_lines[:40], start=4)
    WebDriverWait(browser, 20).until(lambda d: _data_n(d, "board-3") == "39")
    assert before == "3"
    assert server.summary("3")["last_play"] in browser.find_element(By.ID, "board-3").text
    _open(browser, thread.url + "/board/3", PHONE)
    feed(server, "3", match_lines[:45], start=40)
    WebDriverWait(browser, 20).until(lambda d: _data_n(d, "panel") == "44")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#plays li")) == len(server.summary("3")["plays"])


def test_results_and_standings(site, browser):
    server, thread, _ = site
    _open(browser, thread.url + "/results", PHONE)
    _no_sideways_scroll(browser)
    one = server.summary("1")
    winner, loser = one["players"][one["winner"]], one["players"][1 - one["winner"]]
    rows = browser.find_elements(By.CSS_SELECTOR, "#standings tr")[1:]
    assert rows[0].text.split()[1:] == [*winner.split(), "1", "0", "2"]
    assert loser in rows[1].text
    matches = browser.find_element(By.ID, "matches").text
    assert f"{winner} wins" in matches and matches.count("playing") == 2
    _shot(browser, "results-390x844")


def _get(url: str, data: dict | None = None, headers: dict | None = None) -> tuple[int, bytes]:
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    request = urllib.request.Request(url, body, headers or {})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_downloads_are_the_match(site, demo_match):
    server, thread, _ = site
    header, observations = demo_match
    board = Recorder(header)  # what the board itself would export, named by the event where the board names none
    board.replay(observations)
    record = board.record()
    named = replace(record, metadata={"Event": server.title, "EventDate": header.created[:10].replace("-", ".")}
                    | record.metadata)
    for suffix in (".mat", ".sgf"):
        status, text = _get(thread.url + f"/board/1{suffix}")
        assert status == 200 and text.decode() == format_record(named, suffix)
    assert len(parse_match_text(format_record(board.record(), ".mat")).games) > 1  # a whole match, not a stub
    assert _get(thread.url + "/board/99.mat")[0] == 404


def test_an_illegal_play_that_stood_costs_the_mat_alone_not_the_nights_archive(tmp_path, match_lines):
    """A club trial: after one accepted illegal play, /board/1.mat and the director's all.zip answered 500."""
    from companion.record.codec import observation_to_json
    from companion.referee.typed import observations_from_text

    server = ClubServer(Store(str(tmp_path / "c.db")), ClubURL.parse(f"mqtt://127.0.0.1/{EVENT}"))
    feed(server, "1", match_lines[:20])
    board = Recorder(JournalHeader(("Ann", "Bob"), 5))
    lines = [board.header.to_json()]
    for typed in ("31", "8/4 6/5!", "a"):  # Ann's illegal play, made so on the board; Bob accepts it
        for observation in observations_from_text(typed, board.referee.game,
                                                  illegal_pending=board.referee.state.pending is not None):
            events = board.observe(observation)
            lines.append({"n": len(lines), "obs": observation_to_json(observation),
                          "events": [{"text": e.text(board.header.players)} for e in events]})
    feed(server, "2", lines)
    thread = WebThread(ClubWeb(server, director_token=TOKEN, advisor=None), port=free_port()).start()
    try:
        status, text = _get(thread.url + "/board/2.mat")
        assert status == 409 and b"illegal play stood" in text and b".sgf" in text
        assert _get(thread.url + "/board/2.sgf")[0] == 200
        status, data = _get(thread.url + "/director/all.zip", headers={"Authorization": f"Bearer {TOKEN}"})
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
        assert status == 200 and f"{EVENT}-board-2.sgf" in names and f"{EVENT}-board-1.mat" in names
        assert f"{EVENT}-board-2.mat" not in names and b"board-2.mat" in archive.read("NOT-WRITTEN.txt")
        assert all((info.external_attr >> 16) & 0o444 == 0o444 for info in archive.infolist())  # readable unpacked
    finally:
        thread.stop()
        server.store.close()


def test_the_public_cannot_act_as_director(site):
    server, thread, _ = site
    before = server.summaries()
    for path, data in (("/director/label", {"board": "1", "label": "hacked"}),
                       ("/director/result", {"board": "1", "winner": "0"}),
                       ("/director/start", {"title": "hacked"})):
        assert _get(thread.url + path, data)[0] == 403
        assert _get(thread.url + path, dict(data, token="wrong-token-wrong-token"))[0] == 403
    assert _get(thread.url + "/director")[0] == 403 and _get(thread.url + "/director/all.zip")[0] == 403
    assert _get(thread.url + "/", {"x": "y"})[0] == 405  # the pages take no posts
    assert server.summaries() == before and server.title == EVENT


def test_the_director_names_boards_corrects_results_and_downloads_all(site):
    server, thread, _ = site
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert _get(thread.url + "/director/start", {"title": "Club night"}, auth)[0] == 200
    assert _get(thread.url + "/director/label", {"board": "3", "label": "Window"}, auth)[0] == 200
    assert _get(thread.url + "/director/result", {"board": "2", "winner": "1", "token": TOKEN})[0] == 200
    assert _get(thread.url + "/director/result", {"board": "2", "winner": "x", "token": TOKEN})[0] == 400
    assert _get(thread.url + "/director/label", {"board": "77", "label": "no", "token": TOKEN})[0] == 404
    status, page = _get(thread.url + "/")
    assert b"<h1 id=\"title\">Club night</h1>" in page and b"Window" in page
    status, data = _get(thread.url + "/api/boards")
    two = json.loads(data)["boards"][1]
    assert two["result"] == "1" and not two["over"]
    assert server.store.matches(EVENT)[1].result == "1"  # kept in the store, not only in memory
    status, page = _get(thread.url + f"/director?token={TOKEN}")
    assert status == 200 and b"Download all" in page
    status, data = _get(thread.url + "/director/all.zip", headers=auth)
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert status == 200 and len(names) == 6 and f"{EVENT}-board-2.sgf" in names
    assert _get(thread.url + "/director/result", {"board": "2", "winner": "", "token": TOKEN})[0] == 200


def test_a_referee_only_event_shows_no_advice_and_listens_on_localhost(tmp_path, match_lines):
    server = ClubServer(Store(str(tmp_path / "c.db")), ClubURL.parse(f"mqtt://127.0.0.1/{EVENT}"))
    feed(server, "1", match_lines[:30])
    thread = WebThread(ClubWeb(server, director_token=TOKEN, advisor=None), port=free_port()).start()
    try:
        assert listening_addresses(thread.port) == {"127.0.0.1"}
        status, page = _get(thread.url + "/board/1")
        assert status == 200 and b'id="panel"' in page and b'id="advice"' not in page
    finally:
        thread.stop()
        server.store.close()


def test_the_page_tells_the_whole_story_and_a_directors_result_ends_the_match(site):
    """A club trial: the play list showed rolls, plays and results only (no doubles, takes, new games, illegal plays
    that stood); after the director's result the card still marked a player to move."""
    server, thread, _ = site
    plays = server.summary("1")["plays"]
    assert any("doubles to 2" in p for p in plays) and any("takes" in p for p in plays)
    assert any(p.startswith("Game ") for p in plays)  # each game heads its plays
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert 'class="turn"' in ClubWeb(server, director_token=TOKEN).card(server.summary("3"))  # playing
    assert _get(thread.url + "/director/result", {"board": "3", "winner": "0"}, auth)[0] == 200
    try:
        card = ClubWeb(server, director_token=TOKEN).card(server.summary("3"))
        assert "wins (director)" in card and 'class="turn"' not in card
    finally:
        assert _get(thread.url + "/director/result", {"board": "3", "winner": ""}, auth)[0] == 200
