-- How many sentences of a turn's reply the price check repaired (0: the model's
-- amounts all stood), so the owner sees how often the check had to step in.
ALTER TABLE rtac_usage ADD COLUMN price_corrections SMALLINT UNSIGNED NOT NULL DEFAULT 0;
