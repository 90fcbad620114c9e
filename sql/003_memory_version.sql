-- A counter bumped by every memory write of a space, in the same transaction: a
-- process may keep a space's opened embeddings while the counter it read is current.
ALTER TABLE rtac_spaces ADD COLUMN memory_version INT UNSIGNED NOT NULL DEFAULT 0;
