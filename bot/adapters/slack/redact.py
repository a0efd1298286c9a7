"""Secrets never reach the logs: a filter that masks tokens and the signing secret in every record."""

from __future__ import annotations

import logging
import re

_TOKEN = re.compile(r"xox[abposr]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+")


class RedactSecrets(logging.Filter):
    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def _clean(self, text: str) -> str:
        text = _TOKEN.sub("[redacted]", text)
        for s in self.secrets:
            text = text.replace(s, "[redacted]")
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self._clean(str(record.msg))
        if record.args:
            args = record.args if isinstance(record.args, tuple) else (record.args,)
            record.args = tuple(self._clean(a) if isinstance(a, str) else a for a in args)
        return True


def install(secrets: list[str]) -> RedactSecrets:
    f = RedactSecrets(secrets)
    for name in ("", "slack_bolt", "slack_sdk", "aiohttp.access", "bot"):
        logging.getLogger(name).addFilter(f)
    for handler in logging.getLogger().handlers:
        handler.addFilter(f)
    # Bolt logs request bodies at DEBUG when a signature fails; never run it at DEBUG in production.
    logging.getLogger("slack_bolt").setLevel(max(logging.getLogger("slack_bolt").level, logging.INFO))
    return f
