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
from bot.drills.commands import parse
from bot.drills.engine import DrillEngine
from bot.drills.service import TeamService
from bot.store.db import Database
from bot.store.models import Attempt, Drill

from .dbs import WriteLock
from .fakes.slack_api import FakeSlackAPI
from .helpers import Clock

SECRET = "test-signing-secret-123"
TOKEN = "xoxb-test-token-456"
GOOD = "Rank 2 is a straggler; the others wait in the all-reduce. Check DCGM clocks. Fix the node cooling."


class Harness:
    def __init__(self, db: Database, api: FakeSlackAPI, clock: Clock) -> None:
        self.db, self.api, self.clock = db, api, clock
        settings = SlackSettings(bot_token=TOKEN, signing_secret=SECRET, api_url=f"{api.base}/api/",
                                 update_every_seconds=0.2)
        self.engine = DrillEngine(db, {}, clock=clock)
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
        await self.runtime.chat.close()
        if self.session:
            await self.session.close()
        if self._runner:
            await self._runner.cleanup()

    async def post(self, body: str, content_type: str, *, ts: int | None = None, secret: str = SECRET,
                   headers: dict[str, str] | None = None) -> tuple[int, str, float]:
        ts = ts if ts is not None else int(time.time())
        sig = SignatureVerifier(secret).generate_signature(timestamp=str(ts), body=body)
        h = {"Content-Type": content_type, "X-Slack-Request-Timestamp": str(ts), "X-Slack-Signature": sig,
             **(headers or {})}
        assert self.session is not None
        t0 = time.perf_counter()
        async with self.session.post(self.url, data=body.encode(), headers=h) as resp:
            text = await resp.text()
            return resp.status, text, time.perf_counter() - t0

    async def command(self, text: str, user: str = "UANA", name: str = "ana", **kw: Any) -> tuple[int, str, float]:
        self.responses += 1
        body = urlencode({"command": "/trace", "text": text, "team_id": "T1", "channel_id": "C1",
                          "channel_name": "perf", "user_id": user, "user_name": name, "trigger_id": "trig",
                          "response_url": f"{self.api.base}/respond/{self.responses}"})
        return await self.post(body, "application/x-www-form-urlencoded", **kw)

    async def interactive(self, payload: dict[str, Any]) -> tuple[int, str, float]:
        body = urlencode({"payload": json.dumps(payload)})
        return await self.post(body, "application/x-www-form-urlencoded")

    async def event(self, event: dict[str, Any], event_id: str, retry: int | None = None) -> tuple[int, str, float]:
        body = json.dumps({"type": "event_callback", "team_id": "T1", "api_app_id": "A1", "event_id": event_id,
                           "event_time": int(time.time()), "event": event})
        headers = {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"} if retry else None
        return await self.post(body, "application/json", headers=headers)

    async def submit_modal(self, drill_id: int, text: str, user: str = "UANA", view_id: str = "V1"
                           ) -> tuple[int, str, float]:
        return await self.interactive({
            "type": "view_submission", "team": {"id": "T1"},
            "user": {"id": user, "name": user.lower(), "team_id": "T1"},
            "view": {"id": view_id, "type": "modal", "hash": "h1", "callback_id": MODAL_CALLBACK,
                     "private_metadata": f"{drill_id}|C1",
                     "state": {"values": {ANSWER_BLOCK: {ANSWER_INPUT: {"type": "plain_text_input", "value": text}}}}},
        })


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


def _drill_id(api: FakeSlackAPI) -> int:
    blocks = _blocks(api.of("chat.postMessage")[0].params)
    button = next(b for b in blocks if b["type"] == "actions")["elements"][0]
    return int(button["value"])


async def test_trace_straggler_to_reveal_and_leaderboard(slack: Harness) -> None:
    status, body, took = await slack.command("straggler")
    assert status == 200
    assert took < 3.0
    assert "Starting a drill" in body
    await slack.api.wait_for("files.completeUploadExternal")
    post = slack.api.of("chat.postMessage")[0].params
    assert post["channel"] == "C1"
    blocks = json.dumps(_blocks(post))
    assert "<!date^" in blocks, "the deadline shows in each viewer's timezone"
    assert "straggler" not in blocks.lower(), "the drill never names its answer"
    assert any(c.params.get("png") for c in slack.api.of("upload")), "the picture was uploaded"
    drill_id = _drill_id(slack.api)
    status, _, _ = await slack.interactive({
        "type": "block_actions", "team": {"id": "T1"}, "user": {"id": "UANA", "team_id": "T1"},
        "channel": {"id": "C1"}, "trigger_id": "trig-1",
        "actions": [{"action_id": SUBMIT_ACTION, "value": str(drill_id), "type": "button"}]})
    assert status == 200
    view = (await slack.api.wait_for("views.open"))[0].params["view"]
    modal = json.loads(view) if isinstance(view, str) else view
    assert modal["callback_id"] == MODAL_CALLBACK
    assert modal["private_metadata"].startswith(f"{drill_id}|")
    status, body, _ = await slack.submit_modal(drill_id, GOOD)
    assert status == 200
    assert body == ""
    await slack.submit_modal(drill_id, "<!channel> <@U999> NCCL is slow & so is IB", user="UBO", view_id="V2")
    await slack.api.wait_for("chat.postEphemeral", 2)
    assert "Recorded" in slack.api.of("chat.postEphemeral")[0].params["text"]
    slack.clock.advance(121)
    assert await slack.engine.reveal(drill_id)
    assert not await slack.engine.reveal(drill_id)
    drill_ts = slack.api.of("chat.postMessage")[0].params  # the parent message's ts anchors the thread
    reveal = [c for c in slack.api.of("chat.postMessage") if c.params.get("thread_ts")]
    assert len(reveal) == 1
    parent_ts = (await _parent_ts(slack.db, drill_id))
    assert reveal[0].params["thread_ts"] == parent_ts
    text = reveal[0].params["text"]
    assert "Straggler" in text
    assert "ana" in text and "UBO".lower() in text.lower()
    assert "<!channel>" not in json.dumps([c.params for c in slack.api.calls if c.method != "response_url"])
    assert drill_ts
    await slack.api.wait_for("chat.postEphemeral", 4)
    feedback = [c.params["text"] for c in slack.api.of("chat.postEphemeral") if "your grade" in c.params["text"]]
    assert len(feedback) == 2
    everything = json.dumps([c.params for c in slack.api.calls])
    assert "<!channel>" not in everything and "<@U999>" not in everything, "nothing in an answer can ping"
    await slack.command("leaderboard all")
    board = (await slack.api.wait_for("response_url", 1))[-1].params["text"]
    assert "1. uana — 120 pts" in board


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


async def test_a_retried_event_has_its_effect_once(slack: Harness) -> None:
    await slack.command("straggler")
    await slack.api.wait_for("files.completeUploadExternal")
    drill_id = _drill_id(slack.api)
    ts = await _parent_ts(slack.db, drill_id)
    event = {"type": "message", "channel": "C1", "user": "UCY", "text": GOOD, "ts": "1700000999.000100",
             "thread_ts": ts, "team": "T1"}
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
    await slack.api.wait_for("files.completeUploadExternal")
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
    settings = SlackSettings(client_id="111.222", client_secret="shh", signing_secret=SECRET,
                             api_url=f"{api.base}/api/")
    engine = DrillEngine(database, {}, clock=Clock(datetime.now(UTC)))
    runtime = build_slack(engine, TeamService(engine), settings)
    assert runtime.installations is not None
    await runtime.installations.async_save(Installation(
        app_id="A1", team_id="T1", user_id="UADMIN", bot_token="xoxb-installed", bot_id="B1", bot_user_id="UBOT",
        bot_scopes=["commands"], installed_at=time.time()))
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
    body = json.dumps({"type": "event_callback", "team_id": "T1", "api_app_id": "A1", "event_id": "EvU",
                       "event_time": int(time.time()), "event": {"type": "app_uninstalled"}})
    ts = str(int(time.time()))
    headers = {"Content-Type": "application/json", "X-Slack-Request-Timestamp": ts,
               "X-Slack-Signature": SignatureVerifier(SECRET).generate_signature(timestamp=ts, body=body)}
    try:
        async with aiohttp.ClientSession() as session, session.post(
                f"http://127.0.0.1:{port}/slack/events", data=body.encode(), headers=headers) as resp:
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
