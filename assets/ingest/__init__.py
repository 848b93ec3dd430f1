"""Ingest: Collect and Process, one partition per source."""
