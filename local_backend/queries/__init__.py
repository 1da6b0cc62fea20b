"""Pure calculation: (connection, typed filter, clock) -> result. No HTTP, no module-level state."""
