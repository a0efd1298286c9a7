"""Interview prep in chat: `/trace math …` and `/trace interview …` commands, schedules, and the services."""
