"""Dataset: Filter, Verify, Difficulty and the released shards, over every ingested source."""
