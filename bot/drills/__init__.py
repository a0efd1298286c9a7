"""The platform-free core: drill lifecycle, scoring policy, selection, leaderboards, study groups."""
