"""CLI commands: each module's ``run(args)`` parses nothing and decides nothing — it calls the library."""
