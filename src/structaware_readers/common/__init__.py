"""What both packages stand on: where inputs are found and checked, input limits, the user cache, sqlite files, telemetry."""
