"""SQLite storage: the connection, the named migrations, and one module per group of tables."""
