"""The drill lifecycle on SQLite and PostgreSQL: answers, revisions, late answers, exactly-once reveals,
restarts, idempotency, workspace isolation, leaderboards, archives and selection."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta

import pytest
from sqlalchemy import create_engine, func, select, text

from bot.drills.engine import Drills
from bot.drills.errors import DrillError, DrillNotFound, NotRecorded
from bot.drills.fake import FakeChat
from bot.drills.leaderboard import leaderboard
from bot.drills.policy import points
from bot.drills.selection import choose_seed, choose_signature
from bot.render.cache import RenderCache
from bot.scenarios.ids import SIGNATURE_IDS
from bot.store import groups, repo
from bot.store.boards import user_stats
from bot.store.db import Database
from bot.store.models import Attempt, DeliveryKey, Drill

from .dbs import WriteLock
from .helpers import Clock, channel, engine_for, user

GOOD = "Rank 2 is a straggler: its compute is longer and everyone waits. Check DCGM clocks; fix the node."
WEAK = "NCCL got slow"


async def test_answers_until_the_deadline_then_one_reveal(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    d = await e.start(channel(), signature="straggler", duration_seconds=120)
    assert len(chat.drills) == 1
    post = chat.drills[0][1]
    assert post.image_png[:4] == b"\x89PNG"
    assert "straggler" not in " ".join(post.context_lines).lower()
    clock.advance(30)
    first = await e.submit(d.id, user("Ana"), WEAK)
    clock.advance(30)
    revised = await e.submit(d.id, user("Ana"), GOOD)
    await e.submit(d.id, user("Bo"), WEAK)
    assert (first.status, revised.status) == ("scored", "revised")
    assert not await e.reveal(d.id), "no reveal before the deadline"
    clock.advance(61)
    late = await e.submit(d.id, user("Cy"), GOOD)
    assert late.status == "late"
    assert late.points == 0
    assert await e.reveal(d.id)
    assert not await e.reveal(d.id)
    assert len(chat.reveals) == 1
    reveal = chat.reveals[0][1]
    assert reveal.signature == "straggler"
    assert [s.user for s in reveal.scores] == ["Ana", "Bo"], "late answers are not ranked"
    assert reveal.scores[0].points == points(1.0, d.posted_at, d.deadline, d.posted_at + timedelta(seconds=60), False)
    assert {u.name for _, u, _ in chat.private} == {"Ana", "Bo", "Cy"}, "everyone gets private feedback"
    with database.session() as s:
        rows = s.scalars(select(Attempt).where(Attempt.drill_id == d.id)).all()
        assert len(rows) == 3
        ana = next(a for a in rows if not a.late and a.score == 1.0)
        assert ana.revisions == 1, "the last answer before the deadline counts"


async def test_restart_mid_drill_reveals_once_with_every_answer(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    first = engine_for(database, chat, clock)
    d = await first.start(channel(), signature="sync_stall", duration_seconds=120)
    await first.submit(d.id, user("Ana"), "cudaStreamSynchronize from loss.item(); log every N steps")
    await first.submit(d.id, user("Bo"), "cudaMalloc stalls")
    del first  # the process is gone
    clock.advance(600)
    url_db = Database(engine=database.engine)  # a new engine object on the same database, as after a restart
    second = engine_for(url_db, chat, clock, seed=2)
    assert await second.reveal_due() == [d.id]
    assert await second.reveal_due() == []
    assert len(chat.reveals) == 1
    assert {s.user for s in chat.reveals[0][1].scores} == {"Ana", "Bo"}


async def test_concurrent_reveal_triggers_post_once(database: Database) -> None:
    chat, clock = FakeChat(delay=0.01), Clock()
    e1 = engine_for(database, chat, clock)
    d = await e1.start(channel(), signature="healthy", duration_seconds=60)
    clock.advance(61)
    e2 = engine_for(Database(engine=database.engine), chat, clock)
    results = await asyncio.gather(*(eng.reveal(d.id) for eng in (e1, e2, e1, e2)))
    assert sorted(results) == [False, False, False, True]
    assert len(chat.reveals) == 1


async def test_a_failed_reveal_post_is_retried_later(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    d = await e.start(channel(), signature="healthy", duration_seconds=60)
    clock.advance(61)
    chat.fail_next = e.post_attempts  # every retry of this call fails
    with pytest.raises(ConnectionError):
        await e.reveal(d.id)
    assert await e.reveal_due() == [d.id]
    assert len(chat.reveals) == 1


async def test_the_same_answer_event_delivered_twice_is_stored_once(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    d = await e.start(channel(), signature="straggler")
    a = await e.submit(d.id, user("Ana"), GOOD, idempotency_key="evt-123")
    b = await e.submit(d.id, user("Ana"), GOOD, idempotency_key="evt-123")
    assert (a.status, b.status) == ("scored", "duplicate")
    with database.session() as s:
        assert s.scalar(select(func.count()).select_from(Attempt)) == 1
        assert s.scalar(select(func.count()).select_from(DeliveryKey)) == 1
        assert s.scalar(select(Attempt.revisions)) == 0


async def test_forged_ids_never_cross_workspaces(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    a = await e.start(channel("TA", "C1"), signature="straggler")
    b = await e.start(channel("TB", "C9"), signature="healthy")
    await e.submit(a.id, user("Ana", "TA"), GOOD)
    with pytest.raises(DrillNotFound):
        await e.submit(a.id, user("Mallory", "TB"), GOOD)  # a drill id from another workspace
    with pytest.raises(DrillNotFound):
        await e.submit(b.id + 1000, user("Mallory", "TB"), GOOD)
    with database.session() as s:
        ws_b = repo.find_workspace(s, "slack", "TB")
        ws_a = repo.find_workspace(s, "slack", "TA")
        assert ws_a is not None and ws_b is not None
        assert repo.drill(s, ws_b.id, a.id) is None
        ch_a = repo.find_channel(s, ws_a, "C1")
        assert ch_a is not None
        ids = (ws_a.id, ws_b.id, ch_a.id)
    clock.advance(10_000)
    assert not await e.reveal(a.id, workspace_id=ids[1]), "a forged workspace cannot trigger a reveal"
    assert leaderboard(database, ids[0], "channel", ids[2], "all", "UTC", clock()) == [], "not revealed yet"
    assert await e.reveal(a.id, workspace_id=ids[0])
    board_b = leaderboard(database, ids[1], "channel", ids[2], "all", "UTC", clock())
    assert board_b == [], "another workspace's channel id shows nothing"
    board_a = leaderboard(database, ids[0], "channel", ids[2], "all", "UTC", clock())
    assert [r.user for r in board_a] == ["Ana"]


async def test_a_database_error_says_resend_and_loses_nothing(database: Database, tmp_path) -> None:  # type: ignore[no-untyped-def]
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    d = await e.start(channel(), signature="straggler")
    await e.submit(d.id, user("Ana"), WEAK)
    # Another writer holds the attempts table; our writer gives up quickly: a real database error.
    lock = WriteLock(database, "attempts")
    url = database.engine.url
    args = {"timeout": 0.05} if database.is_sqlite else {"options": f"-csearch_path={lock.schema} -c lock_timeout=100"}
    fragile = Database(engine=create_engine(url, connect_args=args))
    broken = engine_for(fragile, chat, clock)
    try:
        with pytest.raises(NotRecorded, match="Please send it again"):
            await broken.submit(d.id, user("Ana"), GOOD)
    finally:
        lock.release()
        fragile.dispose()
    with database.session() as s:
        kept = s.scalars(select(Attempt)).one()
        assert kept.answer_text == WEAK, "what was stored before is intact"


async def test_leaderboard_periods_follow_the_channel_timezone(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    for day in range(10):
        d = await e.start(channel(), signature=SIGNATURE_IDS[day % 10], duration_seconds=60)
        await e.submit(d.id, user("Ana"), GOOD)
        if day % 2 == 0:
            await e.submit(d.id, user("Bo"), GOOD)
        clock.advance(24 * 3600)
    assert len(await e.reveal_due()) == 10
    with database.session() as s:
        ws = repo.find_workspace(s, "slack", "T1")
        ch = repo.find_channel(s, ws, "C1")  # type: ignore[arg-type]
        ws_id, ch_id = ws.id, ch.id  # type: ignore[union-attr]
    week = leaderboard(database, ws_id, "channel", ch_id, "week", "America/Los_Angeles", clock())
    alltime = leaderboard(database, ws_id, "channel", ch_id, "all", "UTC", clock())
    assert [r.user for r in alltime] == ["Ana", "Bo"]
    assert alltime[0].answers == 10
    assert alltime[1].answers == 5
    assert sum(r.answers for r in week) < sum(r.answers for r in alltime)


async def test_first_scheduled_drill_of_a_new_period_announces_last_periods_winners(database: Database) -> None:
    chat, clock = FakeChat(), Clock()  # Monday 2 March 2026
    e = engine_for(database, chat, clock)
    d = await e.start(channel(), signature="straggler", scheduled=True)
    await e.submit(d.id, user("Ana"), GOOD)
    clock.advance(7 * 24 * 3600)
    assert await e.reveal_due() == [d.id]
    await e.start(channel(), scheduled=True)
    assert any("Last week's winners" in t and "Ana" in t for _, t in chat.announcements)
    await e.start(channel(), scheduled=True)
    assert sum("Last week's" in t for _, t in chat.announcements) == 1, "announced once"


async def test_stats_streaks_and_confusion(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    plan = [
        ("straggler", GOOD),
        ("sync_stall", "cudaMalloc every step"),
        ("healthy", "healthy, stop here"),
        ("launch_bound", "launch overhead, cuda graphs"),
    ]
    for sig, answer in plan:
        d = await e.start(channel(), signature=sig, scheduled=True, duration_seconds=60)
        await e.submit(d.id, user("Ana"), answer)
        clock.advance(61)
        await e.reveal(d.id)
    with database.session() as s:
        ws = repo.find_workspace(s, "slack", "T1")
        u = repo.find_user(s, ws, "ana")  # type: ignore[arg-type]
        st = user_stats(s, ws.id, u.id, SIGNATURE_IDS)  # type: ignore[union-attr]
    assert st.answers == 4
    assert st.confusion["sync_stall"] == {"alloc_stall": 1}
    assert st.streak == 2, "the sync_stall miss broke the streak; two good ones since"
    assert st.best_streak == 2
    assert "sync_stall" in st.weakest


async def test_on_demand_signature_and_bad_requests(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    d = await e.start(channel(), signature="pipeline_bubbles")
    assert d.signature == "pipeline_bubbles"
    with pytest.raises(DrillError, match="Unknown signature"):
        await e.start(channel(), signature="stragler")
    with pytest.raises(DrillError, match="Duration"):
        await e.start(channel(), duration_seconds=1)


async def test_seeds_never_repeat_and_signatures_wait_three_drills(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock, seed=7)
    started = []
    for _ in range(12):
        started.append(await e.start(channel(), duration_seconds=60))
        clock.advance(3600)
    sigs = [d.signature for d in started]
    assert len({d.seed for d in started}) == len(started)
    for i in range(len(sigs)):
        assert sigs[i] not in sigs[max(0, i - 3) : i]


def test_selection_favours_weak_signatures_and_keeps_twins_in_rotation() -> None:
    rng = random.Random(3)
    accuracy = dict.fromkeys(SIGNATURE_IDS, (0.95, 10))
    accuracy["pipeline_bubbles"] = (0.1, 10)
    picks = [choose_signature(rng, [], accuracy) for _ in range(3000)]
    share = picks.count("pipeline_bubbles") / len(picks)
    assert share > 2 * (1 / 10), "the weak signature comes up more than its fair share"
    recent = [
        "straggler",
        "launch_bound",
        "input_starvation",
        "pipeline_bubbles",
        "memory_bound_kernel",
        "prefill_blocks_decode",
    ]
    rotation = [choose_signature(rng, recent, accuracy) for _ in range(2000)]
    assert rotation.count("healthy") / len(rotation) > 0.1
    assert not set(rotation) & set(recent[:3])
    assert choose_seed(rng, set(range(10))) not in set(range(10))


def test_points_policy() -> None:
    from datetime import UTC, datetime

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    end = t0 + timedelta(seconds=120)
    assert points(1.0, t0, end, t0, False) == 120
    assert points(1.0, t0, end, end, False) == 100
    assert points(0.5, t0, end, t0 + timedelta(seconds=60), False) == 60
    assert points(1.0, t0, end, end + timedelta(seconds=1), True) == 0
    assert points(0.0, t0, end, t0, False) == 0


async def test_study_groups_have_their_own_board(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    with database.session() as s:
        ws = repo.workspace(s, "slack", "T1", "", clock())
        info = groups.create(s, ws, "Interview-Prep", "ana", "Ana", clock())
        groups.join(s, ws, "interview-prep", "bo", "Bo", clock())
        with pytest.raises(groups.GroupError, match="already exists"):
            groups.create(s, ws, "interview-prep", "cy", "Cy", clock())
        with pytest.raises(groups.GroupError, match="Group names"):
            groups.create(s, ws, "no spaces allowed!", "cy", "Cy", clock())
        ws_id = ws.id
    d = await e.start(channel(), signature="straggler", group_id=info.id)
    await e.submit(d.id, user("Bo"), GOOD)
    other = await e.start(channel(), signature="healthy")
    await e.submit(other.id, user("Ana"), "healthy, stop here")
    clock.advance(10_000)
    assert len(await e.reveal_due()) == 2
    board = leaderboard(database, ws_id, "group", info.id, "all", "UTC", clock())
    assert [r.user for r in board] == ["Bo"]
    with database.session() as s:
        ws = repo.find_workspace(s, "slack", "T1")
        assert [g.members for g in groups.list_groups(s, ws)] == [2]  # type: ignore[arg-type]
        groups.leave(s, ws, "interview-prep", "bo")  # type: ignore[arg-type]
        assert [g.members for g in groups.list_groups(s, ws)] == [1]  # type: ignore[arg-type]
        with pytest.raises(groups.GroupError):
            groups.leave(s, ws, "interview-prep", "bo")  # type: ignore[arg-type]


async def test_hostile_and_huge_answers_are_stored_safely(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    d = await e.start(channel(), signature="straggler")
    hostile = "'); DROP TABLE attempts; -- <!channel> \x00 " + "x" * 100_000
    out = await e.submit(d.id, user("Robert'); DROP TABLE users;--"), hostile.replace("\x00", ""))
    assert out.status == "scored"
    with database.session() as s:
        a = s.scalars(select(Attempt)).one()
        assert len(a.answer_text) <= 20_000
        assert s.execute(text("SELECT count(*) FROM drills")).scalar() == 1
        assert s.get(Drill, d.id) is not None


def test_the_core_imports_no_chat_sdk() -> None:
    from pathlib import Path

    core = Path(Drills.__module__.replace(".", "/")).parent
    for path in (Path(__file__).parent.parent / core).glob("*.py"):
        source = path.read_text(encoding="utf-8")
        for sdk in ("slack_bolt", "slack_sdk", "discord"):
            assert f"import {sdk}" not in source and f"from {sdk}" not in source, f"{path.name} imports {sdk}"


async def test_scheduled_drills_share_the_drill_of_the_day_and_its_picture(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock, render_cache=RenderCache())  # counted here: a cache of its own
    a = await e.start(channel("T1", "C1"), signature="straggler", scheduled=True)
    b = await e.start(channel("T2", "C7"), signature="straggler", scheduled=True)
    assert a.seed == b.seed
    assert e.renders.renders == 1, "one picture drawn for both channels"
    c = await e.start(channel("T1", "C1"), signature="straggler", scheduled=True)
    assert c.seed != a.seed, "a channel never sees the same seed twice"
