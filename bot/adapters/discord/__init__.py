"""Discord: discord.py 2.7 app commands, persistent buttons, modals and threaded reveals."""
