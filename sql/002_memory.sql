-- Per-customer memory: facts and topics derived from what the customer said.
-- Scoped by (site, space) through a composite foreign key: a memory cannot exist
-- outside its customer's space, and erasing the space erases it. Content, topic
-- name and embedding are sealed with the space key; `uid` is the row identity
-- bound into every seal, known before the row is inserted.

CREATE TABLE IF NOT EXISTS rtac_memories (
  id               BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  site_id          VARCHAR(64)     NOT NULL,
  space_id         BIGINT UNSIGNED NOT NULL,
  uid              BINARY(16)      NOT NULL,
  kind             VARCHAR(8)      NOT NULL,   -- fact | topic
  topic_hash       BINARY(32)      NULL,       -- keyed hash of the normalised topic name
  content_enc      BLOB            NOT NULL,
  topic_enc        BLOB            NULL,
  embedding_enc    BLOB            NOT NULL,
  embed_model      VARCHAR(128)    NOT NULL,
  importance       TINYINT UNSIGNED NOT NULL,
  conversation_id  CHAR(32)        NULL,       -- the latest session that stated it
  turn_seq         INT UNSIGNED    NULL,       -- and the message within it
  created_at       DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at       DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (id),
  UNIQUE KEY uq_memory_uid (uid),
  UNIQUE KEY uq_memory_topic (site_id, space_id, kind, topic_hash),
  KEY ix_memory_space (site_id, space_id, kind),
  CONSTRAINT fk_memory_space FOREIGN KEY (site_id, space_id)
    REFERENCES rtac_spaces (site_id, id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Extraction work queued in the turn's own transaction, done off the visitor's
-- clock and retried until it succeeds. It points at the stored turn, whose sealed
-- text it reads; a turn erased or expired takes its job with it.
CREATE TABLE IF NOT EXISTS rtac_memory_jobs (
  id               BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  site_id          VARCHAR(64)     NOT NULL,
  space_id         BIGINT UNSIGNED NOT NULL,
  conversation_id  CHAR(32)        NOT NULL,
  turn_seq         INT UNSIGNED    NOT NULL,
  lang             VARCHAR(16)     NOT NULL,
  attempts         INT UNSIGNED    NOT NULL DEFAULT 0,
  next_attempt_at  DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  locked_until     DATETIME        NULL,
  last_error       VARCHAR(255)    NULL,
  created_at       DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (id),
  KEY ix_job_due (next_attempt_at),
  CONSTRAINT fk_job_turn FOREIGN KEY (conversation_id, turn_seq)
    REFERENCES rtac_turns (conversation_id, seq) ON DELETE CASCADE,
  CONSTRAINT fk_job_space FOREIGN KEY (site_id, space_id)
    REFERENCES rtac_spaces (site_id, id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
