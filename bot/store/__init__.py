"""Persistence: SQLAlchemy 2 models, sessions and workspace-scoped repositories."""

# Every table on Base.metadata (Alembic, create_all) whichever store module is imported first: the interview-prep
# tables live in their own module, which builds on models' Base.
from . import models, prep_models

__all__ = ["models", "prep_models"]
