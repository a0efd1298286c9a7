"""APScheduler wiring: cron per channel and group, reveal jobs, the leader lock, the startup sweep."""
