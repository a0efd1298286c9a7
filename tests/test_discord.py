"""The Discord bot with the real discord.py 2.7 client: interactions built from raw payloads and fed to the
client's own connection state (as discord.py's suite does), HTTP answered by a fake Discord API on loopback."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import discord
import pytest
from sqlalchemy import select

from bot.adapters.discord.bot import TraceBot
from bot.adapters.discord.settings import DiscordSettings
from bot.drills.engine import DrillEngine
from bot.drills.service import TeamService
from bot.store.db import Database
from bot.store.models import Attempt, Drill

from .fakes.discord_api import APP_ID, FakeDiscordAPI
from .helpers import Clock

GUILD, CHANNEL = "1", "500"
MANAGE_GUILD = str(1 << 5)
GOOD = "Rank 2 is a straggler; the others wait in the all-reduce. Check DCGM clocks. Fix the node cooling."
_ids = itertools.count(70_000)


def member(user_id: str, permissions: str = "0") -> dict[str, Any]:
    return {"user": {"id": user_id, "username": f"user{user_id}", "discriminator": "0",
                     "global_name": f"User {user_id}", "avatar": None},
            "roles": [], "joined_at": datetime.now(UTC).isoformat(), "deaf": False, "mute": False,
            "permissions": permissions, "flags": 0}


def interaction(kind: int, data: dict[str, Any], user: str = "42", permissions: str = "0",
                message: dict[str, Any] | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "id": str(next(_ids)), "application_id": APP_ID, "type": kind, "token": f"tok{next(_ids)}", "version": 1,
        "guild_id": GUILD, "channel_id": CHANNEL,
        "channel": {"id": CHANNEL, "type": 0, "guild_id": GUILD, "name": "perf", "position": 0,
                    "permission_overwrites": [], "nsfw": False, "parent_id": None},
        "member": member(user, permissions), "data": data, "app_permissions": "0", "locale": "en-US",
        "guild_locale": "en-US", "entitlements": [], "authorizing_integration_owners": {}, "context": 0,
        "attachment_size_limit": 10 * 2**20}
    if message is not None:
        payload["message"] = message
    return payload


def command(name: str, **options: str) -> dict[str, Any]:
    return {"id": "777", "name": name, "type": 1, "guild_id": GUILD,
            "options": [{"name": k, "type": 3, "value": v} for k, v in options.items()]}


def message_payload(message_id: str, drill_id: int) -> dict[str, Any]:
    """The drill message as Discord sends it with a component interaction: its button included."""
    button = {"type": 2, "style": 1, "label": "Submit diagnosis", "custom_id": f"tracedrill:submit:{drill_id}"}
    return {"components": [{"type": 1, "components": [button]}], "id": message_id, "channel_id": CHANNEL,
            "type": 0, "content": "", "author": {
        "id": "900", "username": "tracedrill", "discriminator": "0", "avatar": None, "bot": True},
        "attachments": [], "embeds": [], "mentions": [], "mention_roles": [], "pinned": False,
        "mention_everyone": False, "tts": False, "timestamp": datetime.now(UTC).isoformat(),
        "edited_timestamp": None, "flags": 0}


class Harness:
    def __init__(self, db: Database, api: FakeDiscordAPI, clock: Clock) -> None:
        self.db, self.api, self.clock = db, api, clock
        self.engine = DrillEngine(db, {}, clock=clock)
        self.bot = self.new_bot()

    def new_bot(self) -> TraceBot:
        bot = TraceBot(self.engine, TeamService(self.engine), DiscordSettings(token="t", guild_ids=[int(GUILD)]))
        self.engine.chats["discord"] = bot.chat
        return bot

    def send(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.bot.client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
        return payload


@pytest.fixture
async def discord_env(database: Database, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Harness]:
    api = FakeDiscordAPI()
    base = await api.start()
    monkeypatch.setattr(discord.http.Route, "BASE", base)
    h = Harness(database, api, Clock(datetime.now(UTC)))
    await h.bot.client.login("test-token")
    try:
        yield h
    finally:
        await h.bot.client.close()
        await api.stop()


async def _posted_drill(h: Harness) -> tuple[int, str]:
    post = (await h.api.wait_for("POST", f"/channels/{CHANNEL}/messages"))[0]
    custom_id = post.json["components"][0]["components"][0]["custom_id"]  # type: ignore[index]
    for _ in range(200):  # the engine stores the message id just after the post returns
        with h.db.session() as s:
            d = s.scalars(select(Drill)).one()
            if d.message_ref:
                return int(custom_id.rsplit(":", 1)[1]), str(d.message_ref)
        await asyncio.sleep(0.02)
    raise AssertionError("the drill's message id was never stored")


async def test_trace_straggler_to_thread_reveal_and_leaderboard(discord_env: Harness) -> None:
    h = discord_env
    cmd = h.send(interaction(2, command("trace", signature="straggler")))
    callback = (await h.api.wait_for("POST", f"/interactions/{cmd['id']}/"))[0]
    assert callback.json["type"] == 5, "deferred at once"  # type: ignore[index]
    post = (await h.api.wait_for("POST", f"/channels/{CHANNEL}/messages"))[0]
    assert post.files == ["trace.png"]
    embed = post.json["embeds"][0]  # type: ignore[index]
    assert embed["image"]["url"] == "attachment://trace.png"
    deadline = next(f["value"] for f in embed["fields"] if f["name"] == "Deadline")
    assert ":R>" in deadline and ":T>" in deadline
    assert "straggler" not in str(embed).lower()
    assert post.json["allowed_mentions"] == {"parse": []}  # type: ignore[index]
    drill_id, message_id = await _posted_drill(h)
    await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{cmd['token']}")
    press = h.send(interaction(3, {"custom_id": f"tracedrill:submit:{drill_id}", "component_type": 2},
                               message=message_payload(message_id, drill_id)))
    modal = (await h.api.wait_for("POST", f"/interactions/{press['id']}/"))[0].json
    assert modal["type"] == 9  # type: ignore[index]
    assert modal["data"]["custom_id"] == f"tracedrill:modal:{drill_id}"  # type: ignore[index]
    submit = h.send(interaction(5, {"custom_id": f"tracedrill:modal:{drill_id}", "components": [
        {"type": 1, "components": [{"type": 4, "custom_id": "tracedrill:answer", "value": GOOD}]}]}))
    reply = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{submit['token']}"))[0].json
    assert "Recorded" in reply["content"]  # type: ignore[index]
    assert reply["flags"] & 64, "ephemeral"  # type: ignore[index]
    h.clock.advance(121)
    assert await h.engine.reveal(drill_id)
    assert not await h.engine.reveal(drill_id), "a reveal triggered twice posts once"
    assert len(h.api.of("POST", f"/messages/{message_id}/threads")) == 1
    in_thread = h.api.of("POST", f"/channels/{message_id}/messages")
    assert in_thread[0].files == ["reveal.png"]
    text = " ".join(c.json.get("content", "") for c in in_thread)  # type: ignore[union-attr]
    assert "Straggler" in text and "User 42" in text
    private = await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{submit['token']}", 2)
    assert "your grade" in private[-1].json["content"]  # type: ignore[index]
    assert private[-1].json["flags"] & 64  # type: ignore[index]
    board = h.send(interaction(2, command("trace-leaderboard", period="all")))
    text = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{board['token']}"))[0].json["content"]  # type: ignore[index]
    assert "1. User 42" in text


async def test_creating_the_reveal_thread_twice_is_harmless(discord_env: Harness) -> None:
    h = discord_env
    h.send(interaction(2, command("trace", signature="healthy")))
    drill_id, message_id = await _posted_drill(h)
    from bot.drills.ports import ChannelRef, MessageRef, RevealPost

    ref = MessageRef(ChannelRef("discord", GUILD, CHANNEL), message_id)
    post = RevealPost(drill_id, "healthy", "t", "Healthy", "text", b"\x89PNG", ())
    await h.bot.chat.post_reveal(ref, post)
    await h.bot.chat.post_reveal(ref, post)
    assert len(h.api.of("POST", f"/messages/{message_id}/threads")) == 2
    assert len([c for c in h.api.of("POST", f"/channels/{message_id}/messages") if c.files]) == 2


async def test_the_button_works_after_a_restart(discord_env: Harness) -> None:
    h = discord_env
    h.send(interaction(2, command("trace", signature="sync_stall")))
    drill_id, message_id = await _posted_drill(h)
    await h.bot.client.close()
    h.bot = h.new_bot()  # a new process: nothing in memory but the persistent dynamic item
    await h.bot.client.login("test-token")
    press = h.send(interaction(3, {"custom_id": f"tracedrill:submit:{drill_id}", "component_type": 2},
                               message=message_payload(message_id, drill_id)))
    modal = (await h.api.wait_for("POST", f"/interactions/{press['id']}/"))[0].json
    assert modal["type"] == 9  # type: ignore[index]


async def test_invalid_signature_is_rejected_server_side(discord_env: Harness) -> None:
    h = discord_env
    cmd = h.send(interaction(2, command("trace", signature="stragler")))
    reply = (await h.api.wait_for("POST", f"/interactions/{cmd['id']}/"))[0].json
    assert reply["type"] == 4  # type: ignore[index]
    assert "Unknown signature" in reply["data"]["content"]  # type: ignore[index]
    await asyncio.sleep(0.2)
    assert h.api.of("POST", f"/channels/{CHANNEL}/messages") == []


async def test_over_long_and_hostile_answers(discord_env: Harness) -> None:
    h = discord_env
    h.send(interaction(2, command("trace", signature="straggler")))
    drill_id, _ = await _posted_drill(h)

    def modal(text: str) -> dict[str, Any]:
        return h.send(interaction(5, {"custom_id": f"tracedrill:modal:{drill_id}", "components": [
            {"type": 1, "components": [{"type": 4, "custom_id": "tracedrill:answer", "value": text}]}]}))

    h.bot.chat.followups.clear()
    press = h.send(interaction(3, {"custom_id": f"tracedrill:submit:{drill_id}", "component_type": 2},
                               message=message_payload("1", drill_id)))
    await h.api.wait_for("POST", f"/interactions/{press['id']}/")
    long = modal("x" * 5000)
    reply = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{long['token']}"))[0].json
    assert "Keep it under" in reply["content"]  # type: ignore[index]
    h.send(interaction(3, {"custom_id": f"tracedrill:submit:{drill_id}", "component_type": 2},
                       message=message_payload("1", drill_id)))
    await asyncio.sleep(0.1)
    hostile = modal("@everyone <@&123> <@42> it's a straggler")
    reply = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{hostile['token']}"))[0].json
    assert reply["allowed_mentions"] == {"parse": []}  # type: ignore[index]
    with h.db.session() as s:
        assert "@everyone" in s.scalars(select(Attempt)).one().answer_text


async def test_schedule_needs_manage_server(discord_env: Harness) -> None:
    h = discord_env
    denied = h.send(interaction(2, command("trace-schedule", days="weekdays", time="09:30", timezone="UTC")))
    reply = (await h.api.wait_for("POST", f"/interactions/{denied['id']}/"))[0].json
    assert "Manage Server" in reply["data"]["content"]  # type: ignore[index]
    ok = h.send(interaction(2, command("trace-schedule", days="weekdays", time="09:30", timezone="Asia/Tokyo"),
                            permissions=MANAGE_GUILD))
    text = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{ok['token']}"))[0].json["content"]  # type: ignore[index]
    assert "09:30 Asia/Tokyo" in text


async def test_private_feedback_falls_back_to_a_dm_after_the_token_window(discord_env: Harness) -> None:
    from bot.drills.ports import ChannelRef, UserRef

    h = discord_env
    h.bot.chat.followups.clear()  # no live interaction token for this person
    await h.bot.chat.send_private(ChannelRef("discord", GUILD, CHANNEL), UserRef("discord", GUILD, "42"), "hi <@1>")
    assert h.api.of("POST", "/users/@me/channels")
    dm = [c for c in h.api.of("POST", "/messages") if not c.path.startswith(f"/channels/{CHANNEL}")]
    assert dm[-1].json["content"] == "hi <@1>"  # type: ignore[index]
    assert dm[-1].json["allowed_mentions"] == {"parse": []}  # type: ignore[index]


def test_serve_needs_a_discord_token(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from bot.cli import main

    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    result = CliRunner().invoke(main, ["serve", "--platform", "discord"],
                                env={"DATABASE_URL": f"sqlite:///{tmp_path / 's.sqlite3'}"})
    assert result.exit_code == 1
    assert "DISCORD_TOKEN" in result.output


def test_guild_ids_setting_parses_a_comma_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_GUILD_IDS", "1, 22,333")
    assert DiscordSettings().guild_ids == [1, 22, 333]


async def test_trace_analyze_with_an_attachment(discord_env: Harness, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from aiohttp import web

    from bot.analyze import bounded
    from bot.scenarios.export import export_scenario
    from bot.scenarios.registry import generate

    h = discord_env
    export_scenario(generate("alloc_stall", 2), tmp_path)
    doc = json.loads((tmp_path / "rank-0.json").read_text())
    for ev in doc["traceEvents"]:  # kernel names that try to close the code block and post a link
        if ev.get("cat") == "kernel" and "nccl" not in str(ev.get("name", "")).lower():
            ev["name"] = "pwn```\n[free gpus](https://evil.example)\n```" + str(ev["name"])
    data = json.dumps(doc).encode()
    async def serve_file(_request: web.Request) -> web.Response:
        return web.Response(body=data)

    app = web.Application()
    app.router.add_get("/a/rank-0.json", serve_file)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/a/rank-0.json"  # type: ignore[union-attr]

    def attachment(name: str, size: int) -> dict[str, Any]:
        return {"id": "555", "filename": name, "size": size, "url": url, "proxy_url": url, "content_type": None}

    try:
        too_big = h.send(interaction(2, {"id": "778", "name": "trace-analyze", "type": 1, "guild_id": GUILD,
                                         "options": [{"name": "trace", "type": 11, "value": "555"}],
                                         "resolved": {"attachments": {"555": attachment("huge.json", 10**9)}}}))
        reply = (await h.api.wait_for("POST", f"/interactions/{too_big['id']}/"))[0].json
        assert "over the 50 MB limit" in reply["data"]["content"]  # type: ignore[index]
        ok = h.send(interaction(2, {"id": "778", "name": "trace-analyze", "type": 1, "guild_id": GUILD,
                                    "options": [{"name": "trace", "type": 11, "value": "555"}],
                                    "resolved": {"attachments": {"555": attachment("rank-0.json", len(data))}}}))
        result = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{ok['token']}", seconds=20))[0]
        assert "alloc_stall" in result.json["content"]  # type: ignore[index]
        assert result.files == ["analysis.png"]
        content = result.json["content"]  # type: ignore[index]
        assert "free gpus" in content, "the hostile kernel is the top kernel: its name is shown"
        assert content.startswith("```") and content.endswith("```") and content.count("`") == 6, content
        busy_gate = bounded.Gate(running=1, waiting=0, queue_seconds=0)
        monkeypatch.setattr(bounded, "gate", busy_gate)
        with busy_gate:  # another upload is being analysed: one clear line, not a queue nobody sees
            again = h.send(interaction(2, {"id": "778", "name": "trace-analyze", "type": 1, "guild_id": GUILD,
                                           "options": [{"name": "trace", "type": 11, "value": "555"}],
                                           "resolved": {"attachments": {"555": attachment("rank-0.json",
                                                                                          len(data))}}}))
            busy = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{again['token']}", seconds=20))[0]
        assert "busy" in busy.json["content"] and "try again" in busy.json["content"]  # type: ignore[index]
    finally:
        await runner.cleanup()
