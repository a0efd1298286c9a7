"""Persistence: SQLAlchemy 2 models, sessions and workspace-scoped repositories."""
