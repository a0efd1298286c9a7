"""`/trace analyze` on Slack: read the newest trace file this person shared in the channel, run the reading
order, post the result in the channel."""

from __future__ import annotations

from typing import Any

from ...analyze.service import TRACE_SUFFIXES, check_upload
from ...cleantext import in_code_block
from ...drills.ports import ChannelRef, UserRef
from ..common.replies import analyze_download
from .blocks import escape
from .files import download_shared_file

NO_TRACE = "Share a torch.profiler trace (.json or .json.gz) in this channel first, then run `/trace analyze`."


async def analyze_shared_trace(
    client: Any, channel: ChannelRef, user: UserRef, respond: Any, file_hosts: list[str]
) -> None:
    """Raises AnalysisError (a line for the person) when the file can't be fetched or read."""
    listing = await client.files_list(channel=channel.channel, user=user.user, count=20)
    files = [f for f in listing.get("files", []) if str(f.get("name", "")).lower().endswith(TRACE_SUFFIXES)]
    if not files:
        await respond(response_type="ephemeral", text=NO_TRACE)
        return
    newest = max(files, key=lambda f: f.get("created", 0))
    name = str(newest.get("name"))

    async def download() -> bytes:
        return await download_shared_file(newest, client.token, file_hosts, check_upload)

    result = await analyze_download(name, download)
    await respond(response_type="in_channel", text=escape(in_code_block(result.text)))
    if result.png:
        await client.files_upload_v2(
            channel=channel.channel, file=result.png, filename="analysis.png", title=f"Reading of {name}"
        )
