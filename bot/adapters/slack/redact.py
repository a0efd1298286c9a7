"""Secrets never reach the logs: a filter that masks tokens and the signing secret in every record, its
arguments and its traceback. (SQL parameters never get there: engines use hide_parameters=True.)"""

from __future__ import annotations

import logging
import re

_FORMATTER = logging.Formatter()
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

    def _clean_arg(self, a: object) -> object:
        if a is None or isinstance(a, (bool, int, float)):
            return a  # keeps %d and %.1f working
        return self._clean(a if isinstance(a, str) else str(a))

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self._clean(str(record.msg))
        if record.args:
            if isinstance(record.args, dict):
                record.args = {k: self._clean_arg(v) for k, v in record.args.items()}
            else:
                args = record.args if isinstance(record.args, tuple) else (record.args,)
                record.args = tuple(self._clean_arg(a) for a in args)
        # Tracebacks too: an exception's message (a URL with a token, a driver error) is cleaned before any
        # handler formats it; formatters reuse exc_text when it is set.
        if record.exc_info and not record.exc_text:
            record.exc_text = _FORMATTER.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self._clean(record.exc_text)
        if record.stack_info:
            record.stack_info = self._clean(record.stack_info)
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
