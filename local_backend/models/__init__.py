"""Request and response shapes, declared once and shared by routes, the OpenAPI schema and tests."""
