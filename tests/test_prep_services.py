"""Math and interview services on both databases: points, lateness, exactly-once reveals and answers under
concurrency, failure paths, schedules as scheduler jobs, and the command parser."""

from __future__ import annotations

import asyncio
import random

import pytest
from sqlalchemy import func, select

from bot.drills.errors import DrillError
from bot.drills.fake import FakeChat
from bot.interview import model_answer, plan, scenario_for
from bot.prep.commands import parse_prep
from bot.prep.fake import FakePrepChat
from bot.prep.root import PrepServices, build_prep
from bot.prep.schedules import set_schedule
from bot.schedule import jobs, prep_jobs
from bot.schedule.scheduler import DrillScheduler
from bot.store import repo
from bot.store.db import Database
from bot.store.models import StudyGroup
from bot.store.prep_models import InterviewRound, MathAnswer, MathQuestion

from .helpers import Clock, channel, engine_for, user


def services(db: Database, clock: Clock) -> tuple[PrepServices, FakePrepChat]:
    engine = engine_for(db, FakeChat(), clock)
    prep = build_prep(engine)
    prep.math.rng = random.Random(3)
    chat = FakePrepChat()
    prep.math.chats["slack"] = chat
    prep.interview.chats["slack"] = chat
    return prep, chat


async def test_points_lateness_duplicates_and_unreadable_answers(database: Database) -> None:
    clock = Clock()
    prep, chat = services(database, clock)
    started = await prep.math.start(channel(), kind="bubble")
    ((_, post),) = chat.questions
    q = post.question
    assert (started.kind, post.deadline - post.posted_at) == ("bubble", started.deadline - post.posted_at)
    unreadable = await prep.math.answer(started.id, user("ana"), "dunno")
    assert unreadable.status == "unreadable"
    clock.advance(15)
    right = await prep.math.answer(started.id, user("ana"), f"{q.answer}%")
    assert (right.status, right.correct, right.points) == ("scored", True, 125)
    assert (await prep.math.answer(started.id, user("ana"), "1")).status == "duplicate"
    wrong = await prep.math.answer(started.id, user("bo"), str(2 * q.answer))
    assert (wrong.correct, wrong.points) == (False, 0)
    clock.advance(20)
    late = await prep.math.answer(started.id, user("cy"), str(q.answer))
    assert (late.status, late.correct, late.points) == ("late", True, 0)
    assert "(p−1)/(m+p−1)" in late.text
    with pytest.raises(DrillError, match="No math question"):
        await prep.math.answer(started.id, user("ana", ws="T2"), "3")
    assert await prep.math.reveal(started.id)
    ((_, reveal),) = chat.reveals
    assert [s.user for s in reveal.scores] == ["ana", "bo"], "late answers are not on the reveal"
    board = await prep.math.board_text(channel(), "week")
    assert board.splitlines()[1:] == ["1. ana — 125 pts (1/1 right)", "2. bo — 0 pts (0/1 right)"]


async def test_concurrent_answers_and_reveals_happen_once(database: Database) -> None:
    clock = Clock()
    prep, chat = services(database, clock)
    started = await prep.math.start(channel(), kind="ridge")
    q = chat.questions[0][1].question
    outcomes = await asyncio.gather(*[prep.math.answer(started.id, user("ana"), str(q.answer)) for _ in range(6)])
    assert sorted(o.status for o in outcomes) == ["duplicate"] * 5 + ["scored"]
    assert not await prep.math.reveal(started.id), "not before the deadline"
    clock.advance(31)
    results = await asyncio.gather(*[prep.math.reveal(started.id) for _ in range(5)])
    assert sum(results) == 1 and len(chat.reveals) == 1
    with database.session() as s:
        assert s.scalar(select(func.count()).select_from(MathAnswer)) == 1


async def test_a_failed_post_leaves_nothing_and_a_failed_reveal_is_retried(database: Database) -> None:
    clock = Clock()
    prep, chat = services(database, clock)
    chat.fail_next = 1
    with pytest.raises(ConnectionError):
        await prep.math.start(channel())
    with database.session() as s:
        assert s.scalar(select(func.count()).select_from(MathQuestion)) == 0
    started = await prep.math.start(channel())
    clock.advance(31)
    chat.fail_next = 1
    with pytest.raises(ConnectionError):
        await prep.math.reveal(started.id)
    assert await prep.math.reveal_due() == [started.id]
    assert len(chat.reveals) == 1


async def test_schedules_become_jobs_and_jobs_post_questions_and_invites(database: Database) -> None:
    clock = Clock()
    prep, chat = services(database, clock)
    engine = engine_for(database, FakeChat(), clock)
    with database.session() as s:
        ws = repo.workspace(s, "slack", "T1", "", clock())
        s.add(StudyGroup(workspace_id=ws.id, name="prep", created_at=clock()))
    await set_schedule(database, channel(), "math", "mon-fri", 9, 30, "Europe/Berlin")
    await set_schedule(database, channel(ch="C2"), "interview", "tue", 17, 0, "UTC", group="prep", rounds=2)
    with pytest.raises(DrillError, match="No study group"):
        await set_schedule(database, channel(), "interview", "tue", 17, 0, "UTC", group="nope")
    overdue = await prep.math.start(channel())
    clock.advance(60)
    sched = DrillScheduler(engine, database.engine)
    prep_jobs.attach(prep, sched)
    try:
        assert await sched.become_leader()
        assert [post.question_id for _, post in chat.reveals] == [overdue.id], "the sweep revealed it"
        funcs = sorted(j.func_ref for j in sched.scheduler.get_jobs() if j.id.startswith("prep:"))
        assert funcs == ["bot.schedule.prep_jobs:interview_invite", "bot.schedule.prep_jobs:math_question"]
        math_job = next(j for j in sched.scheduler.get_jobs() if j.func_ref.endswith("math_question"))
        await prep_jobs.math_question(*math_job.args)
        with database.session() as s:
            assert s.scalars(select(MathQuestion).order_by(MathQuestion.id.desc())).first().scheduled  # type: ignore[union-attr]
        latest = chat.questions[-1][1]
        assert sched.scheduler.get_job(f"math-reveal:{latest.question_id}") is not None
        invite_job = next(j for j in sched.scheduler.get_jobs() if j.func_ref.endswith("interview_invite"))
        await prep_jobs.interview_invite(*invite_job.args)
        ((where, invite),) = chat.invites
        assert (where.channel, invite.rounds, invite.group) == ("C2", 2, "prep")
    finally:
        await sched.stop()
        jobs.unbind()
        prep_jobs.unbind()


async def test_an_interview_is_one_persons_rounds_in_order(database: Database) -> None:
    clock = Clock()
    prep, chat = services(database, clock)
    started = await prep.interview.start(channel(), user("ana"), rounds=2, seed=5)
    specs = plan(2, 5)
    assert [p.number for _, p in chat.rounds] == [1]
    assert chat.rounds[0][1].title == scenario_for(specs[0]).context.title
    with pytest.raises(DrillError, match="someone else's"):
        await prep.interview.answer(started.session_id, user("bo"), "a straggler")
    clock.advance(100)
    ref = chat.rounds[0][1]
    both = await asyncio.gather(
        prep.interview.answer(started.session_id, user("ana"), model_answer(scenario_for(specs[0])), None),
        prep.interview.answer(started.session_id, user("ana"), "double click", None),
        return_exceptions=True,
    )
    assert sum(isinstance(b, Exception) for b in both) == 0, "the second answer counts for round 2"
    assert ref.session_id == started.session_id
    assert len(chat.rounds) == 2
    with database.session() as s:
        rounds = s.scalars(select(InterviewRound).order_by(InterviewRound.number)).all()
        assert [r.number for r in rounds] == [1, 2] and rounds[1].answer_text == "double click"
    summary = chat.texts[-1][1]
    assert summary.startswith("Interview summary") and "Model answer, round 2" in summary
    with pytest.raises(DrillError, match="is over"):
        await prep.interview.answer(started.session_id, user("ana"), "more")


async def test_a_failed_round_post_keeps_the_answer_and_resume_posts_it_again(database: Database) -> None:
    clock = Clock()
    prep, chat = services(database, clock)
    started = await prep.interview.start(channel(), user("ana"), rounds=2, seed=9)
    chat.fail_next = 1
    with pytest.raises(DrillError, match="resume"):
        await prep.interview.answer(started.session_id, user("ana"), "the step is long")
    with database.session() as s:
        assert s.scalar(select(func.count()).select_from(InterviewRound)) == 1
    with pytest.raises(DrillError, match="no interview in progress"):
        await prep.interview.resume(user("bo"))
    again = await prep.interview.resume(user("ana"))
    assert again.session_id == started.session_id
    assert [p.number for _, p in chat.rounds] == [1, 2]
    done = await prep.interview.answer(started.session_id, user("ana"), "the gaps")
    assert done.finished and done.result.spec.number == 2


@pytest.mark.parametrize(
    ("text", "name", "extra"),
    [
        ("interview resume", "interview_resume", {}),
        ("math", "math", {}),
        ("math itl_floor", "math", {"kind": "itl_floor"}),
        ("MATH leaderboard month", "math_board", {"period": "month"}),
        (
            "math schedule weekdays 09:30 Europe/Berlin",
            "schedule",
            {"target": "math", "weekdays": "mon-fri", "hour": 9, "minute": 30, "timezone": "Europe/Berlin"},
        ),
        ("math schedule off", "schedule_off", {"target": "math"}),
        ("interview", "interview", {"rounds": 3}),
        ("interview 5", "interview", {"rounds": 5}),
        ("interview schedule group prep tue 17:00", "schedule", {"target": "interview", "group": "prep", "hour": 17}),
        ("interview 11", "usage", {}),
        ("math nope", "usage", {}),
        ("math schedule someday 9:30", "usage", {}),
        ("math leaderboard year", "usage", {}),
    ],
)
def test_parse_prep(text: str, name: str, extra: dict[str, object]) -> None:
    cmd = parse_prep(text)
    assert cmd.name == name
    for key, value in extra.items():
        assert getattr(cmd, key) == value
