"""The Slack app with the real Bolt and slack_sdk code against a fake Slack Web API on loopback; requests
signed with Slack's real signing algorithm and sent over HTTP to the app's own aiohttp server."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest
from aiohttp import web
from slack_sdk.signature import SignatureVerifier
from sqlalchemy import func, select

from bot.adapters.slack.app import build_slack
from bot.adapters.slack.blocks import ANSWER_BLOCK, ANSWER_INPUT, MODAL_CALLBACK, SUBMIT_ACTION, escape
from bot.adapters.slack.redact import RedactSecrets
from bot.adapters.slack.settings import SlackSettings
from bot.drills.channel_config import ConfigChange
from bot.drills.commands import parse
from bot.drills.engine import Drills
from bot.drills.ports import ChannelRef
from bot.drills.service import TeamService
from bot.store.db import Database
from bot.store.models import Attempt, Drill

from .dbs import WriteLock
from .fakes.slack_api import FakeSlackAPI
from .helpers import Clock
from .memo import PICTURES

SECRET = "test-signing-secret-123"
TOKEN = "xoxb-test-token-456"
GOOD = "Rank 2 is a straggler; the others wait in the all-reduce. Check DCGM clocks. Fix the node cooling."


class Harness:
    def __init__(self, db: Database, api: FakeSlackAPI, clock: Clock) -> None:
        self.db, self.api, self.clock = db, api, clock
        settings = SlackSettings(
            bot_token=TOKEN,
            signing_secret=SECRET,
            api_url=f"{api.base}/api/",
            update_every_seconds=0.2,
            file_hosts=[api.base],
        )
        self.engine = Drills(db, {}, clock=clock, render_cache=PICTURES)
        self.service = TeamService(self.engine)
        self.runtime = build_slack(self.engine, self.service, settings)
        self.runtime.chat.min_gap = 0.05
        self.engine.chats["slack"] = self.runtime.chat
        self.url = ""
        self.session: aiohttp.ClientSession | None = None
        self._runner: web.AppRunner | None = None
        self.responses = 0

    async def start(self) -> None:
        self._runner = web.AppRunner(self.runtime.app.web_app(path="/slack/events"))
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}/slack/events"
        self.session = aiohttp.ClientSession()

    async def stop(self) -> None:
        await self.runtime.close()  # work still running after its ack ends before the database goes away
        if self.session:
            await self.session.close()
        if self._runner:
            await self._runner.cleanup()

    async def post(
        self,
        body: str,
        content_type: str,
        *,
        ts: int | None = None,
        secret: str = SECRET,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, str, float]:
        ts = ts if ts is not None else int(time.time())
        sig = SignatureVerifier(secret).generate_signature(timestamp=str(ts), body=body)
        h = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": str(ts),
            "X-Slack-Signature": sig,
            **(headers or {}),
        }
        assert self.session is not None
        t0 = time.perf_counter()
        async with self.session.post(self.url, data=body.encode(), headers=h) as resp:
            text = await resp.text()
            return resp.status, text, time.perf_counter() - t0

    async def command(self, text: str, user: str = "UANA", name: str = "ana", **kw: Any) -> tuple[int, str, float]:
        self.responses += 1
        body = urlencode(
            {
                "command": "/trace",
                "text": text,
                "team_id": "T1",
                "channel_id": "C1",
                "channel_name": "perf",
                "user_id": user,
                "user_name": name,
                "trigger_id": "trig",
                "response_url": f"{self.api.base}/respond/{self.responses}",
            }
        )
        return await self.post(body, "application/x-www-form-urlencoded", **kw)

    async def interactive(self, payload: dict[str, Any]) -> tuple[int, str, float]:
        body = urlencode({"payload": json.dumps(payload)})
        return await self.post(body, "application/x-www-form-urlencoded")

    async def event(self, event: dict[str, Any], event_id: str, retry: int | None = None) -> tuple[int, str, float]:
        body = json.dumps(
            {
                "type": "event_callback",
                "team_id": "T1",
                "api_app_id": "A1",
                "event_id": event_id,
                "event_time": int(time.time()),
                "event": event,
            }
        )
        headers = {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"} if retry else None
        return await self.post(body, "application/json", headers=headers)

    async def submit_view(
        self, callback: str, metadata: str, block: str, action: str, text: str, user: str = "UANA", view_id: str = "V1"
    ) -> tuple[int, str, float]:
        """A modal with one text input submitted, as Slack sends it."""
        return await self.interactive(
            {
                "type": "view_submission",
                "team": {"id": "T1"},
                "user": {"id": user, "name": user.lower(), "team_id": "T1"},
                "view": {
                    "id": view_id,
                    "type": "modal",
                    "hash": "h1",
                    "callback_id": callback,
                    "private_metadata": metadata,
                    "state": {"values": {block: {action: {"type": "plain_text_input", "value": text}}}},
                },
            }
        )

    async def submit_modal(
        self, drill_id: int, text: str, user: str = "UANA", view_id: str = "V1"
    ) -> tuple[int, str, float]:
        return await self.submit_view(MODAL_CALLBACK, f"{drill_id}|C1", ANSWER_BLOCK, ANSWER_INPUT, text, user, view_id)


@pytest.fixture
async def slack(database: Database) -> AsyncIterator[Harness]:
    api = FakeSlackAPI()
    await api.start()
    h = Harness(database, api, Clock(datetime.now(UTC)))
    await h.start()
    try:
        yield h
    finally:
        await h.stop()
        await api.stop()


def _blocks(params: dict[str, Any]) -> list[dict[str, Any]]:
    b = params["blocks"]
    return json.loads(b) if isinstance(b, str) else list(b)


def _drill_post(api: FakeSlackAPI) -> dict[str, Any]:
    return next(
        c.params
        for c in api.of("chat.postMessage")
        if c.params.get("channel") == "C1" and not c.params.get("thread_ts")
    )


def _drill_id(api: FakeSlackAPI) -> int:
    header = next(b for b in _blocks(_drill_post(api)) if b["type"] == "header")["text"]["text"]
    return int(header.rsplit("#", 1)[1])


async def _started(slack: Harness) -> int:
    await slack.api.wait_for("chat.postMessage")
    drill_id = _drill_id(slack.api)
    for _ in range(200):  # the engine stores the ts just after the post returns
        if await _parent_ts(slack.db, drill_id) != "None":
            return drill_id
        await asyncio.sleep(0.02)
    raise AssertionError("the drill's ts was never stored")


async def test_trace_straggler_to_reveal_and_leaderboard(slack: Harness) -> None:
    slack.api.names.update({"UANA": "Ana Lima", "UBO": "Bo"})
    status, body, took = await slack.command("straggler")
    assert status == 200
    assert took < 3.0
    assert "Starting a drill" in body
    drill_id = await _started(slack)
    post = _drill_post(slack.api)
    assert post["channel"] == "C1"
    blocks = _blocks(post)
    assert "<!date^" in json.dumps(blocks), "the deadline shows in each viewer's timezone"
    assert "straggler" not in json.dumps(blocks).lower(), "the drill never names its answer"
    assert any(c.params.get("png") for c in slack.api.of("upload")), "the picture was uploaded"
    upload = slack.api.of("files.completeUploadExternal")[0].params
    assert "channel_id" not in upload and "channels" not in upload, "uploaded without sharing it separately"
    image = next(b for b in blocks if b["type"] == "image")
    assert image["slack_file"]["id"] == upload["files"][0]["id"], "one message: the picture is inside it"
    assert len([c for c in slack.api.of("chat.postMessage") if c.params["channel"] == "C1"]) == 1
    status, _, _ = await slack.interactive(
        {
            "type": "block_actions",
            "team": {"id": "T1"},
            "user": {"id": "UANA", "team_id": "T1"},
            "channel": {"id": "C1"},
            "trigger_id": "trig-1",
            "actions": [{"action_id": SUBMIT_ACTION, "value": str(drill_id), "type": "button"}],
        }
    )
    assert status == 200
    modal = (await slack.api.wait_for("views.open"))[0].params["view"]
    assert modal["callback_id"] == MODAL_CALLBACK
    assert modal["private_metadata"].startswith(f"{drill_id}|")
    status, body, _ = await slack.submit_modal(drill_id, GOOD)
    assert status == 200
    receipt = json.loads(body)
    assert receipt["response_action"] == "update", "the modal turns into a receipt"
    assert "the node cooling" in json.dumps(receipt["view"]), "it echoes the answer"
    await slack.submit_modal(drill_id, "<!channel> <@U999> NCCL is slow & so is IB", user="UBO", view_id="V2")
    await slack.api.wait_for("chat.postEphemeral", 2)
    first = slack.api.of("chat.postEphemeral")[0].params["text"]
    assert "Recorded" in first and "You wrote:" in first
    slack.clock.advance(121)
    assert await slack.engine.reveal(drill_id)
    assert not await slack.engine.reveal(drill_id)
    parent_ts = await _parent_ts(slack.db, drill_id)
    replies = [c.params for c in slack.api.of("chat.postMessage") if c.params.get("thread_ts")]
    assert all(r["thread_ts"] == parent_ts for r in replies)
    full = next(r for r in replies if not r.get("reply_broadcast"))
    text = json.dumps(full["blocks"])
    assert "Straggler" in text
    assert "Ana Lima" in text and "Bo" in text, "display names from users.info, not the legacy user_name"
    broadcast = [r for r in replies if r.get("reply_broadcast") in (True, "true", "1", "True")]
    assert len(broadcast) == 1 and "Straggler" in broadcast[0]["text"]
    closed = slack.api.messages[("C1", parent_ts)]
    closed_blocks = _blocks(closed)
    assert not any(b["type"] == "actions" for b in closed_blocks), "the drill message lost its button"
    assert "Revealed" in json.dumps(closed_blocks) and "2 answers" in json.dumps(closed_blocks)
    assert any(b["type"] == "image" for b in closed_blocks), "and kept its picture"
    dms = await slack.api.wait_for("conversations.open", 2)
    assert {c.params["users"] for c in dms} == {"UANA", "UBO"}
    feedback = [c.params for c in slack.api.of("chat.postMessage") if str(c.params["channel"]).startswith("D")]
    assert {f["channel"] for f in feedback} == {"DUANA", "DUBO"}
    ana = next(f["text"] for f in feedback if f["channel"] == "DUANA")
    assert "your grade" in ana and "Score" in ana and ("✓" in ana or "✗" in ana), "per-part feedback by DM"
    everything = json.dumps([c.params for c in slack.api.calls])
    assert "<!channel>" not in everything and "<@U999>" not in everything, "nothing in an answer can ping"
    await slack.command("leaderboard all")
    board = (await slack.api.wait_for("response_url", 1))[-1].params["text"]
    assert "1. Ana Lima — 120 pts" in board


async def _parent_ts(db: Database, drill_id: int) -> str:
    """The drill message's ts, once stored: the engine stores it just after the post (and its upload) returns,
    so reading it at once raced and sometimes gave 'None' (the thread answer then matched no drill)."""
    for _ in range(250):
        with db.session() as s:
            d = s.get(Drill, drill_id)
            assert d is not None
            if d.message_ref is not None:
                return str(d.message_ref)
        await asyncio.sleep(0.02)
    raise AssertionError(f"drill {drill_id}: message ref never stored")


async def test_forged_signature_and_stale_timestamp_get_401(slack: Harness, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    logging.getLogger().addFilter(RedactSecrets([SECRET, TOKEN]))
    status, _, _ = await slack.command("straggler", secret="wrong-secret")
    assert status == 401
    status, _, _ = await slack.command("straggler", ts=int(time.time()) - 6 * 60)
    assert status == 401
    await asyncio.sleep(0.2)
    assert slack.api.of("chat.postMessage") == []
    assert SECRET not in caplog.text
    assert TOKEN not in caplog.text


async def _thread_answers_on(slack: Harness) -> None:
    await slack.service.config.apply(ChannelRef("slack", "T1", "C1"), ConfigChange(answer_mode="both"))


async def test_a_retried_event_has_its_effect_once(slack: Harness) -> None:
    await _thread_answers_on(slack)
    await slack.command("straggler")
    drill_id = await _started(slack)
    ts = await _parent_ts(slack.db, drill_id)
    event = {
        "type": "message",
        "channel": "C1",
        "user": "UCY",
        "text": GOOD,
        "ts": "1700000999.000100",
        "thread_ts": ts,
        "team": "T1",
    }
    for retry in (None, 1, 2):
        status, _, _ = await slack.event(event, "Ev123", retry)
        assert status == 200
    await slack.api.wait_for("chat.postEphemeral", 1)
    await asyncio.sleep(0.3)
    with slack.db.session() as s:
        assert s.scalar(select(func.count()).select_from(Attempt)) == 1
    assert sum("Recorded" in c.params["text"] for c in slack.api.of("chat.postEphemeral")) == 1


async def test_rate_limited_post_is_sent_once_after_the_wait(slack: Harness) -> None:
    slack.api.rate_limit["chat.postMessage"] = 1
    t0 = time.perf_counter()
    await slack.command("healthy")
    await _started(slack)
    assert len(slack.api.of("chat.postMessage:429")) == 1
    assert len(slack.api.of("chat.postMessage")) == 1
    assert time.perf_counter() - t0 >= 1.0, "it waited for Retry-After"


async def test_slow_database_still_acks_within_three_seconds(slack: Harness) -> None:
    lock = WriteLock(slack.db, "drills")  # the drill insert now waits for another writer
    try:
        status, body, took = await slack.command("straggler")
        assert status == 200
        assert took < 3.0
        assert "Starting a drill" in body
        await asyncio.sleep(3.5)
        assert slack.api.of("chat.postMessage") == [], "the work was still waiting on the database"
    finally:
        lock.release()
    await slack.api.wait_for("chat.postMessage", 1, seconds=30)


@pytest.mark.parametrize(("answer", "error"), [("", "Write a diagnosis"), ("x" * 3001, "under 3,000")])
async def test_modal_rejects_empty_and_over_long_answers(slack: Harness, answer: str, error: str) -> None:
    status, body, _ = await slack.submit_modal(1, answer)
    assert status == 200
    doc = json.loads(body)
    assert doc["response_action"] == "errors"
    assert error in doc["errors"][ANSWER_BLOCK]


async def test_unknown_input_gets_usage_and_bad_ids_are_handled(slack: Harness) -> None:
    status, body, _ = await slack.command("flux capacitor")
    assert status == 200
    assert "Usage" in body
    status, body, _ = await slack.command("help")
    assert "/trace leaderboard" in body
    status, _, _ = await slack.submit_modal(424242, GOOD)
    assert status == 200
    msg = (await slack.api.wait_for("chat.postEphemeral"))[0].params["text"]
    assert "No drill #424242" in msg


async def test_schedule_is_for_admins(slack: Harness) -> None:
    await slack.command("schedule weekdays 09:30 Europe/Berlin", user="UANA")
    denied = (await slack.api.wait_for("response_url", 1))[-1].params["text"]
    assert "Only workspace admins" in denied
    await slack.command("schedule weekdays 09:30 Europe/Berlin", user="UADMIN")
    ok = (await slack.api.wait_for("response_url", 2))[-1].params["text"]
    assert "09:30 Europe/Berlin" in ok


def test_command_parsing() -> None:
    assert parse("").name == "drill"
    assert parse("straggler").signature == "straggler"
    assert parse("leaderboard month").period == "month"
    assert parse("leaderboard forever").name == "usage"
    s = parse("schedule mon,wed,fri 7:05 America/New_York")
    assert (s.weekdays, s.hour, s.minute, s.timezone) == ("mon,wed,fri", 7, 5, "America/New_York")
    assert parse("schedule daily 25:00").name == "usage"
    assert parse("schedule weekdays 09:00 Mars/Olympus").name == "usage"
    assert parse("group join prep").group_name == "prep"
    assert parse("`rm -rf`").name == "usage"


def test_escaping_makes_mentions_inert() -> None:
    assert escape("<!channel> & <@U1>") == "&lt;!channel&gt; &amp; &lt;@U1&gt;"


def test_redaction_filter_masks_tokens() -> None:
    f = RedactSecrets(["s3cret"])
    rec = logging.LogRecord("x", logging.INFO, "f", 1, "token %s and %s", ("xoxb-123-abc", "s3cret"), None)
    f.filter(rec)
    assert "xoxb-123" not in rec.getMessage()
    assert "s3cret" not in rec.getMessage()


async def test_oauth_install_store_and_uninstall_stop_the_workspace(database: Database) -> None:
    from slack_sdk.oauth.installation_store import Installation

    from bot.store import repo

    api = FakeSlackAPI()
    await api.start()
    settings = SlackSettings(
        client_id="111.222", client_secret="shh", signing_secret=SECRET, api_url=f"{api.base}/api/"
    )
    engine = Drills(database, {}, clock=Clock(datetime.now(UTC)), render_cache=PICTURES)
    runtime = build_slack(engine, TeamService(engine), settings)
    assert runtime.installations is not None
    await runtime.installations.async_save(
        Installation(
            app_id="A1",
            team_id="T1",
            user_id="UADMIN",
            bot_token="xoxb-installed",
            bot_id="B1",
            bot_user_id="UBOT",
            bot_scopes=["commands"],
            installed_at=time.time(),
        )
    )
    assert await runtime.chat.token_for("T1") == "xoxb-installed"
    with database.session() as s:
        ws = repo.workspace(s, "slack", "T1", "", engine.clock())
        ch = repo.channel(s, ws, "C1")
        ch.schedule_hour = 9
    runner = web.AppRunner(runtime.app.web_app(path="/slack/events"))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    body = json.dumps(
        {
            "type": "event_callback",
            "team_id": "T1",
            "api_app_id": "A1",
            "event_id": "EvU",
            "event_time": int(time.time()),
            "event": {"type": "app_uninstalled"},
        }
    )
    ts = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": SignatureVerifier(SECRET).generate_signature(timestamp=ts, body=body),
    }
    try:
        async with (
            aiohttp.ClientSession() as session,
            session.post(f"http://127.0.0.1:{port}/slack/events", data=body.encode(), headers=headers) as resp,
        ):
            assert resp.status == 200

        def channel_enabled() -> bool:
            with database.session() as s:
                ws = repo.find_workspace(s, "slack", "T1")
                ch = repo.find_channel(s, ws, "C1")  # type: ignore[arg-type]
                assert ch is not None
                return ch.enabled

        for _ in range(200):
            if await runtime.chat.token_for("T1") is None and not channel_enabled():
                break
            await asyncio.sleep(0.05)
        assert await runtime.chat.token_for("T1") is None, "the installation is gone"
        with database.session() as s:
            ws = repo.find_workspace(s, "slack", "T1")
            ch = repo.find_channel(s, ws, "C1")  # type: ignore[arg-type]
            assert ch is not None
            assert not ch.enabled, "its scheduled drills stop"
        await runtime.installations.async_save(
            Installation(
                app_id="A1",
                team_id="T1",
                user_id="UADMIN",
                bot_token="xoxb-again",
                bot_id="B1",
                bot_user_id="UBOT",
                bot_scopes=["commands"],
                installed_at=time.time(),
            )
        )
        assert channel_enabled(), "reinstalling turns the schedules back on"
    finally:
        await runtime.chat.close()
        await runner.cleanup()
        await api.stop()


def test_serve_explains_missing_configuration(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from bot.cli import main

    for var in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET"):
        monkeypatch.delenv(var, raising=False)
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}"}
    socket = CliRunner().invoke(main, ["serve", "--platform", "slack"], env=env)
    assert socket.exit_code == 1
    assert "SLACK_APP_TOKEN" in socket.output
    http = CliRunner().invoke(main, ["serve", "--platform", "slack", "--http"], env=env)
    assert "SLACK_SIGNING_SECRET" in http.output
    unknown = CliRunner().invoke(main, ["serve", "--platform", "irc"], env=env)
    assert "choose platforms from" in unknown.output


async def test_trace_analyze_reads_the_newest_shared_trace(slack: Harness, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from bot.scenarios.export import export_scenario
    from bot.scenarios.registry import generate

    await slack.command("analyze")
    first = (await slack.api.wait_for("response_url", 1))[-1].params["text"]
    assert "Share a torch.profiler trace" in first
    export_scenario(generate("sync_stall", 4), tmp_path)
    slack.api.shared_files["notes.txt"] = b"hello"
    doc = json.loads((tmp_path / "rank-0.json").read_text())
    for ev in doc["traceEvents"]:  # kernel names that try to close the code block and post a link
        if ev.get("cat") == "kernel" and "nccl" not in str(ev.get("name", "")).lower():
            ev["name"] = "pwn```\n*free gpus* at https://evil.example\n```" + str(ev["name"])
    slack.api.shared_files["rank-0.json"] = json.dumps(doc).encode()
    await slack.command("analyze")
    reply = (await slack.api.wait_for("response_url", 2))[-1].params
    assert reply["response_type"] == "in_channel", reply
    assert "Most likely" in reply["text"]
    assert "sync_stall" in reply["text"]
    assert "free gpus" in reply["text"] and reply["text"].count("`") == 6, reply["text"]
    await slack.api.wait_for("files.completeUploadExternal")
    slack.api.shared_files["broken.json.gz"] = b"\x1f\x8b\x08\x00garbage"
    await slack.command("analyze")
    error = (await slack.api.wait_for("response_url", 3))[-1].params["text"]
    assert "gzip" in error


async def test_a_failed_post_leaves_no_drill_and_says_why(slack: Harness) -> None:
    slack.api.errors["chat.postMessage"] = ["not_in_channel"]
    await slack.command("straggler")
    reply = (await slack.api.wait_for("response_url", 1))[-1].params["text"]
    assert "/invite @tracedrill" in reply
    with slack.db.session() as s:
        assert s.scalar(select(func.count()).select_from(Drill).where(Drill.failed_at.is_(None))) == 0, (
            "no drill left to reveal"
        )
    slack.api.errors["files.getUploadURLExternal"] = ["invalid_auth"]
    await slack.command("straggler")
    reply = (await slack.api.wait_for("response_url", 2))[-1].params["text"]
    assert "invalid_auth" in reply
    assert [c for c in slack.api.of("chat.postMessage") if c.params.get("channel") == "C1"] == [], (
        "an upload failure means nothing goes out"
    )
    with slack.db.session() as s:
        assert s.scalar(select(func.count()).select_from(Drill).where(Drill.failed_at.is_(None))) == 0


async def test_feedback_falls_back_when_dm_or_ephemeral_fail(slack: Harness) -> None:
    await slack.command("straggler")
    drill_id = await _started(slack)
    slack.api.errors["chat.postEphemeral"] = ["user_not_in_channel"]
    await slack.submit_modal(drill_id, GOOD, user="UZED")
    receipt = await slack.api.wait_for("conversations.open", 1)
    assert receipt[0].params["users"] == "UZED", "the receipt came by DM when the ephemeral failed"
    slack.api.errors["conversations.open"] = ["cannot_dm_bot"]
    slack.clock.advance(121)
    assert await slack.engine.reveal(drill_id)
    notes = await slack.api.wait_for("chat.postEphemeral", 1)
    assert "your grade" in notes[-1].params["text"], "no DM possible: the feedback came as an ephemeral note"


async def test_broadcast_and_edited_thread_replies_count(slack: Harness) -> None:
    await _thread_answers_on(slack)
    await slack.command("straggler")
    drill_id = await _started(slack)
    ts = await _parent_ts(slack.db, drill_id)
    await slack.event(
        {
            "type": "message",
            "subtype": "thread_broadcast",
            "channel": "C1",
            "user": "UCY",
            "text": "it's input starvation",
            "ts": "1700000999.000200",
            "thread_ts": ts,
        },
        "EvB",
    )
    await slack.api.wait_for("chat.postEphemeral", 1)
    await slack.event(
        {
            "type": "message",
            "subtype": "message_changed",
            "channel": "C1",
            "ts": "1700000999.3",
            "message": {"type": "message", "user": "UCY", "text": GOOD, "ts": "1700000999.000200", "thread_ts": ts},
        },
        "EvC",
    )
    await slack.api.wait_for("chat.postEphemeral", 2)
    assert "Revised" in slack.api.of("chat.postEphemeral")[-1].params["text"]
    with slack.db.session() as s:
        attempt = s.scalars(select(Attempt)).one()
        assert attempt.answer_text == GOOD and attempt.revisions == 1


async def test_reopening_the_form_prefills_the_last_answer(slack: Harness) -> None:
    await slack.command("straggler")
    drill_id = await _started(slack)
    await slack.submit_modal(drill_id, GOOD)
    await slack.api.wait_for("chat.postEphemeral", 1)
    await slack.interactive(
        {
            "type": "block_actions",
            "team": {"id": "T1"},
            "user": {"id": "UANA", "team_id": "T1"},
            "channel": {"id": "C1"},
            "trigger_id": "trig-2",
            "actions": [{"action_id": SUBMIT_ACTION, "value": str(drill_id), "type": "button"}],
        }
    )
    view = (await slack.api.wait_for("views.open"))[0].params["view"]
    element = view["blocks"][0]["element"]
    assert element["initial_value"] == GOOD
    assert element["max_length"] == 3000


async def test_a_long_reveal_stays_within_block_kit_limits(slack: Harness) -> None:
    from bot.drills.ports import MessageRef, RevealPost, ScoreLine

    scores = tuple(ScoreLine(f"player {i}", 0.5, 50, None) for i in range(400))
    post = RevealPost(1, "straggler", "t", "Straggler", "reading line\n" * 900, b"\x89PNG", scores)
    await slack.runtime.chat.post_reveal(MessageRef(ChannelRef("slack", "T1", "C1"), ""), post)
    assert slack.api.of("chat.postMessage:invalid") == []
    blocks = _blocks(slack.api.of("chat.postMessage")[-1].params)
    assert len(blocks) <= 50
    assert all(len(b["text"]["text"]) <= 3000 for b in blocks if b["type"] == "section")


async def test_the_fake_refuses_what_slack_refuses(slack: Harness) -> None:
    client = await slack.runtime.chat.client("T1")
    from slack_sdk.errors import SlackApiError

    with pytest.raises(SlackApiError) as info:
        await client.chat_postMessage(
            channel="C1", text="x", blocks=[{"type": "section", "text": {"type": "mrkdwn", "text": "y" * 3001}}]
        )
    assert info.value.response["error"] == "invalid_blocks"
    with pytest.raises(SlackApiError):
        await client.chat_postMessage(channel="C1", text="x", blocks=[{"type": "divider"}] * 51)


async def test_usage_is_escaped(slack: Harness) -> None:
    _, body, _ = await slack.command("help")
    assert "&lt;signature&gt;" in body and "<signature>" not in body


def test_answer_limit_above_slacks_input_limit_is_refused() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        SlackSettings(max_answer_chars=3001)
    assert SlackSettings(max_answer_chars=2000).max_answer_chars == 2000


def test_serve_refuses_an_answer_limit_over_3000_in_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from bot.cli import main

    env = {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}",
        "SLACK_MAX_ANSWER_CHARS": "5000",
        "SLACK_BOT_TOKEN": TOKEN,
        "SLACK_APP_TOKEN": "xapp-1",
    }
    result = CliRunner().invoke(main, ["serve", "--platform", "slack"], env=env)
    assert result.exit_code == 1
    assert "SLACK_MAX_ANSWER_CHARS" in result.output and "3000" in result.output
    assert "Traceback" not in result.output


async def test_grid_workspace_finds_its_install(database: Database) -> None:
    from slack_sdk.oauth.installation_store import Installation

    api = FakeSlackAPI()
    await api.start()
    settings = SlackSettings(
        client_id="111.222", client_secret="shh", signing_secret=SECRET, api_url=f"{api.base}/api/"
    )
    engine = Drills(database, {}, clock=Clock(datetime.now(UTC)), render_cache=PICTURES)
    service = TeamService(engine)
    runtime = build_slack(engine, service, settings)
    assert runtime.installations is not None
    try:
        await runtime.installations.async_save(
            Installation(
                app_id="A1",
                enterprise_id="E1",
                team_id="T7",
                user_id="U1",
                bot_token="xoxb-grid-team",
                bot_id="B1",
                bot_user_id="UBOT",
                installed_at=time.time(),
            )
        )
        await service.set_enterprise("slack", "T7", "E1")
        assert await runtime.chat.token_for("T7") == "xoxb-grid-team"
        await runtime.installations.async_save(
            Installation(
                app_id="A1",
                enterprise_id="E2",
                team_id=None,
                user_id="U1",
                bot_token="xoxb-org-wide",
                bot_id="B2",
                bot_user_id="UBOT",
                is_enterprise_install=True,
                installed_at=time.time(),
            )
        )
        await service.set_enterprise("slack", "T8", "E2")
        assert await runtime.chat.token_for("T8") == "xoxb-org-wide", "an org-wide install serves every team"
        assert await runtime.chat.token_for("T9") is None
    finally:
        await runtime.chat.close()
        await api.stop()


async def test_feedback_persists_in_the_app_home_with_a_chart(slack: Harness) -> None:
    await slack.command("straggler")
    drill_id = await _started(slack)
    await slack.submit_modal(drill_id, GOOD)
    await slack.api.wait_for("chat.postEphemeral", 1)
    await slack.event({"type": "app_home_opened", "user": "UANA", "channel": "DUANA", "tab": "home"}, "EvH1")
    before = (await slack.api.wait_for("views.publish", 1))[-1].params["view"]
    assert "awaiting the reveal" in json.dumps(before), "no feedback (or answer) before the reveal"
    slack.clock.advance(121)
    assert await slack.engine.reveal(drill_id)
    after = (await slack.api.wait_for("views.publish", 2))[-1].params
    assert after["user_id"] == "UANA"
    home = json.dumps(after["view"], ensure_ascii=False)
    assert "straggler" in home and "Score" in home and "✓" in home, "per-part feedback in the App Home"
    assert "Weakest" in home
    chart = next(b for b in after["view"]["blocks"] if b["type"] == "image")
    uploads = [c.params["files"][0]["id"] for c in slack.api.of("files.completeUploadExternal")]
    assert chart["slack_file"]["id"] in uploads
    assert slack.api.of("views.publish:invalid") == []


async def test_trace_config_is_for_admins_and_saves_the_channel_settings(slack: Harness) -> None:
    await slack.command("config", user="UANA")
    denied = (await slack.api.wait_for("response_url", 1))[-1].params["text"]
    assert "Only workspace admins" in denied
    await slack.command("config", user="UADMIN")
    view = (await slack.api.wait_for("views.open", 1))[-1].params["view"]
    assert slack.api.of("views.open:invalid") == []
    mode = next(b for b in view["blocks"] if b["block_id"] == "answer_mode")
    assert mode["element"]["initial_option"]["value"] == "modal", "answers hidden by default"

    def submission(user: str, schedule: str, seconds: str = "300") -> dict[str, Any]:
        return {
            "type": "view_submission",
            "team": {"id": "T1"},
            "user": {"id": user, "team_id": "T1"},
            "view": {
                "id": "VC",
                "type": "modal",
                "callback_id": "trace_config",
                "private_metadata": "C1",
                "state": {
                    "values": {
                        "answer_mode": {"value": {"type": "static_select", "selected_option": {"value": "thread"}}},
                        "answer_seconds": {"value": {"type": "number_input", "value": seconds}},
                        "difficulty": {"value": {"type": "static_select", "selected_option": {"value": "hard"}}},
                        "signatures": {
                            "value": {
                                "type": "multi_static_select",
                                "selected_options": [{"value": "straggler"}, {"value": "sync_stall"}],
                            }
                        },
                        "schedule": {"value": {"type": "plain_text_input", "value": schedule}},
                    }
                },
            },
        }

    status, body, _ = await slack.interactive(submission("UADMIN", "someday 25:00"))
    assert status == 200 and json.loads(body)["errors"]["schedule"]
    status, body, _ = await slack.interactive(submission("UADMIN", "off", seconds="5"))
    assert "Answer time" in json.loads(body)["errors"]["answer_seconds"]
    status, body, _ = await slack.interactive(submission("UANA", "weekdays 09:30 Europe/Berlin"))
    assert "admins" in json.loads(body)["errors"]["answer_mode"]
    status, body, _ = await slack.interactive(submission("UADMIN", "weekdays 09:30 Europe/Berlin"))
    assert status == 200 and body == ""
    saved = (await slack.api.wait_for("chat.postEphemeral", 1))[-1].params["text"]
    assert "Saved" in saved and "09:30 Europe/Berlin" in saved
    settings = await slack.service.config.get(ChannelRef("slack", "T1", "C1"))
    assert (settings.answer_mode, settings.answer_seconds, settings.difficulty) == ("thread", 300, "hard")
    assert settings.signature_mix == ("straggler", "sync_stall") and settings.hour == 9
    await slack.command("")
    drill_id = await _started(slack)
    blocks = _blocks(_drill_post(slack.api))
    assert SUBMIT_ACTION not in json.dumps(blocks), "thread mode: no form button"
    with slack.db.session() as s:
        d = s.get(Drill, drill_id)
        assert d is not None and d.signature in ("straggler", "sync_stall") and d.difficulty == "hard"
        assert (d.deadline_at - d.posted_at).total_seconds() == 300


def test_manifest_and_readme_match_the_code() -> None:
    from pathlib import Path

    from bot.adapters.slack.app import BOT_SCOPES

    root = Path(__file__).parents[1]
    manifest = (root / "slack" / "manifest.yml").read_text()
    bot_list = manifest.split("    bot:\n", 1)[1].split("settings:", 1)[0]  # the oauth bot-scope list
    assert [line.strip()[2:] for line in bot_list.splitlines() if line.strip()] == BOT_SCOPES
    assert "      - app_home_opened" in manifest
    assert "home_tab_enabled: true" in manifest
    readme = (root / "README.md").read_text()
    slack = readme[readme.index("## Run it in Slack") : readme.index("## Run it in Discord")]
    for scope in BOT_SCOPES:
        assert f"`{scope}`" in slack, scope
    assert "/trace config" in slack and "App Home" in slack
    discord_part = readme[readme.index("## Run it in Discord") : readme.index("## Deploy")]
    assert "/trace-config" in discord_part and "/trace-me" in discord_part


async def test_after_a_restart_the_reveal_still_closes_the_drill_message(slack: Harness) -> None:
    await slack.command("straggler")
    drill_id = await _started(slack)
    ts = await _parent_ts(slack.db, drill_id)
    chat = slack.runtime.chat
    for ticker in list(chat._tickers.values()):  # a new process: no countdown, nothing about the message in memory
        ticker.cancel()
    await asyncio.gather(*chat._tickers.values(), return_exceptions=True)
    chat._posts.clear()
    chat._files.clear()
    slack.clock.advance(121)
    assert await slack.engine.reveal(drill_id)
    assert slack.api.of("conversations.history")[0].params["latest"] == ts
    closed = _blocks(slack.api.messages[("C1", ts)])
    assert not any(b["type"] == "actions" for b in closed)
    assert any(b["type"] == "image" for b in closed), "the picture is read back and kept"
    assert "0 answers" in json.dumps(closed)


async def test_socket_mode_command_is_acked_and_starts_a_drill(database: Database) -> None:
    from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

    api = FakeSlackAPI()
    await api.start()
    settings = SlackSettings(bot_token=TOKEN, app_token="xapp-test", api_url=f"{api.base}/api/")
    engine = Drills(database, {}, clock=Clock(datetime.now(UTC)), render_cache=PICTURES)
    runtime = build_slack(engine, TeamService(engine), settings)
    runtime.chat.min_gap = 0.05
    engine.chats["slack"] = runtime.chat
    handler = AsyncSocketModeHandler(runtime.app, "xapp-test")
    try:
        await handler.connect_async()
        assert api.of("apps.connections.open"), "the socket URL came from the Web API"
        await api.socket_send(
            {
                "envelope_id": "env-1",
                "type": "slash_commands",
                "accepts_response_payload": True,
                "payload": {
                    "command": "/trace",
                    "text": "help",
                    "team_id": "T1",
                    "channel_id": "C1",
                    "user_id": "UANA",
                    "user_name": "ana",
                    "trigger_id": "t",
                    "response_url": f"{api.base}/respond/1",
                },
            }
        )
        ack = await api.wait_for_ack("env-1")
        assert "&lt;signature&gt;" in ack["payload"]["text"]
        await api.socket_send(
            {
                "envelope_id": "env-2",
                "type": "slash_commands",
                "accepts_response_payload": True,
                "payload": {
                    "command": "/trace",
                    "text": "straggler",
                    "team_id": "T1",
                    "channel_id": "C1",
                    "user_id": "UANA",
                    "user_name": "ana",
                    "trigger_id": "t",
                    "response_url": f"{api.base}/respond/2",
                },
            }
        )
        assert "Starting a drill" in (await api.wait_for_ack("env-2"))["payload"]["text"]
        post = (await api.wait_for("chat.postMessage"))[0].params
        assert post["channel"] == "C1" and any(b["type"] == "image" for b in post["blocks"])
    finally:
        await handler.close_async()
        await runtime.chat.close()
        await api.stop()


async def test_trace_analyze_says_busy_when_every_worker_is_taken(slack: Harness, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from bot.analyze import bounded
    from bot.scenarios.export import export_scenario
    from bot.scenarios.registry import generate

    export_scenario(generate("sync_stall", 4), tmp_path)
    slack.api.shared_files["rank-0.json"] = (tmp_path / "rank-0.json").read_bytes()
    monkeypatch.setattr(bounded, "gate", bounded.Gate(running=1, waiting=0, queue_seconds=0))
    with bounded.gate:  # another upload is being analysed
        await slack.command("analyze")
        reply = (await slack.api.wait_for("response_url", 1))[-1].params
    assert reply["response_type"] == "ephemeral"
    assert "busy" in reply["text"] and "try again" in reply["text"]
