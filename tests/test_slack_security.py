"""Slack security at the edges: blank secrets refused at start, downloads only from Slack's file hosts, signed
requests replayed within the window refused, secrets kept out of logs, expired OAuth state and old delivery
keys purged. Real Bolt and slack_sdk against the fake Slack API on loopback."""

from __future__ import annotations

import asyncio
import io
import logging
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode

import pytest
from aiohttp import web
from sqlalchemy import func, select, text
from sqlalchemy.exc import IntegrityError

from bot.adapters.slack.app import build_slack
from bot.adapters.slack.files import on_slack_host
from bot.adapters.slack.installation import ThreadedStateStore
from bot.adapters.slack.redact import RedactSecrets
from bot.adapters.slack.settings import SlackSettings
from bot.drills.engine import Drills
from bot.drills.fake import FakeChat
from bot.drills.service import TeamService
from bot.scenarios.export import export_scenario
from bot.scenarios.registry import generate
from bot.schedule import jobs
from bot.schedule.scheduler import DrillScheduler
from bot.store import repo
from bot.store.db import Database
from bot.store.models import DeliveryKey, Drill

from .dbs import pg_url
from .fakes.loopback import serve
from .fakes.slack_api import FakeSlackAPI
from .helpers import Clock, engine_for
from .test_slack import SECRET, TOKEN, Harness, slack  # noqa: F401  (the fixture)


class Elsewhere:
    """A host that is not Slack's: records whatever reaches it (a leaked token would arrive here)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, str]] = []
        self.base = ""

    async def start(self) -> None:
        async def any_path(request: web.Request) -> web.Response:
            self.requests.append(dict(request.headers))
            return web.Response(body=b"{}")

        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", any_path)
        self._runner, port = await serve(app)
        self.base = f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        await self._runner.cleanup()


def test_blank_secrets_are_refused_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.app import ConfigError, _check_slack

    for var in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1")
    for blank in ("", "   ", "\t\n"):
        monkeypatch.setenv("SLACK_SIGNING_SECRET", blank)
        with pytest.raises(ConfigError, match="SLACK_SIGNING_SECRET is set but empty"):
            _check_slack(True)
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-1")
    with pytest.raises(ConfigError, match="SLACK_SIGNING_SECRET"):
        _check_slack(False)  # Socket Mode too: a blank variable is a mistake, not "no secret"
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "a-real-secret")
    monkeypatch.setenv("SLACK_BOT_TOKEN", " ")
    with pytest.raises(ConfigError, match="SLACK_BOT_TOKEN"):
        _check_slack(True)
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1")
    _check_slack(True)
    _check_slack(False)
    with pytest.raises(ValueError, match="empty"):
        build_slack(
            Drills(Database("sqlite://"), {}),
            TeamService(Drills(Database("sqlite://"), {})),
            SlackSettings(bot_token="xoxb-1", signing_secret="  "),
        )


async def test_without_a_signing_secret_no_http_request_verifies(database: Database) -> None:
    api = FakeSlackAPI()
    await api.start()
    h = Harness(database, api, Clock(datetime.now(UTC)))
    h.runtime = build_slack(h.engine, h.service, SlackSettings(bot_token=TOKEN, api_url=f"{api.base}/api/"))
    await h.start()
    try:
        for guess in ("socket-mode", "none"):
            status, _, _ = await h.command("straggler", secret=guess)
            assert status == 401, guess
        await asyncio.sleep(0.2)
        assert api.of("chat.postMessage") == []
    finally:
        await h.stop()
        await api.stop()


async def test_a_signed_request_replayed_three_times_starts_one_drill(slack: Harness) -> None:  # noqa: F811
    body = urlencode(
        {
            "command": "/trace",
            "text": "straggler",
            "team_id": "T1",
            "channel_id": "C1",
            "channel_name": "perf",
            "user_id": "UANA",
            "user_name": "ana",
            "trigger_id": "t",
            "response_url": f"{slack.api.base}/respond/1",
        }
    )
    ts = int(time.time())
    statuses = [(await slack.post(body, "application/x-www-form-urlencoded", ts=ts))[0] for _ in range(4)]
    assert statuses == [200, 401, 401, 401]
    await slack.api.wait_for("files.completeUploadExternal")
    await asyncio.sleep(0.5)
    with slack.db.session() as s:
        assert s.scalar(select(func.count()).select_from(Drill)) == 1
    assert len(slack.api.of("chat.postMessage")) == 1
    status, _, _ = await slack.command("straggler")  # a fresh request still works
    assert status == 200


def test_slack_file_hosts() -> None:
    hosts = ["https://files.slack.com", "https://files.slack-gov.com"]
    assert on_slack_host("https://files.slack.com/files-pri/T1-F1/trace.json", hosts)
    assert on_slack_host("https://FILES.slack-gov.com/files-pri/T1-F1/x.json.gz", hosts)
    for url in (
        "http://files.slack.com/x",
        "https://files.slack.com.evil.example/x",
        "https://evil.example/x",
        "https://files.slack.com@evil.example/x",
        "https://user@files.slack.com/x",
        "https://files.slack.com:8443/x",
        "https://slack.com/x",
        "file:///etc/passwd",
        "",
        "https://[::1/x",
    ):
        assert not on_slack_host(url, hosts), url


async def test_trace_downloads_never_leave_slacks_file_host(slack: Harness, tmp_path: Path) -> None:  # noqa: F811
    export_scenario(generate("sync_stall", 4), tmp_path)
    trace = (tmp_path / "rank-0.json").read_bytes()
    elsewhere = Elsewhere()
    await elsewhere.start()
    try:
        cases = [  # (file fields or redirect, what the person is told)
            ({"url_private": f"{elsewhere.base}/files/rank-0.json"}, "not stored on Slack's file host"),
            ({"url_private": "https://files.slack.com.evil.example/x"}, "not stored on Slack's file host"),
            (
                {"is_external": True, "external_type": "gdrive", "url_private": f"{elsewhere.base}/doc"},
                "link to gdrive",
            ),
            ("redirect", "redirected the download elsewhere"),
        ]
        for n, (meta, told) in enumerate(cases, start=1):
            slack.api.shared_files = {"rank-0.json": trace}
            slack.api.file_meta, slack.api.redirects = {}, {}
            if meta == "redirect":
                slack.api.redirects["rank-0.json"] = f"{elsewhere.base}/stolen"
            else:
                slack.api.file_meta["rank-0.json"] = dict(meta)  # type: ignore[arg-type]
            await slack.command("analyze")
            reply = (await slack.api.wait_for("response_url", n))[-1].params
            assert reply["response_type"] == "ephemeral", reply
            assert told in reply["text"], reply["text"]
        await asyncio.sleep(0.2)
        assert elsewhere.requests == [], "the bot token went to another host"
        assert len(slack.api.of("file")) == 1, "only the redirecting Slack URL was fetched"
    finally:
        await elsewhere.stop()


def test_tracebacks_in_logs_are_redacted() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactSecrets([SECRET]))
    log = logging.getLogger("tracedrill.test.redact")
    log.addHandler(handler)
    log.propagate = False
    try:
        try:
            raise RuntimeError(f"insert failed: bot_token='xoxb-999-leaky' secret={SECRET}")
        except RuntimeError:
            log.exception("installation save failed for %s", ValueError("xoxb-123-also"))
    finally:
        log.removeHandler(handler)
    out = stream.getvalue()
    assert "Traceback" in out and "RuntimeError" in out
    assert "xoxb-999" not in out and SECRET not in out and "xoxb-123" not in out


def test_sql_errors_carry_no_parameter_values(tmp_path: Path) -> None:
    """hide_parameters keeps bound values out of every SQL error; PostgreSQL's own DETAIL line may still
    quote a row ("Key (token)=(…)"), which the log filter masks."""
    import os

    from bot.store.db import normalize_url

    urls = [f"sqlite:///{tmp_path / 'h.sqlite3'}"]
    if os.environ.get("TEST_DATABASE_URL"):
        urls.append(normalize_url(pg_url()))
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactSecrets([]))
    log = logging.getLogger("tracedrill.test.sql")
    log.addHandler(handler)
    log.propagate = False
    try:
        for url in urls:
            db = Database(url)  # the app's own engine factory
            try:
                with db.engine.connect() as c:
                    c.execute(text("CREATE TEMP TABLE secrets_probe (token VARCHAR(64) PRIMARY KEY, n INT)"))
                    c.execute(text("INSERT INTO secrets_probe VALUES (:t, :n)"), {"t": "xoxb-1-in-a-row", "n": 1})
                    with pytest.raises(IntegrityError) as err:
                        c.execute(
                            text("INSERT INTO secrets_probe VALUES (:t, :n)"), {"t": "xoxb-1-in-a-row", "n": 2024}
                        )
                    assert "[SQL parameters hidden due to hide_parameters=True]" in str(err.value)
                    assert "2024" not in str(err.value)
                    try:
                        raise err.value
                    except IntegrityError:
                        log.exception("installation insert failed")
                    c.rollback()
            finally:
                db.dispose()
    finally:
        log.removeHandler(handler)
    assert "IntegrityError" in stream.getvalue()
    assert "xoxb-1" not in stream.getvalue()


async def test_expired_oauth_states_and_old_delivery_keys_are_purged(database: Database) -> None:
    states = ThreadedStateStore(database.engine, expiration_seconds=600)
    fresh = await states.async_issue()
    stale = await states.async_issue()
    table = states.store.oauth_states
    long_ago = datetime(2020, 1, 1, tzinfo=UTC).replace(tzinfo=None)  # slack_sdk's column is naive UTC
    with database.engine.begin() as c:
        c.execute(table.update().where(table.c.state == stale).values(expire_at=long_ago))
    assert await states.purge_expired() == 1
    assert await states.async_consume(fresh), "a live state survives and still works"

    chat, clock = FakeChat(), Clock(datetime.now(UTC))
    e = engine_for(database, chat, clock)
    with database.session() as s:
        ws = repo.workspace(s, "slack", "T1", "", clock())
        s.add_all(
            [
                DeliveryKey(key="old", workspace_id=ws.id, created_at=clock() - timedelta(days=3)),
                DeliveryKey(key="new", workspace_id=ws.id, created_at=clock() - timedelta(hours=1)),
            ]
        )
    sched = DrillScheduler(e, database.engine)
    try:
        assert await sched.become_leader()  # the leader runs maintenance when it starts, then hourly
        with database.session() as s:
            assert list(s.scalars(select(DeliveryKey.key))) == ["new"]
    finally:
        await sched.stop()
        jobs.unbind()
