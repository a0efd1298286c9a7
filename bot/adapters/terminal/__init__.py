"""The terminal: a real local channel behind ChatPort (solo practice and the operator CLI)."""
