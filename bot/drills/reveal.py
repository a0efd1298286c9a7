"""Delivering a reveal this replica has claimed: the threaded post (retried), then each person's private grade."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..grading import Grade
from ..scenarios.model import Scenario
from ..store import drills as drill_store
from ..store.db import Database
from ..store.drills import ClaimedReveal, DrillKey
from .errors import ChatUnreachable
from .offloop import in_store, off_loop
from .ports import ChannelRef, ChatPort, FeedbackPort, MessageRef, RevealPost, ScoreLine, UserRef

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RevealPoster:
    """The drill core's parts a reveal needs (bound methods, so later settings changes apply)."""

    db: Database
    chat_for: Callable[[str], ChatPort]
    scenario_for: Callable[[DrillKey], Scenario]
    draw: Callable[[Scenario], bytes]
    grade: Callable[[DrillKey, str], Awaitable[Grade]]
    retried: Callable[[str, Callable[[], Awaitable[MessageRef]]], Awaitable[MessageRef]]

    async def post(self, drill_id: int, claimed: ClaimedReveal) -> bool:
        """True once posted. A reveal the platform will never take keeps its claim (a retry would fail the same
        way, forever); any other failure releases it for the next sweep and is raised."""
        row = claimed.channel
        channel = ChannelRef(row.platform, row.workspace, row.external_id, row.name)
        try:
            scenario = await off_loop(self.scenario_for, claimed.key)
            post = RevealPost(
                drill_id,
                scenario.signature,
                scenario.context.title,
                scenario.reveal.headline,
                scenario.reveal.as_text(),
                await off_loop(self.draw, scenario),
                tuple(ScoreLine(s.user, s.score, s.points, s.named, s.hinted) for s in claimed.scores),
            )
            chat = self.chat_for(channel.platform)
            anchor = MessageRef(channel, claimed.key.message_ref or "")
            ref = await self.retried(f"reveal of drill {drill_id}", lambda: chat.post_reveal(anchor, post))
        except ChatUnreachable as exc:
            log.warning("reveal of drill %s cannot be delivered: %s", drill_id, exc)
            return False
        except BaseException:  # cancelled too (shutdown, a lost leader lock): the next sweep must retry it
            await asyncio.shield(in_store(self.db, drill_store.release_reveal, drill_id))
            raise
        await in_store(self.db, drill_store.set_reveal_ref, drill_id, ref.message)
        await self._feedback(chat, channel, ref, drill_id, claimed)
        return True

    async def _feedback(
        self, chat: ChatPort, channel: ChannelRef, ref: MessageRef, drill_id: int, claimed: ClaimedReveal
    ) -> None:
        for answer in claimed.answers:
            user = UserRef(channel.platform, channel.workspace, answer.user, answer.user_name)
            g = await self.grade(claimed.key, answer.text)
            feedback = f"Drill #{drill_id}: your grade\n{g.feedback()}"
            try:
                if isinstance(chat, FeedbackPort):  # the adapter can attach "Appeal this grade"
                    await chat.send_grade_feedback(channel, user, drill_id, feedback, thread=ref)
                else:
                    await chat.send_private(channel, user, feedback, thread=ref)
            except Exception as exc:  # one unreachable user must not stop the others' feedback
                log.warning("private feedback failed: %s", type(exc).__name__)
