"""The hazard sanitizer (``gpu.dispatch(..., sanitize=True)``) and the findings it reports.

``findings`` holds the report's data type (foundation tier: the report and the command
processor build findings too); the analyses that produce them live beside it."""
