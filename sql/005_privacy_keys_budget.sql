-- Who asked each unanswered question, a site's previous signing secret during a
-- grace period, a site's own daily spending cap, and the indexes that keep the
-- spending check and the purge of idle spaces to an index range.
--
-- rtac_unanswered_askers: one row per asking by a known customer (space), so the
-- customer's export lists the questions they asked and erasing them takes their
-- askings away (the question itself when nobody else asked it). No customer text
-- here: the question stays sealed with the site key in rtac_unanswered. Questions
-- recorded before this migration have no known askers: their counts stand for
-- other customers, so no erasure takes them away.

ALTER TABLE rtac_unanswered ADD UNIQUE KEY uq_unanswered_site (site_id, id);

CREATE TABLE IF NOT EXISTS rtac_unanswered_askers (
  id             BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  site_id        VARCHAR(64)     NOT NULL,
  unanswered_id  BIGINT UNSIGNED NOT NULL,
  space_id       BIGINT UNSIGNED NOT NULL,
  lang           VARCHAR(16)     NOT NULL,
  asked_at       DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (id),
  KEY ix_asker_question (site_id, unanswered_id),
  KEY ix_asker_space (site_id, space_id, asked_at),
  CONSTRAINT fk_asker_question FOREIGN KEY (site_id, unanswered_id)
    REFERENCES rtac_unanswered (site_id, id) ON DELETE CASCADE,
  CONSTRAINT fk_asker_space FOREIGN KEY (site_id, space_id)
    REFERENCES rtac_spaces (site_id, id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- After `rtac site rotate-secret` the replaced secret (sealed with the master key
-- named by the row's key_id, like the current one) is accepted until it expires.
ALTER TABLE rtac_sites ADD COLUMN previous_secret_enc VARBINARY(255) NULL;

ALTER TABLE rtac_sites ADD COLUMN previous_secret_expires_at DATETIME NULL;

-- The site's own cap in USD a UTC day; NULL: the sidecar's RTAC_DAILY_BUDGET_USD.
ALTER TABLE rtac_sites ADD COLUMN daily_budget_usd DECIMAL(12,4) NULL;

-- Today's estimated cost of a site, summed from the index alone on every turn.
ALTER TABLE rtac_usage ADD KEY ix_usage_site_created_cost (site_id, created_at, cost_usd);

-- Idle spaces are found (and locked) by an index range, not a table scan.
ALTER TABLE rtac_spaces ADD KEY ix_space_last_seen (last_seen_at);

-- `rtac rotate-master-key` finds the spaces still under an old master key by range.
ALTER TABLE rtac_spaces ADD KEY ix_space_key (key_id);
