"""Platform adapters: each translates its platform's events to core calls and implements ChatPort."""
