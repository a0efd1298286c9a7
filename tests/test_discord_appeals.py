"""Hints and appeals through the real discord.py client (interactions from raw payloads) against the fake Discord
API, on SQLite and PostgreSQL: Hint button → ephemeral hint; feedback's "Appeal this grade" → modal →
/trace-appeals and /trace-rule by a reviewer → the appellant's DM, the board moved."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import select

from bot.drills.hints import HINT_COSTS
from bot.store.models import Appeal, Attempt

from .fakes.discord_api import APP_ID
from .test_appeals import MISSED
from .test_discord import (
    GOOD,
    MANAGE_GUILD,
    Harness,
    _posted_drill,
    command,
    discord_env,  # noqa: F401  (fixture)
    interaction,
    message_payload,
)


def _with_buttons(message: dict[str, Any], *custom_ids: str) -> dict[str, Any]:
    message["components"] = [
        {"type": 1, "components": [{"type": 2, "style": 2, "label": "b", "custom_id": c} for c in custom_ids]}
    ]
    return message


def _rule(appeal: int, part: str, decision: str, **extra: str) -> dict[str, Any]:
    options: list[dict[str, Any]] = [
        {"name": "appeal", "type": 4, "value": appeal},
        {"name": "part", "type": 3, "value": part},
        {"name": "decision", "type": 3, "value": decision},
    ]
    options += [{"name": k, "type": 3, "value": v} for k, v in extra.items()]
    return {"id": "778", "name": "trace-rule", "type": 1, "guild_id": "1", "options": options}


async def _answer(h: Harness, drill_id: int, message_id: str, user: str, text: str) -> dict[str, Any]:
    press = h.send(
        interaction(
            3,
            {"custom_id": f"tracedrill:submit:{drill_id}", "component_type": 2},
            user=user,
            message=message_payload(message_id, drill_id),
        )
    )
    await h.api.wait_for("POST", f"/interactions/{press['id']}/")
    submit = h.send(
        interaction(
            5,
            {
                "custom_id": f"tracedrill:modal:{drill_id}",
                "components": [
                    {"type": 1, "components": [{"type": 4, "custom_id": "tracedrill:answer", "value": text}]}
                ],
            },
            user=user,
        )
    )
    await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{submit['token']}")
    return submit


async def _followup(h: Harness, payload: dict[str, Any], count: int = 1) -> str:
    calls = await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{payload['token']}", count)
    return str(calls[-1].json["content"])  # type: ignore[index]


async def test_hint_button_appeal_modal_reviewer_ruling_and_dm(discord_env: Harness) -> None:  # noqa: F811
    h = discord_env
    h.send(interaction(2, command("trace", signature="straggler")))
    drill_id, message_id = await _posted_drill(h)
    post = (await h.api.wait_for("POST", "/channels/500/messages"))[0]
    buttons = [c["custom_id"] for row in post.json["components"] for c in row["components"]]  # type: ignore
    assert f"tracedrill:hint:{drill_id}" in buttons

    message = _with_buttons(
        message_payload(message_id, drill_id), f"tracedrill:submit:{drill_id}", f"tracedrill:hint:{drill_id}"
    )
    press = h.send(
        interaction(3, {"custom_id": f"tracedrill:hint:{drill_id}", "component_type": 2}, user="42", message=message)
    )
    hint = await _followup(h, press)
    assert f"Hint 1 for drill #{drill_id} (−{HINT_COSTS[0]} points)" in hint
    assert "straggl" not in hint.lower()

    ana = await _answer(h, drill_id, message_id, "42", MISSED)
    await _answer(h, drill_id, message_id, "43", GOOD)
    h.clock.advance(121)
    assert await h.engine.reveal(drill_id)
    scores = next(
        c.json["content"]
        for c in h.api.of("POST", f"/channels/{message_id}/messages")  # type: ignore
        if "Scores" in str((c.json or {}).get("content"))
    )
    assert "User 42" in scores and "· hinted" in scores.split("User 42", 1)[1].splitlines()[0]
    feedback = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{ana['token']}", 2))[-1].json
    assert "your grade" in feedback["content"]  # type: ignore[index]
    assert feedback["flags"] & 64  # type: ignore[index]
    appeal_button = feedback["components"][0]["components"][0]  # type: ignore[index]
    assert appeal_button["custom_id"] == f"tracedrill:appeal:{drill_id}"

    fb_message = _with_buttons(message_payload("88001", drill_id), f"tracedrill:appeal:{drill_id}")
    press = h.send(
        interaction(
            3, {"custom_id": f"tracedrill:appeal:{drill_id}", "component_type": 2}, user="42", message=fb_message
        )
    )
    modal = (await h.api.wait_for("POST", f"/interactions/{press['id']}/"))[0].json
    assert modal["type"] == 9  # type: ignore[index]
    assert modal["data"]["custom_id"] == f"tracedrill:appealmodal:{drill_id}"  # type: ignore[index]

    async def appeal_submit(part: str, reason: str) -> dict[str, Any]:
        again = h.send(
            interaction(
                3, {"custom_id": f"tracedrill:appeal:{drill_id}", "component_type": 2}, user="42", message=fb_message
            )
        )  # a modal is answered once: open it anew
        await h.api.wait_for("POST", f"/interactions/{again['id']}/")
        return h.send(
            interaction(
                5,
                {
                    "custom_id": f"tracedrill:appealmodal:{drill_id}",
                    "components": [
                        {"type": 1, "components": [{"type": 4, "custom_id": "tracedrill:appeal:part", "value": part}]},
                        {
                            "type": 1,
                            "components": [{"type": 4, "custom_id": "tracedrill:appeal:reason", "value": reason}],
                        },
                    ],
                },
                user="42",
            )
        )

    assert "Part must be one of" in await _followup(h, await appeal_submit("everything", "it is right"))
    opened = await _followup(h, await appeal_submit("all", "tortoise = one slow rank @everyone"))
    assert "is open" in opened
    with h.db.session() as s:
        appeal_id = s.scalars(select(Appeal.id)).one()

    listing = h.send(interaction(2, command("trace-appeals"), user="43"))
    assert "Only reviewers" in await _followup(h, listing)
    listing = h.send(interaction(2, command("trace-appeals"), user="7", permissions=MANAGE_GUILD))
    text = await _followup(h, listing)
    assert f"#{appeal_id} · drill #{drill_id}" in text and "User 42" in text

    denied = h.send(interaction(2, _rule(appeal_id, "signature", "accept"), user="43"))
    assert "Only reviewers" in await _followup(h, denied)
    own = h.send(interaction(2, _rule(appeal_id, "signature", "accept"), user="42", permissions=MANAGE_GUILD))
    assert "own appeal" in await _followup(h, own)
    for part in ("signature", "measurement", "fix"):
        ruled = h.send(
            interaction(
                2, _rule(appeal_id, part, "accept", credit="1", note="fair"), user="7", permissions=MANAGE_GUILD
            )
        )
        assert f"{part} accepted" in await _followup(h, ruled)
    for _ in range(500):  # the DM follows the reviewer's receipt: wait for it, as a person would
        dms = [c for c in h.api.of("POST", "/messages") if "was accepted" in str((c.json or {}).get("content"))]
        if len(dms) >= 3:
            break
        await asyncio.sleep(0.02)
    assert len(dms) == 3
    assert not any(
        c.path.startswith(f"/webhooks/{APP_ID}/{ana['token']}") and "was accepted" in str((c.json or {}).get("content"))
        for c in h.api.calls
    ), "the ruling goes by DM"
    assert dms[0].json["allowed_mentions"] == {"parse": []}  # type: ignore[index]
    with h.db.session() as s:
        attempt = s.scalars(select(Attempt).where(Attempt.answer_text == MISSED)).one()
        assert attempt.score == 1.0
    board = h.send(interaction(2, command("trace-leaderboard", period="all")))
    assert f"User 42 — {attempt.points} pts" in await _followup(h, board)
    assert attempt.points >= 90 - HINT_COSTS[0]
