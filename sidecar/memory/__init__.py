"""Per-customer memory: derived from what the customer said, grounded, deduplicated, forgettable."""
