"""What the chat adapters share: the runner that does the work after the ack, and the texts both platforms send."""
