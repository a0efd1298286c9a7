"""What the scheduler asks of the drill core besides starting and revealing: the schedules to keep as cron jobs,
where a scheduled drill posts, the drills still open, and the periodic purge of delivery keys."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..store import attempts, channels
from ..store import drills as drill_store
from ..store.channels import ChannelSchedule, GroupSchedule
from ..store.db import Database

__all__ = ["ChannelSchedule", "DrillCalendar", "GroupSchedule", "ScheduledPost"]
from .offloop import in_store
from .ports import ChannelRef

DELIVERY_KEY_TTL = timedelta(days=2)


@dataclass(frozen=True, slots=True)
class ScheduledPost:
    """Where a scheduled drill posts; `skip_dates` (ISO dates in the channel's timezone) post nothing."""

    channel: ChannelRef
    timezone: str
    enabled: bool
    skip_dates: tuple[str, ...]
    channel_schedule: ChannelSchedule | None
    group_schedule: GroupSchedule | None

    def skipped(self, today: str) -> bool:
        return not self.enabled or today in self.skip_dates


def _post_of(found: channels.ScheduledChannel | None) -> ScheduledPost | None:
    if found is None:
        return None
    row = found.channel
    ref = ChannelRef(row.platform, row.workspace, row.external_id, row.name)
    return ScheduledPost(
        ref, row.timezone, found.enabled, found.skip_dates, found.channel_schedule, found.group_schedule
    )


class DrillCalendar:
    def __init__(self, db: Database, clock: Callable[[], datetime]) -> None:
        self.db = db
        self.clock = clock

    async def schedules(self) -> tuple[list[ChannelSchedule], list[GroupSchedule]]:
        return await in_store(self.db, channels.schedules)

    async def channel(self, channel_id: int) -> ScheduledPost | None:
        return _post_of(await in_store(self.db, channels.scheduled_channel, channel_id))

    async def group(self, group_id: int) -> ScheduledPost | None:
        return _post_of(await in_store(self.db, channels.scheduled_group, group_id))

    async def pending(self) -> list[tuple[int, datetime]]:
        """(drill id, deadline) of every drill still open."""
        return await in_store(self.db, drill_store.pending, self.clock())

    async def purge_delivery_keys(self) -> int:
        return await in_store(self.db, attempts.purge_delivery_keys, self.clock() - DELIVERY_KEY_TTL)
