"""Game records (splendor_ai/records.py, docs/RECORDS.md): every form round-trips, random games
replay to the same end, tampering is caught with a message naming the field, files survive a
crash mid-write."""
import json
import random
import warnings

import pytest

from splendor_ai import Config, RecordError, State
from splendor_ai.records import FORMAT, GameRecord, append_record, read_records


def random_game(players: int, seed: int, max_turns: int | None = None, cap: int = 100) -> State:
    st = State.new(players, seed=seed, first_player=seed % players, config=Config(players=players, cap=cap))
    rng = random.Random(seed)
    while not st.is_over() and (max_turns is None or st.turn < max_turns):
        st.push(rng.choice(sorted(st.legal_moves, key=str)))
    return st


@pytest.fixture(scope="module")
def games():
    """One finished random game per player count, with its record."""
    out = {}
    for players in (2, 3, 4):
        st = random_game(players, 100 + players)
        out[players] = (st, GameRecord.from_state(st, 100 + players, ["random"] * players,
                                                  meta={"event": "test"}))
    return out


def tampered(record: GameRecord, **changes) -> dict:
    obj = record.to_json()
    obj.update(changes)
    return obj


# -- round trips -------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_replay_random_game(games, players):
    st, rec = games[players]
    assert rec.result == st.result() and rec.result is not None
    assert rec.first_player == (100 + players) % players
    assert len(rec.moves) == len(rec.revealed) == st.turn
    assert rec.start == State.new(players, seed=100 + players, first_player=rec.first_player).position()
    back = GameRecord.from_line(rec.to_line())
    assert back == rec
    end = back.replay(check_seed=True)
    assert end.position() == st.position()
    assert end.result() == st.result()
    assert [str(m) for m in end.move_stack] == rec.moves
    # every card that left a deck is listed once: refills and blind reserves
    revealed = [c for r in rec.revealed for c in r]
    assert len(revealed) == len(set(revealed)) == sum(len(d["cards"]) for d in State(rec.start).to_json()["decks"]) \
        - sum(len(d["cards"]) for d in st.to_json()["decks"])


def test_round_trip_every_form(games):
    st, rec = games[2]
    forms = [
        rec,
        GameRecord.from_state(st, None, ["human", "mcts(iterations=2000)"], meta={}),
        GameRecord.from_state(st, 7, ["a", "b"], annotations=[None] * len(rec.moves)),
        GameRecord.from_state(st, 2 ** 64 - 1, ["a", "b"],
                              annotations=[{"eval": 0.5, "pv": ["+wbg"]} if i % 2 else "note é"
                                           for i in range(len(rec.moves))],
                              meta={"termination": "time-out", "nested": {"x": [1, 2]}}),
        GameRecord(Config(3, cap=7), 5, 1, ["random"] * 3,
                   State.new(3, seed=5, first_player=1, config=Config(3, cap=7)).position()),
    ]
    for r in forms:
        line = r.to_line()
        assert "\n" not in line
        assert GameRecord.from_line(line) == r
        assert GameRecord.from_json(json.loads(line)) == r
        assert GameRecord.from_json(r.to_json()).to_line() == line
        assert json.loads(line)["format"] == FORMAT
    assert "annotations" not in forms[1].to_json()
    assert forms[4].replay().position() == forms[4].start


def test_from_state_in_progress():
    st = random_game(3, 11, max_turns=20)
    assert not st.is_over()
    rec = GameRecord.from_state(st, 11, ["random", "human", "random"],
                                meta={"termination": "illegal move by seat 1"})
    assert rec.result is None and rec.to_json()["result"] is None
    assert len(rec.moves) == 20
    assert rec.meta["termination"] == "illegal move by seat 1" and "date" in rec.meta and "version" in rec.meta
    back = GameRecord.from_line(rec.to_line())
    assert back == rec
    assert back.replay().position() == st.position()
    # an explicit start must be where the stack starts
    explicit = GameRecord.from_state(st, 11, ["random", "human", "random"], start=rec.start, meta=rec.meta)
    assert explicit == rec
    with pytest.raises(RecordError, match="start"):
        GameRecord.from_state(st, 11, ["random"] * 3, start=State.new(3, seed=12).position())


def test_from_state_of_a_state_started_mid_game():
    mid = random_game(2, 5, max_turns=10)
    st = State(mid.position())
    rng = random.Random(1)
    for _ in range(6):
        st.push(rng.choice(sorted(st.legal_moves, key=str)))
    rec = GameRecord.from_state(st, None, ["x", "y"])
    assert rec.start == mid.position() and len(rec.moves) == 6
    assert rec.replay() == st


# -- tampering ---------------------------------------------------------------------------------------

def check_raises(obj: dict, pattern: str, replay: bool = True):
    with pytest.raises(RecordError, match=pattern):
        rec = GameRecord.from_line(json.dumps(obj))
        if replay:
            rec.replay()


def test_tampered_move(games):
    st, rec = games[2]
    legal_here = State(rec.start)
    for m in rec.moves[:5]:
        legal_here.push(m)
    illegal = next(f"b{c}" for c in range(90) if f"b{c}" not in legal_here.legal_moves)
    moves = list(rec.moves)
    moves[5] = illegal
    check_raises(tampered(rec, moves=moves), r"moves\[5\]: illegal move")
    moves[5] = "+xyz"
    check_raises(tampered(rec, moves=moves), r"moves\[5\]:", replay=False)
    # a legal but different move: the game diverges and something later no longer fits
    moves = list(rec.moves)
    moves[0] = next(str(m) for m in State(rec.start).legal_moves if str(m) != rec.moves[0])
    check_raises(tampered(rec, moves=moves), r"(moves|revealed)\[\d+\]|result")


def test_non_canonical_move(games):
    _, rec = games[2]
    moves = list(rec.moves)
    moves[0] = " " + moves[0]
    check_raises(tampered(rec, moves=moves), r"moves\[0\]: .* is not in canonical notation", replay=False)


def test_missing_noble_is_not_canonical():
    # find a move where a single noble visits and drop the noble
    for seed in range(40):
        st = random_game(2, seed)
        rec = GameRecord.from_state(st, seed, ["r", "r"])
        for i, m in enumerate(rec.moves):
            if "/n" in m:
                moves = list(rec.moves)
                moves[i] = m.split("/n")[0]
                check_raises(tampered(rec, moves=moves), rf"moves\[{i}\]: .*(not canonical here|noble)")
                return
    pytest.fail("no noble visit in 40 random games")


def test_tampered_revealed(games):
    _, rec = games[3]
    i = next(i for i, r in enumerate(rec.revealed) if r)
    revealed = [list(r) for r in rec.revealed]
    revealed[i] = [(revealed[i][0] + 1) % 40]
    check_raises(tampered(rec, revealed=revealed), rf"revealed\[{i}\]: the record says")
    revealed = [list(r) for r in rec.revealed]
    j = next(j for j, r in enumerate(rec.revealed) if not r)
    revealed[j] = [0]
    check_raises(tampered(rec, revealed=revealed), rf"revealed\[{j}\]: the record says \[0\]")
    check_raises(tampered(rec, revealed=rec.to_json()["revealed"][:-1]), r"revealed: .* entries for", replay=False)
    revealed = [list(r) for r in rec.revealed]
    revealed[2] = [90]
    check_raises(tampered(rec, revealed=revealed), r"revealed\[2\]: expected a list of card ids", replay=False)


def test_tampered_result(games):
    st, rec = games[4]
    res = rec.result.to_json()
    wrong = dict(res, winners=[(res["winners"][0] + 1) % 4])
    check_raises(tampered(rec, result=wrong), r"result: the record says .* but the replay gives")
    check_raises(tampered(rec, result=None), r"result: the record says null .* but the game ended")
    check_raises(tampered(rec, result=dict(res, reason="time")), r"result.reason", replay=False)
    check_raises(tampered(rec, result=dict(res, points=[1, 2])), r"result.points", replay=False)
    short = tampered(rec, moves=rec.moves[:-3], revealed=rec.to_json()["revealed"][:-3])
    check_raises(short, r"result: the record gives a result \(points\) but the game is not over")
    extra = tampered(rec, moves=rec.moves + ["pass"], revealed=rec.to_json()["revealed"] + [[]])
    check_raises(extra, rf"moves\[{len(rec.moves)}\]: 'pass' is played after the game ended")


def test_bad_format_and_fields(games):
    _, rec = games[2]
    check_raises(tampered(rec, format="splendor-record/2"), r"format: expected 'splendor-record/1', got 'splendor-record/2'")
    for key in ("format", "config", "seed", "first_player", "players", "start", "moves", "revealed", "result"):
        obj = rec.to_json()
        del obj[key]
        check_raises(obj, f"missing field '{key}'", replay=False)
    obj = rec.to_json()
    del obj["meta"]
    assert GameRecord.from_json(obj).meta == {}
    check_raises(tampered(rec, extra=1), r"unknown field 'extra'", replay=False)
    check_raises(tampered(rec, config={"players": 5}), r"config:", replay=False)
    check_raises(tampered(rec, config={"players": 3, "cap": 100, "modules": []}), r"players: 2 player specs", replay=False)
    check_raises(tampered(rec, players=["a", "b", "c"]), r"players: 3 player specs for a 2-player game", replay=False)
    check_raises(tampered(rec, players=["a", 1]), r"players: expected a list", replay=False)
    check_raises(tampered(rec, first_player=1 - rec.first_player), r"first_player: the record says seat", replay=False)
    check_raises(tampered(rec, seed=-1), r"seed:", replay=False)
    check_raises(tampered(rec, seed="7"), r"seed:", replay=False)
    check_raises(tampered(rec, start=rec.start.replace("SPN1", "SPN2")), r"start:", replay=False)
    check_raises(tampered(rec, start=State.new(2, seed=1).view(0).position()), r"start:", replay=False)
    check_raises(tampered(rec, annotations=[None]), r"annotations: 1 entries for", replay=False)
    check_raises(tampered(rec, meta=[1]), r"meta:", replay=False)
    with pytest.raises(RecordError, match="seed: dealing seed"):
        GameRecord.from_json(tampered(rec, seed=rec.seed + 1)).replay(check_seed=True)
    GameRecord.from_json(tampered(rec, seed=rec.seed + 1)).replay()  # the start is authoritative


def test_broken_json():
    with pytest.raises(RecordError, match="broken JSON"):
        GameRecord.from_line('{"format": "splendor-record/1", "config": {')
    with pytest.raises(RecordError, match="must be a JSON object"):
        GameRecord.from_line("[1, 2]")


# -- files ---------------------------------------------------------------------------------------------

def test_append_and_read(tmp_path, games):
    path = tmp_path / "games.jsonl"
    recs = [games[n][1] for n in (2, 3, 4)]
    for r in recs:
        append_record(path, r)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(read_records(path)) == recs
    assert path.read_text().count("\n") == 3


def test_truncated_last_line_is_skipped(tmp_path, games):
    path = tmp_path / "games.jsonl"
    recs = [games[n][1] for n in (2, 3)]
    for r in recs:
        append_record(path, r)
    line = games[4][1].to_line()
    with open(path, "a") as f:
        f.write("\n" + line[: len(line) // 2])  # a blank line, then a crash mid-write on line 4
    with pytest.warns(UserWarning, match=r"line 4: skipping the corrupt last line \(no newline"):
        assert list(read_records(path)) == recs
    # appending again cuts the torn line off first, so the file stays readable
    with pytest.warns(UserWarning, match="cutting a torn last line"):
        append_record(path, games[4][1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(read_records(path)) == recs + [games[4][1]]


def test_corrupt_line_in_the_middle_raises(tmp_path, games):
    path = tmp_path / "games.jsonl"
    lines = [games[n][1].to_line() for n in (2, 3, 4)]
    lines[1] = lines[1][:-40]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordError, match=r"line 2: broken JSON"):
        list(read_records(path))
    obj = json.loads(lines[0])
    obj["format"] = "splendor-record/0"
    path.write_text(json.dumps(obj) + "\n" + lines[2] + "\n")
    with pytest.raises(RecordError, match=r"line 1: format"):
        list(read_records(path))
    # a complete last line that is JSON but not a record of this version: its real cause, not a torn write
    path.write_text(lines[0] + "\n" + json.dumps(obj) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RecordError, match=r"^line 2: format: expected 'splendor-record/1', got 'splendor-record/0'"):
            list(read_records(path))


def test_a_one_record_file_of_another_version_says_so(tmp_path, games):
    """Not "skipping the corrupt last line": the file is whole, its version is not ours."""
    obj = json.loads(games[2][1].to_line())
    obj["format"] = "splendor-record/2"
    path = tmp_path / "one.jsonl"
    for ending in ("\n", ""):
        path.write_text(json.dumps(obj) + ending)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(RecordError, match=r"^line 1: format: expected 'splendor-record/1', got "
                                                  r"'splendor-record/2'"):
                list(read_records(path))


def test_a_corrupt_last_line_with_its_newline_is_cut_before_appending(tmp_path, games):
    """A last line that is not JSON but ends in a newline is skipped by readers; the next append
    cuts it (keeping a copy), so it never ends up between good lines where readers refuse it."""
    path = tmp_path / "games.jsonl"
    append_record(path, games[2][1])
    garbage = games[3][1].to_line()[:50] + "\n"
    with open(path, "a") as f:
        f.write(garbage)
    with pytest.warns(UserWarning, match=r"line 2: skipping the corrupt last line: broken JSON"):
        assert list(read_records(path)) == [games[2][1]]
    with pytest.warns(UserWarning, match=r"cutting a corrupt last line \(not JSON\).*kept in .*games.jsonl.corrupt"):
        append_record(path, games[4][1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(read_records(path)) == [games[2][1], games[4][1]]
    assert (tmp_path / "games.jsonl.corrupt").read_text() == garbage


def test_empty_file(tmp_path):
    path = tmp_path / "none.jsonl"
    path.write_text("")
    assert list(read_records(path)) == []


def test_files_that_are_not_records(tmp_path, games):
    """A binary file, text that is not UTF-8, a line too long to be a record: RecordError naming
    the line, never a UnicodeDecodeError or a read of the whole line into memory."""
    from splendor_ai.records import MAX_LINE_BYTES
    good = games[2][1].to_line().encode() + b"\n"
    cases = {"binary": bytes(range(256)) * 8 + b"\n" + good,
             "latin1": '{"meta": "Café"}\n'.encode("latin-1") + good,
             "long": b"[" * (MAX_LINE_BYTES + 10) + b"\n" + good,
             "deep": b"[" * 100_000 + b"\n" + good,
             "huge int": b'{"seed": ' + b"9" * 5000 + b"}\n" + good}
    for name, data in cases.items():
        path = tmp_path / f"{name.replace(' ', '_')}.jsonl"
        path.write_bytes(data)
        with pytest.raises(RecordError, match=r"^line 1: ") as e:
            list(read_records(path))
        assert len(str(e.value)) < 200, name
    (tmp_path / "last.jsonl").write_bytes(good + "Café\n".encode("latin-1"))
    with pytest.warns(UserWarning, match=r"line 2: skipping the corrupt last line: not UTF-8"):
        assert len(list(read_records(tmp_path / "last.jsonl"))) == 1


def test_strict_reading_reports_the_real_cause_of_a_bad_last_line(tmp_path, games):
    obj = games[2][1].to_json()
    obj["format"] = "splendor-record/9"
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(obj) + "\n")
    with pytest.raises(RecordError, match=r"line 1: format: expected 'splendor-record/1'"):
        list(read_records(path, strict=True))


def test_save_record_is_atomic_and_never_clobbers(tmp_path, games):
    from splendor_ai.records import save_record
    path = tmp_path / "game.jsonl"
    path.write_text("a file that must survive\n")
    with pytest.raises(FileExistsError):
        save_record(path, games[2][1])
    assert path.read_text() == "a file that must survive\n"
    save_record(path, games[3][1], overwrite=True)
    assert list(read_records(path)) == [games[3][1]]
    fresh = tmp_path / "new.jsonl"
    save_record(fresh, games[4][1])
    assert list(read_records(fresh)) == [games[4][1]]
    with pytest.raises(IsADirectoryError):
        save_record(tmp_path, games[4][1], overwrite=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.jsonl", "new.jsonl"]   # no temporary file left
