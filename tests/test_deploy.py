"""Deploying as users do: `serve` configured by the environment alone, the health endpoints, the container files,
the lock, and migrations that ship inside the wheel."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest
import yaml
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from dockerfile_parse import DockerfileParser

from bot.app import plan_serve
from bot.health import Health
from bot.settings import ServeSettings
from bot.store.db import Database
from bot.store.migrate import upgrade

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get_json(url: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


# --- what `serve` runs, from the environment and flags ---


def test_environment_alone_selects_platform_and_http_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEDRILL_PLATFORM", "slack,discord")
    monkeypatch.setenv("TRACEDRILL_HTTP_PORT", "4100")
    plan = plan_serve(ServeSettings())
    assert plan.platforms == ["slack", "discord"]
    assert plan.http is True
    assert plan.port == 4100


def test_flags_override_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEDRILL_PLATFORM", "slack")
    monkeypatch.setenv("TRACEDRILL_HTTP_PORT", "4100")
    plan = plan_serve(ServeSettings(), platforms="discord", http=False, health_port=9000)
    assert plan.platforms == ["discord"]
    assert plan.http is False
    assert plan.health_port == 9000


def test_without_http_port_slack_uses_socket_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TRACEDRILL_PLATFORM", "TRACEDRILL_HTTP_PORT", "TRACEDRILL_HEALTH_PORT"):
        monkeypatch.delenv(name, raising=False)
    plan = plan_serve(ServeSettings())
    assert (plan.platforms, plan.http, plan.health_port) == (["slack"], False, None)


# --- the endpoints ---


async def _client(health: Health) -> TestClient:  # type: ignore[type-arg]
    app = web.Application()
    health.add_routes(app)
    client: TestClient = TestClient(TestServer(app))  # type: ignore[type-arg]
    await client.start_server()
    return client


async def test_ready_when_database_is_at_head_and_platforms_are_connected(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    upgrade(db)
    health = Health(db.engine, is_leader=lambda: True, platforms={"slack": lambda: True})
    client = await _client(health)
    try:
        for path in ("/healthz", "/readyz"):
            response = await client.get(path)
            body = await response.json()
            assert response.status == 200, body
            assert body["database"]["reachable"] is True
            assert body["database"]["at_head"] is True
            assert body["database"]["revision"] == body["database"]["head"]
            assert body["scheduler"] == "leader"
            assert body["platforms"] == {"slack": True}
    finally:
        await client.close()
        db.dispose()


async def test_not_ready_before_migrations_or_while_a_platform_is_down(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'empty.sqlite3'}")
    connected = {"up": True}
    health = Health(db.engine, is_leader=lambda: False, platforms={"discord": lambda: connected["up"]})
    client = await _client(health)
    try:
        live = await client.get("/healthz")
        body = await live.json()
        assert live.status == 200  # alive, and says why it can't serve
        assert body["database"] == {
            "reachable": True,
            "revision": None,
            "head": body["database"]["head"],
            "at_head": False,
            "error": None,
        }
        assert body["scheduler"] == "follower"
        assert (await client.get("/readyz")).status == 503
        upgrade(db)
        assert (await client.get("/readyz")).status == 200
        connected["up"] = False
        response = await client.get("/readyz")
        assert response.status == 503
        assert (await response.json())["platforms"] == {"discord": False}
    finally:
        await client.close()
        db.dispose()


async def test_unreachable_database_is_reported_not_raised() -> None:
    from sqlalchemy import create_engine

    engine = create_engine(f"postgresql+psycopg://nobody@127.0.0.1:{free_port()}/none?connect_timeout=1")
    health = Health(engine, is_leader=lambda: False)
    client = await _client(health)
    try:
        response = await client.get("/readyz")
        body = await response.json()
        assert response.status == 503
        assert body["database"]["reachable"] is False
        assert body["database"]["error"] == "OperationalError"
    finally:
        await client.close()
        engine.dispose()


def test_serve_from_the_environment_answers_healthz(tmp_path: Path) -> None:
    """The issue's check: only these five variables set, `tracedrill serve` answers /healthz with the DB's state."""
    port = free_port()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "MPLBACKEND": "Agg",
        "TRACEDRILL_PLATFORM": "slack",
        "TRACEDRILL_HTTP_PORT": str(port),
        "SLACK_BOT_TOKEN": "xoxb-0-test",
        "SLACK_SIGNING_SECRET": "a-signing-secret",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}",
    }
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "serve"], env=env, cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 60
        status, body = 0, {}
        while time.monotonic() < deadline:
            assert proc.poll() is None, log.read_text()
            try:
                status, body = get_json(f"http://127.0.0.1:{port}/healthz")
                break
            except OSError:
                time.sleep(0.2)
        assert status == 200
        assert body["database"]["reachable"] is True
        assert body["database"]["at_head"] is True
        assert body["scheduler"] == "leader"
        assert body["platforms"] == {"slack": True}
        check = subprocess.run(
            [sys.executable, "-m", "bot.cli", "healthcheck"], env=env, capture_output=True, text=True, timeout=30
        )
        assert check.returncode == 0, check.stderr
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_healthcheck_fails_with_one_line_when_nothing_answers(tmp_path: Path) -> None:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "TRACEDRILL_HEALTH_PORT": str(free_port()),
    }
    check = subprocess.run(
        [sys.executable, "-m", "bot.cli", "healthcheck"], env=env, capture_output=True, text=True, timeout=30
    )
    assert check.returncode == 1
    assert len(check.stderr.strip().splitlines()) == 1
    assert "no answer on port" in check.stderr


# --- container files, statically (no registry is reachable from here to build them) ---


def test_dockerfile_passes_hadolint() -> None:
    hadolint = Path(sys.executable).parent / "hadolint"
    result = subprocess.run([str(hadolint), str(ROOT / "Dockerfile")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_is_multistage_pinned_locked_non_root_with_healthcheck() -> None:
    parser = DockerfileParser(path=str(ROOT / "Dockerfile"))
    froms = [i["value"] for i in parser.structure if i["instruction"] == "FROM"]
    assert len(froms) >= 2, "multi-stage"
    for image in froms:
        tag = image.split()[0].split(":")[1]
        assert tag[0].isdigit() and tag.count(".") >= 2, f"base image pinned to a patch release: {image}"
    instructions = {i["instruction"]: i["value"] for i in parser.structure}
    assert "3000" in instructions["EXPOSE"].split() and "8080" in instructions["EXPOSE"].split()
    assert "healthcheck" in instructions["HEALTHCHECK"]
    assert instructions["USER"] not in ("root", "0")
    runs = " ".join(i["value"] for i in parser.structure if i["instruction"] == "RUN")
    assert "--require-hashes" in runs and "requirements.lock" in runs


def test_compose_runs_the_bot_against_a_healthy_postgres() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    db, bot = compose["services"]["postgres"], compose["services"]["tracedrill"]
    assert db["image"].startswith("postgres:")
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    volume = db["volumes"][0].split(":")[0]
    assert volume in compose["volumes"]
    assert bot["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert "@postgres:5432/" in bot["environment"]["DATABASE_URL"]
    assert "slack,discord" in bot["environment"]["TRACEDRILL_PLATFORM"]
    assert bot["build"] == "."


def test_locks_pin_every_dependency_with_hashes() -> None:
    for name in ("requirements.lock", "requirements-dev.lock"):
        text = (ROOT / name).read_text()
        pins = [line for line in text.splitlines() if line and not line[0].isspace() and not line.startswith("#")]
        assert len(pins) > 20
        assert all("==" in line for line in pins), name
        assert text.count("--hash=sha256:") >= len(pins)
    run_pins = {
        line.split("==")[0]
        for line in (ROOT / "requirements.lock").read_text().splitlines()
        if "==" in line and not line[0].isspace()
    }
    assert {"sqlalchemy", "slack-bolt", "discord-py", "apscheduler"} <= run_pins


# --- migrations ship inside the wheel ---


@pytest.mark.slow
def test_wheel_ships_migrations_and_db_upgrade_works_from_it(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    (wheel,) = wheels.glob("tracedrill-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "bot/migrations/env.py" in names
    assert any(n.startswith("bot/migrations/versions/0001") for n in names)
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PYTHONPATH": str(site)}

    def installed(*args: str) -> subprocess.CompletedProcess[str]:
        """Python run outside the source tree, importing bot only from the unpacked wheel."""
        return subprocess.run(
            [sys.executable, *args], env=env, cwd=elsewhere, capture_output=True, text=True, timeout=120
        )

    db_file = elsewhere / "fresh.sqlite3"
    run = installed("-m", "bot.cli", "db", "upgrade", "--database-url", f"sqlite:///{db_file}")
    assert run.returncode == 0, run.stdout + run.stderr
    probe = installed("-c", "import bot.store.migrate as m; print(m.migrations_dir())")
    assert probe.stdout.strip().startswith(str(site))
    import sqlite3

    with sqlite3.connect(db_file) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"alembic_version", "drills", "attempts"} <= tables
    # The grader's data files ship too (vocabulary, rubrics), read from the installed package.
    graded = installed("-m", "bot.cli", "grade", "--signature", "straggler", "one rank is slow")
    assert graded.returncode == 0, graded.stdout + graded.stderr
    assert json.loads(graded.stdout)["signature"] == 1.0
