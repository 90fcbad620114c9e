-- Retrieval by meaning and a length-normalised lexical ranking.
--
-- rtac_chunk_vectors: one embedding per chunk and model (int8 components with a
-- per-vector scale: 384 bytes for e5-small instead of 1,536). Several models may
-- coexist, so `rtac reembed` fills a new model's vectors while the old ones still
-- serve. Site content, not customer data: not sealed.
-- rtac_chunk_jobs: chunks waiting for their embedding, queued in the upsert's own
-- transaction and done by a background worker; a crashed worker's claim expires.
-- rtac_terms: per-site document frequencies of the stored search text's terms,
-- kept in step with every chunk write, for BM25 over FULLTEXT's candidates.
-- content_version: bumped by every chunk or vector write of the site, so a process
-- may keep a site's opened vectors and lexical statistics while it is current.

ALTER TABLE rtac_sites ADD COLUMN content_version INT UNSIGNED NOT NULL DEFAULT 0;

ALTER TABLE rtac_chunks ADD COLUMN term_count INT UNSIGNED NOT NULL DEFAULT 0;

-- searchtext.VERSION the row's search_text was prepared with; `rtac init-db`
-- refreshes older rows (and the term counts) after an upgrade.
ALTER TABLE rtac_chunks ADD COLUMN search_version SMALLINT UNSIGNED NOT NULL DEFAULT 0;

ALTER TABLE rtac_chunks ADD UNIQUE KEY uq_chunk_site (site_id, id);

CREATE TABLE IF NOT EXISTS rtac_chunk_vectors (
  chunk_id    BIGINT UNSIGNED NOT NULL,
  model       VARCHAR(128)    NOT NULL,
  site_id     VARCHAR(64)     NOT NULL,
  vec         VARBINARY(8192) NOT NULL,
  scale       FLOAT           NOT NULL,
  created_at  DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (chunk_id, model),
  KEY ix_vector_site_model (site_id, model),
  CONSTRAINT fk_vector_chunk FOREIGN KEY (site_id, chunk_id)
    REFERENCES rtac_chunks (site_id, id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS rtac_chunk_jobs (
  chunk_id         BIGINT UNSIGNED NOT NULL,
  site_id          VARCHAR(64)     NOT NULL,
  attempts         INT UNSIGNED    NOT NULL DEFAULT 0,
  next_attempt_at  DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  locked_until     DATETIME        NULL,
  last_error       VARCHAR(255)    NULL,
  created_at       DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (chunk_id),
  KEY ix_chunk_job_due (next_attempt_at),
  KEY ix_chunk_job_site (site_id),
  CONSTRAINT fk_chunk_job_chunk FOREIGN KEY (site_id, chunk_id)
    REFERENCES rtac_chunks (site_id, id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS rtac_terms (
  site_id  VARCHAR(64)  NOT NULL,
  term     VARCHAR(84)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  df       INT UNSIGNED NOT NULL,
  PRIMARY KEY (site_id, term),
  CONSTRAINT fk_term_site FOREIGN KEY (site_id) REFERENCES rtac_sites (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Chunks stored before this migration get their embeddings from the worker.
INSERT IGNORE INTO rtac_chunk_jobs (chunk_id, site_id) SELECT id, site_id FROM rtac_chunks;
