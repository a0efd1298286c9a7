"""A mock interview in chat: one person's session, one round at a time. Each answer is graded and narrated,
then the next round is posted; after the last one, the summary and the model spoken answer per round."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..drills import scenarios as sc
from ..drills.errors import DrillError
from ..drills.ports import ChannelRef, MessageRef, UserRef
from ..render.cache import RenderCache
from ..store import repo
from ..store.db import Database
from ..store.prep_models import InterviewRound, InterviewSession
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
        self._locks: dict[int, asyncio.Lock] = {}  # one answer at a time per session (double clicks)

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
        sid = await asyncio.to_thread(self._create, channel, user, rounds, seed, group_id, now)
        ref = await self._post_round(channel, user, sid, plan(rounds, seed)[0], rounds, now)
        return Started(sid, rounds, ref)

    def _create(
        self, channel: ChannelRef, user: UserRef, rounds: int, seed: int, group_id: int | None, now: datetime
    ) -> int:
        with self.db.session() as s:
            ws = repo.workspace(s, channel.platform, channel.workspace, "", now)
            ch = repo.channel(s, ws, channel.channel, channel.name)
            u = repo.user(s, ws, user.user, user.name)
            open_ = s.scalars(
                select(InterviewSession).where(
                    InterviewSession.workspace_id == ws.id,
                    InterviewSession.user_id == u.id,
                    InterviewSession.finished_at.is_(None),
                )
            ).all()
            for old in open_:  # a new interview ends any unfinished one
                old.finished_at = now
            row = InterviewSession(
                workspace_id=ws.id,
                channel_id=ch.id,
                user_id=u.id,
                group_id=group_id,
                rounds=rounds,
                seed=seed,
                current=1,
                started_at=now,
                round_started_at=now,
            )
            s.add(row)
            s.flush()
            return row.id

    async def _post_round(
        self, channel: ChannelRef, user: UserRef, sid: int, spec: RoundSpec, rounds: int, now: datetime
    ) -> MessageRef:
        scenario = await asyncio.to_thread(sc.scenario, spec.signature, spec.seed, spec.difficulty)
        png = await asyncio.to_thread(sc.drill_png, self.renders, scenario, self.theme)
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
        lock = self._locks.setdefault(session_id, asyncio.Lock())
        async with lock:
            now = self.clock()
            text = (text if isinstance(text, str) else str(text))[:MAX_ANSWER_CHARS]
            row, channel = await asyncio.to_thread(self._session, session_id, user)
            spec = plan(row.rounds, row.seed)[row.current - 1]
            scenario = await asyncio.to_thread(sc.scenario, spec.signature, spec.seed, spec.difficulty)
            seconds = (now - row.round_started_at).total_seconds()
            result = await asyncio.to_thread(judge, spec, scenario, text, seconds)
            if not await asyncio.to_thread(self._store, row.id, result, now, row.rounds):
                raise DrillError("That round was already answered.")
            finished = spec.number >= row.rounds
            feedback = _round_text(result)
            chat = self.chat_for(channel.platform)
            if ref is not None:
                await chat.post_text(ref, feedback)
            if finished:
                results = await asyncio.to_thread(self._results, row.id, row.rounds, row.seed)
                summary = await asyncio.to_thread(summary_text, results)
                await chat.post_text(ref or MessageRef(channel, ""), summary)
            else:
                nxt = plan(row.rounds, row.seed)[spec.number]
                try:
                    await self._post_round(channel, user, row.id, nxt, row.rounds, now)
                except Exception as exc:  # the answer is stored; the round can be posted again
                    log.warning("posting interview %s round %s failed: %s", row.id, nxt.number, type(exc).__name__)
                    raise DrillError(
                        "Your answer is recorded, but the next round could not be posted — "
                        "`/trace interview resume` posts it again."
                    ) from exc
            return Answered(result, finished, feedback)

    async def resume(self, user: UserRef) -> Started:
        """Post the person's open interview's current round again (e.g. after a failed post); its clock restarts."""
        now = self.clock()
        sid = await asyncio.to_thread(self._open_session, user, now)
        row, channel = await asyncio.to_thread(self._session, sid, user)
        ref = await self._post_round(channel, user, sid, plan(row.rounds, row.seed)[row.current - 1], row.rounds, now)
        return Started(sid, row.rounds, ref)

    def _open_session(self, user: UserRef, now: datetime) -> int:
        with self.db.session() as s:
            ws = repo.find_workspace(s, user.platform, user.workspace)
            u = repo.find_user(s, ws, user.user) if ws else None
            row = (
                s.scalars(
                    select(InterviewSession)
                    .where(InterviewSession.user_id == u.id, InterviewSession.finished_at.is_(None))
                    .order_by(InterviewSession.id.desc())
                ).first()
                if u
                else None
            )
            if row is None:
                raise DrillError("You have no interview in progress — start one with `/trace interview`.")
            row.round_started_at = now
            return row.id

    def _session(self, sid: int, user: UserRef) -> tuple[InterviewSession, ChannelRef]:
        from ..store.models import Channel, Workspace

        with self.db.session() as s:
            ws = repo.find_workspace(s, user.platform, user.workspace)
            u = repo.find_user(s, ws, user.user) if ws else None
            row = s.get(InterviewSession, sid)
            if row is None or ws is None or row.workspace_id != ws.id:
                raise DrillError(f"No interview #{sid} here.")
            if u is None or row.user_id != u.id:
                raise DrillError("That is someone else's interview — start your own with `/trace interview`.")
            if row.finished_at is not None:
                raise DrillError(f"Interview #{sid} is over.")
            ch = s.get(Channel, row.channel_id)
            w = s.get(Workspace, row.workspace_id)
            assert ch is not None
            assert w is not None
            s.expunge(row)
            return row, ChannelRef(w.platform, w.external_id, ch.external_id, ch.name)

    def _store(self, sid: int, r: RoundResult, now: datetime, rounds: int) -> bool:
        with self.db.session() as s:
            try:
                with s.begin_nested():
                    s.add(
                        InterviewRound(
                            session_id=sid,
                            number=r.spec.number,
                            signature=r.spec.signature,
                            seed=r.spec.seed,
                            difficulty=r.spec.difficulty,
                            answer_text=r.answer,
                            score=r.grade.score,
                            narration=r.narration.score,
                            combined=r.combined,
                            seconds=r.seconds,
                            submitted_at=now,
                        )
                    )
            except IntegrityError:
                return False
            row = s.get(InterviewSession, sid)
            assert row is not None
            if r.spec.number >= rounds:
                row.finished_at = now
            else:
                row.current = r.spec.number + 1
                row.round_started_at = now
            return True

    def _results(self, sid: int, rounds: int, seed: int) -> list[RoundResult]:
        specs = plan(rounds, seed)
        with self.db.session() as s:
            stored = s.scalars(
                select(InterviewRound).where(InterviewRound.session_id == sid).order_by(InterviewRound.number)
            ).all()
            answers = [(r.number, r.answer_text, r.seconds) for r in stored]
        return [
            judge(
                specs[n - 1],
                sc.scenario(specs[n - 1].signature, specs[n - 1].seed, specs[n - 1].difficulty),
                text,
                secs,
            )
            for n, text, secs in answers
        ]

    async def invite(
        self, channel: ChannelRef, *, rounds: int = 3, group: str = "", group_id: int | None = None
    ) -> MessageRef:
        """A scheduled session: a message with a Start button; each person who presses it gets their own."""
        return await self.chat_for(channel.platform).post_invite(channel, InterviewInvite(rounds, group, group_id))


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
        s = sc.scenario(r.spec.signature, r.spec.seed, r.spec.difficulty)
        lines.append(f"Model answer, round {r.spec.number} ({r.title}): “{model_answer(s)}”")
    return "\n".join(lines)
