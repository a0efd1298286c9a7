"""The App Home tab (stats, last answers, weakest signatures, the chart, open appeals for reviewers) and the
channel settings form that `/trace config` opens."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp

from ...drills.channel_config import ConfigChange, parse_signatures, validate
from ...drills.engine import Drills
from ...drills.errors import DrillError
from ...drills.home import Home, HomeService
from ...drills.ports import ChannelRef, UserRef
from ...drills.service import TeamService
from .blocks import escape
from .chat import SlackChat
from .grid import Enterprises
from .home import CONFIG_CALLBACK, config_modal, config_values, home_view
from .payloads import PLATFORM, team_of, user_of
from .replies import is_admin, tell

log = logging.getLogger(__name__)
HOME_BLOCKS = 100  # the most blocks a Home tab holds
MAX_CHARTS = 5000
HomeSection = Callable[[Any, UserRef], Awaitable[list[dict[str, Any]]]]


class HomeListeners:
    def __init__(self, engine: Drills, service: TeamService, chat: SlackChat, enterprises: Enterprises) -> None:
        self.engine, self.service, self.chat, self.enterprises = engine, service, chat, enterprises
        self.homes = HomeService(engine)
        self.charts: dict[tuple[str, str], str] = {}  # (user, chart digest) → uploaded file id: one upload per change
        self.appeal_section: HomeSection | None = None  # reviewers also see the open appeals

    def register(self, app: AsyncApp) -> None:
        app.event("app_home_opened")(self.home_opened)
        app.view(CONFIG_CALLBACK)(self.config_submitted)
        self.chat.publish_home = self.publish_for

    async def publish(self, client: Any, user: UserRef) -> None:
        """The App Home: stats, last answers with their feedback, weakest signatures, settings, the chart."""
        home = await self.homes.home(user)
        file_id = await self._chart(client, user, home) if home.stats is not None else None
        view = home_view(home, file_id, self.engine.answer_seconds)
        if self.appeal_section is not None:
            view["blocks"].extend((await self.appeal_section(client, user))[: HOME_BLOCKS - len(view["blocks"])])
        await client.views_publish(user_id=user.user, view=view)

    async def _chart(self, client: Any, user: UserRef, home: Home) -> str:
        """The accuracy chart's file id, uploaded again only when the figures changed."""
        digest = hashlib.sha256(repr(sorted(home.series.items())).encode()).hexdigest()[:16]
        file_id = self.charts.get((user.user, digest))
        if file_id is None:
            png = await self.homes.chart(home)
            resp = await client.files_upload_v2(
                file=png,
                filename="accuracy.png",
                title="Your accuracy",
                alt_txt="Mean score per week for each signature",
            )
            file_id = str(resp["file"]["id"])
            if len(self.charts) > MAX_CHARTS:
                self.charts.clear()
            self.charts[(user.user, digest)] = file_id
        return file_id

    async def publish_for(self, user: UserRef) -> None:
        await self.publish(await self.chat.client(user.workspace), user)

    async def home_opened(self, event: dict[str, Any], body: dict[str, Any], client: Any) -> None:
        """Slack API errors here reach the app's error handler, which logs them."""
        if event.get("tab", "home") != "home" or not event.get("user"):
            return
        team = str(body.get("team_id") or "")
        self.enterprises.note(team, body.get("enterprise_id"))
        await self.publish(client, UserRef(PLATFORM, team, str(event["user"])))

    async def open_config(self, channel: ChannelRef, user: UserRef, trigger: str, client: Any) -> str | None:
        if not await is_admin(client, user.user):
            return "Only workspace admins can change this channel's settings."
        current = await self.service.config.get(channel)
        await client.views_open(
            trigger_id=trigger, view=config_modal(channel.channel, current, self.engine.answer_seconds)
        )
        return None

    async def config_submitted(self, ack: Any, body: dict[str, Any], view: dict[str, Any], client: Any) -> None:
        try:
            change = config_change(config_values(view))
        except (DrillError, ValueError) as exc:
            await ack(response_action="errors", errors={config_block(str(exc)): clip_error(str(exc))})
            return
        if not await is_admin(client, body["user"]["id"]):
            await ack(response_action="errors", errors={"answer_mode": "Only workspace admins can change this."})
            return
        await ack()
        channel = ChannelRef(PLATFORM, team_of(body), str(view.get("private_metadata", "")))
        saved = await self.service.config.apply(channel, change)
        await tell(
            self.chat,
            client,
            channel,
            user_of(body, named=False),
            escape("Saved. " + saved.summary(self.engine.answer_seconds)),
        )


def config_change(values: dict[str, Any]) -> ConfigChange:
    """The settings form's values as a checked change; DrillError or ValueError names what is wrong."""
    seconds = values.get("answer_seconds")
    return validate(
        ConfigChange(
            answer_mode=values.get("answer_mode"),
            difficulty=values.get("difficulty"),
            answer_seconds=int(seconds) if seconds not in (None, "") else None,
            signature_mix=parse_signatures(" ".join(values.get("signatures") or [])) or None,
            all_signatures=not values.get("signatures"),
            schedule=(values.get("schedule") or "off").strip(),
        )
    )


def config_block(error: str) -> str:
    """Which field of the settings form an error belongs to."""
    lowered = error.lower()
    for needle, block in (
        ("answer time", "answer_seconds"),
        ("difficulty", "difficulty"),
        ("signature", "signatures"),
        ("answer mode", "answer_mode"),
    ):
        if needle in lowered:
            return block
    return "schedule"


def clip_error(text: str) -> str:
    return text[:150]
