"""Slack: slack-bolt AsyncApp (HTTP or Socket Mode) translating Slack events to core calls."""
