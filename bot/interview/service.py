"""A mock interview in chat: one person's session, one round at a time. Each answer is graded and narrated,
then the next round is posted; after the last one, the summary and the model spoken answer per round."""

from __future__ import annotations

import asyncio
import logging
import random
import weakref
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ..drills import scenarios as drill_scenarios
from ..drills.errors import DrillError
from ..drills.offloop import in_store, off_loop
from ..drills.ports import ChannelRef, MessageRef, UserRef
from ..render.cache import RenderCache
from ..store import interviews as store
from ..store.db import Database
from ..store.interviews import NewSession, RoundAnswer, SessionRefusal, SessionRefused, SessionRow, StoredAnswer
from .ports import InterviewChat, InterviewInvite, RoundPost
from .session import (
    MAX_ROUNDS,
    ROUND_SECONDS,
    SEED_RANGE,
    RoundResult,
    RoundSpec,
    judge,
    model_answer,
    plan,
    summary_lines,
)

MAX_ANSWER_CHARS = 4000
log = logging.getLogger(__name__)


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Started:
    session_id: int
    rounds: int
    message: MessageRef


@dataclass(frozen=True, slots=True)
class Answered:
    result: RoundResult
    finished: bool
    text: str  # the round's feedback, as posted in the thread


class InterviewService:
    def __init__(
        self,
        db: Database,
        chats: MutableMapping[str, InterviewChat] | None = None,
        *,
        renders: RenderCache | None = None,
        theme: str = "light",
        seconds: int = ROUND_SECONDS,
        clock: Callable[[], datetime] = utcnow,
        rng: random.Random | None = None,
    ) -> None:
        self.db = db
        self.chats: MutableMapping[str, InterviewChat] = chats if chats is not None else {}
        self.renders = renders or RenderCache()
        self.theme = theme
        self.seconds = seconds
        self.clock = clock
        self.rng = rng or random.Random()
        # One answer at a time per session (double clicks); a lock goes when nobody holds or waits for it.
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    def chat_for(self, platform: str) -> InterviewChat:
        try:
            return self.chats[platform]
        except KeyError as exc:
            raise DrillError(f"no chat adapter for platform {platform!r}") from exc

    async def start(
        self,
        channel: ChannelRef,
        user: UserRef,
        *,
        rounds: int = 3,
        group_id: int | None = None,
        seed: int | None = None,
    ) -> Started:
        if not 1 <= rounds <= MAX_ROUNDS:
            raise DrillError(f"An interview has 1 to {MAX_ROUNDS} rounds.")
        seed = self.rng.randrange(SEED_RANGE) if seed is None else seed
        now = self.clock()
        new = NewSession(rounds, seed, group_id, now)
        sid = await in_store(self.db, store.create_session, channel, user, new)
        ref = await self._post_round(channel, user, sid, plan(rounds, seed)[0], rounds, now)
        return Started(sid, rounds, ref)

    async def _post_round(
        self, channel: ChannelRef, user: UserRef, sid: int, spec: RoundSpec, rounds: int, now: datetime
    ) -> MessageRef:
        scenario = await off_loop(drill_scenarios.scenario, spec.signature, spec.seed, spec.difficulty)
        png = await off_loop(drill_scenarios.drill_png, self.renders, scenario, self.theme)
        post = RoundPost(
            sid,
            spec.number,
            rounds,
            spec.difficulty,
            user,
            scenario.context.title,
            tuple(scenario.context.lines()),
            png,
            now + timedelta(seconds=self.seconds),
        )
        return await self.chat_for(channel.platform).post_round(channel, post)

    async def answer(self, session_id: int, user: UserRef, text: str, ref: MessageRef | None = None) -> Answered:
        """Grade the current round; post its feedback in `ref`'s thread, then the next round or the summary."""
        lock = self._locks.get(session_id)
        if lock is None:
            lock = self._locks[session_id] = asyncio.Lock()
        async with lock:
            now = self.clock()
            text = (text if isinstance(text, str) else str(text))[:MAX_ANSWER_CHARS]
            row = await self._session(session_id, user)
            spec = plan(row.rounds, row.seed)[row.current - 1]
            scenario = await off_loop(drill_scenarios.scenario, spec.signature, spec.seed, spec.difficulty)
            seconds = (now - row.round_started_at).total_seconds()
            result = await off_loop(judge, spec, scenario, text, seconds)
            if not await in_store(self.db, store.store_round, row.id, _stored(result), now):
                raise DrillError("That round was already answered.")
            feedback = _round_text(result)
            finished = spec.number >= row.rounds
            await self._after_answer(row, user, feedback, ref, finished, now)
            return Answered(result, finished, feedback)

    async def _after_answer(
        self, row: SessionRow, user: UserRef, feedback: str, ref: MessageRef | None, finished: bool, now: datetime
    ) -> None:
        """The round's feedback in its thread, then the summary after the last round, or the next round."""
        channel = _channel(row)
        chat = self.chat_for(channel.platform)
        if ref is not None:
            await chat.post_text(ref, feedback)
        if finished:
            answers = await in_store(self.db, store.stored_answers, row.id)
            summary = await off_loop(_summary, answers, row.rounds, row.seed)
            await chat.post_text(ref or MessageRef(channel, ""), summary)
            return
        nxt = plan(row.rounds, row.seed)[row.current]
        try:
            await self._post_round(channel, user, row.id, nxt, row.rounds, now)
        except Exception as exc:  # the answer is stored; the round can be posted again
            log.warning("posting interview %s round %s failed: %s", row.id, nxt.number, type(exc).__name__)
            raise DrillError(
                "Your answer is recorded, but the next round could not be posted — "
                "`/trace interview resume` posts it again."
            ) from exc

    async def resume(self, user: UserRef) -> Started:
        """Post the person's open interview's current round again (e.g. after a failed post); its clock restarts."""
        now = self.clock()
        sid = await in_store(self.db, store.restart_open_session, user, now)
        if sid is None:
            raise DrillError("You have no interview in progress — start one with `/trace interview`.")
        row = await self._session(sid, user)
        spec = plan(row.rounds, row.seed)[row.current - 1]
        ref = await self._post_round(_channel(row), user, sid, spec, row.rounds, now)
        return Started(sid, row.rounds, ref)

    async def _session(self, session_id: int, user: UserRef) -> SessionRow:
        try:
            return await in_store(self.db, store.open_session, session_id, user)
        except SessionRefused as exc:
            raise DrillError(_REFUSALS[exc.refusal].format(id=session_id)) from exc

    async def invite(
        self, channel: ChannelRef, *, rounds: int = 3, group: str = "", group_id: int | None = None
    ) -> MessageRef:
        """A scheduled session: a message with a Start button; each person who presses it gets their own."""
        return await self.chat_for(channel.platform).post_invite(channel, InterviewInvite(rounds, group, group_id))


_REFUSALS = {
    SessionRefusal.NOT_HERE: "No interview #{id} here.",
    SessionRefusal.NOT_YOURS: "That is someone else's interview — start your own with `/trace interview`.",
    SessionRefusal.OVER: "Interview #{id} is over.",
}


def _channel(row: SessionRow) -> ChannelRef:
    place = row.channel
    return ChannelRef(place.platform, place.workspace, place.channel, place.name)


def _stored(r: RoundResult) -> RoundAnswer:
    s = r.spec
    return RoundAnswer(
        s.number, s.signature, s.seed, s.difficulty, r.answer, r.grade.score, r.narration.score, r.combined, r.seconds
    )


def _summary(answers: list[StoredAnswer], rounds: int, seed: int) -> str:
    """The summary of the stored rounds, judged again (the grade is a pure function of the reply). CPU work:
    called in a thread."""
    specs = plan(rounds, seed)
    results = []
    for a in answers:
        spec = specs[a.number - 1]
        scenario = drill_scenarios.scenario(spec.signature, spec.seed, spec.difficulty)
        results.append(judge(spec, scenario, a.answer, a.seconds))
    return summary_text(results)


def _round_text(r: RoundResult) -> str:
    clock = f"{int(r.seconds) // 60}:{int(r.seconds) % 60:02d}"
    head = (
        f"Round {r.spec.number} — {r.title}: grade {r.grade.score:.0%}, narration {r.narration.score:.0%}, "
        f"{clock}" + (" (over the 5-minute clock: half credit)" if r.over_time else "")
    )
    return "\n".join([head, r.grade.feedback(), *[f"• {n}" for n in r.narration.notes]])


def summary_text(results: list[RoundResult]) -> str:
    lines = ["Interview summary", *summary_lines(results), ""]
    for r in results:
        s = drill_scenarios.scenario(r.spec.signature, r.spec.seed, r.spec.difficulty)
        lines.append(f"Model answer, round {r.spec.number} ({r.title}): “{model_answer(s)}”")
    return "\n".join(lines)
