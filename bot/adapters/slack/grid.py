"""Enterprise Grid: the enterprise id each workspace belongs to, noted as payloads show it, so scheduled drills
and reveals (which have no payload) find the org-wide install."""

from __future__ import annotations

from ...drills.service import TeamService
from ..common.runner import Runner

PLATFORM = "slack"


class Enterprises:
    def __init__(self, service: TeamService, runner: Runner) -> None:
        self.service, self.runner = service, runner
        self.known: dict[str, str] = {}

    def note(self, team: str, enterprise: str | None) -> None:
        if enterprise and self.known.get(team) != enterprise:
            self.known[team] = enterprise
            self.runner.detach("noting the enterprise", self.service.set_enterprise(PLATFORM, team, enterprise))
