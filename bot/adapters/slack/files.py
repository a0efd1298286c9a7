"""Downloading a file someone shared, with the bot token: only from Slack's own file hosts.

The token goes with the request, so the URL must be Slack's (files.slack.com, or GovSlack's): never a host a
file object names, never a redirect (aiohttp would follow it with the token), never an external file (a
Google Drive or Dropbox link shared into Slack). Short timeouts: a stalled host can't hold a worker.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from ...analyze.service import AnalysisError

TIMEOUT = aiohttp.ClientTimeout(total=60, connect=5, sock_connect=5, sock_read=15)
_DEFAULT_PORTS = {"https": 443, "http": 80}


def _origin(url: str) -> tuple[str, str, int | None] | None:
    try:
        u = urlsplit(url)
        port = u.port or _DEFAULT_PORTS.get(u.scheme)
    except ValueError:
        return None
    if u.username is not None or u.password is not None or not u.hostname:
        return None
    return u.scheme, u.hostname.lower(), port


def on_slack_host(url: str, hosts: Sequence[str]) -> bool:
    """True if `url` is on one of `hosts` (origins such as "https://files.slack.com"): scheme, host and port."""
    origin = _origin(url)
    return origin is not None and origin in {_origin(h) for h in hosts}


async def download_shared_file(
    file: dict[str, Any], token: str, hosts: Sequence[str], check_size: Callable[[str, int], None]
) -> bytes:
    """The file's bytes, or AnalysisError with one line fit for the person who asked."""
    name = str(file.get("name", "the file"))
    if file.get("is_external") or file.get("mode") == "external":
        kind = file.get("external_type") or "another service"
        raise AnalysisError(f"{name} is a link to {kind}; upload the trace file itself to Slack")
    url = str(file.get("url_private_download") or file.get("url_private") or "")
    if not on_slack_host(url, hosts):
        raise AnalysisError(f"{name} is not stored on Slack's file host; upload the trace file itself to Slack")
    check_size(name, int(file.get("size", 0) or 0))
    try:
        async with (
            aiohttp.ClientSession(timeout=TIMEOUT) as session,
            session.get(url, headers={"Authorization": f"Bearer {token}"}, allow_redirects=False) as resp,
        ):
            if 300 <= resp.status < 400:
                raise AnalysisError(f"{name}: Slack redirected the download elsewhere; refused")
            if resp.status != 200:
                raise AnalysisError(f"{name}: Slack would not hand over the file (HTTP {resp.status})")
            data = bytearray()
            async for chunk in resp.content.iter_chunked(2**16):
                data += chunk
                check_size(name, len(data))  # never hold more than the limit, whatever Slack said
            return bytes(data)
    except TimeoutError:
        raise AnalysisError(f"{name}: the download from Slack timed out; try again") from None
    except aiohttp.ClientError as exc:
        raise AnalysisError(f"{name}: the download from Slack failed ({type(exc).__name__})") from None
