-- rtac core schema. MySQL 5.7+ / MariaDB 10.4+, InnoDB, utf8mb4.
-- Every row carries its site; composite foreign keys make a row of one site
-- unable to point at another site's parent.

CREATE TABLE IF NOT EXISTS rtac_sites (
  id            VARCHAR(64)   NOT NULL,
  secret_enc    VARBINARY(255) NOT NULL,  -- HMAC secret, sealed with the master key
  wrapped_key   VARBINARY(255) NOT NULL,  -- site data key (unanswered questions), wrapped by the master key
  key_id        VARBINARY(16) NOT NULL,   -- which master key wrapped it
  default_lang  VARCHAR(16)   NOT NULL DEFAULT 'en',
  created_at    DATETIME      NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- A space is one customer of one site: (site, identity). The identity is stored
-- only as a keyed hash; the space key encrypts everything the customer said.
CREATE TABLE IF NOT EXISTS rtac_spaces (
  id             BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  site_id        VARCHAR(64)    NOT NULL,
  identity_hash  BINARY(32)     NOT NULL,
  wrapped_key    VARBINARY(255) NOT NULL,
  key_id         VARBINARY(16)  NOT NULL,
  created_at     DATETIME       NOT NULL DEFAULT CURRENT_TIMESTAMP,
  last_seen_at   DATETIME       NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (id),
  UNIQUE KEY uq_space_identity (site_id, identity_hash),
  UNIQUE KEY uq_space_site (site_id, id),
  CONSTRAINT fk_space_site FOREIGN KEY (site_id) REFERENCES rtac_sites (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS rtac_documents (
  id            BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  site_id       VARCHAR(64)    NOT NULL,
  source        VARCHAR(64)    NOT NULL,  -- WordPress post type
  source_id     VARCHAR(64)    NOT NULL,  -- WordPress post ID
  lang          VARCHAR(16)    NOT NULL,
  title         VARCHAR(512)   NOT NULL,
  url           VARCHAR(2048)  NOT NULL,
  modified      DATETIME       NULL,
  content_hash  BINARY(32)     NOT NULL,
  updated_at    DATETIME       NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (id),
  UNIQUE KEY uq_document_source (site_id, source, source_id),
  UNIQUE KEY uq_document_site (site_id, id),
  CONSTRAINT fk_document_site FOREIGN KEY (site_id) REFERENCES rtac_sites (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- `content` is what the model is shown; `search_text` is what FULLTEXT indexes:
-- the title and content lower-cased, stemmed in the chunk's language, CJK split
-- into bigrams and short tokens padded past innodb_ft_min_token_size.
CREATE TABLE IF NOT EXISTS rtac_chunks (
  id           BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  site_id      VARCHAR(64)    NOT NULL,
  document_id  BIGINT UNSIGNED NOT NULL,
  lang         VARCHAR(16)    NOT NULL,
  seq          INT UNSIGNED   NOT NULL,
  content      MEDIUMTEXT     NOT NULL,
  search_text  MEDIUMTEXT     NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uq_chunk_seq (document_id, seq),
  KEY ix_chunk_site_lang (site_id, lang),
  FULLTEXT KEY ft_chunk_search (search_text),
  CONSTRAINT fk_chunk_document FOREIGN KEY (site_id, document_id)
    REFERENCES rtac_documents (site_id, id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS rtac_conversations (
  id          CHAR(32)        NOT NULL,
  site_id     VARCHAR(64)     NOT NULL,
  space_id    BIGINT UNSIGNED NOT NULL,
  created_at  DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at  DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (id),
  UNIQUE KEY uq_conversation_scope (site_id, space_id, id),
  KEY ix_conversation_updated (updated_at),
  CONSTRAINT fk_conversation_space FOREIGN KEY (site_id, space_id)
    REFERENCES rtac_spaces (site_id, id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- One row per visitor message and its reply; both sealed with the space key,
-- the row's identity (site, space, conversation, seq) as associated data.
CREATE TABLE IF NOT EXISTS rtac_turns (
  id               BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  site_id          VARCHAR(64)     NOT NULL,
  space_id         BIGINT UNSIGNED NOT NULL,
  conversation_id  CHAR(32)        NOT NULL,
  seq              INT UNSIGNED    NOT NULL,
  lang             VARCHAR(16)     NOT NULL,
  content_enc      BLOB            NOT NULL,
  action           VARCHAR(32)     NOT NULL,
  unanswered       TINYINT(1)      NOT NULL DEFAULT 0,
  degraded         TINYINT(1)      NOT NULL DEFAULT 0,
  provider         VARCHAR(32)     NOT NULL,
  model            VARCHAR(128)    NOT NULL,
  created_at       DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (id),
  UNIQUE KEY uq_turn_seq (conversation_id, seq),
  KEY ix_turn_site_created (site_id, created_at),
  CONSTRAINT fk_turn_conversation FOREIGN KEY (site_id, space_id, conversation_id)
    REFERENCES rtac_conversations (site_id, space_id, id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Usage of every model call, chat or otherwise. Not customer data: kept after a
-- space is erased (turn_id is then NULL) so the owner's cost figures stay true.
CREATE TABLE IF NOT EXISTS rtac_usage (
  id                           BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  site_id                      VARCHAR(64)     NOT NULL,
  turn_id                      BIGINT UNSIGNED NULL,
  purpose                      VARCHAR(16)     NOT NULL DEFAULT 'chat',
  provider                     VARCHAR(32)     NOT NULL,
  model                        VARCHAR(128)    NOT NULL,
  input_tokens                 INT UNSIGNED    NOT NULL DEFAULT 0,
  output_tokens                INT UNSIGNED    NOT NULL DEFAULT 0,
  cache_read_input_tokens      INT UNSIGNED    NOT NULL DEFAULT 0,
  cache_creation_input_tokens  INT UNSIGNED    NOT NULL DEFAULT 0,
  cost_usd                     DECIMAL(14,8)   NOT NULL DEFAULT 0,
  uncached_cost_usd            DECIMAL(14,8)   NOT NULL DEFAULT 0,
  created_at                   DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (id),
  KEY ix_usage_site_created (site_id, created_at),
  KEY ix_usage_turn (turn_id),
  CONSTRAINT fk_usage_site FOREIGN KEY (site_id) REFERENCES rtac_sites (id) ON DELETE CASCADE,
  CONSTRAINT fk_usage_turn FOREIGN KEY (turn_id) REFERENCES rtac_turns (id) ON DELETE SET NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Questions the site could not answer, grouped by a keyed hash of the normalised
-- question (the text itself is sealed with the site key).
CREATE TABLE IF NOT EXISTS rtac_unanswered (
  id             BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  site_id        VARCHAR(64)     NOT NULL,
  question_hash  BINARY(32)      NOT NULL,
  question_enc   BLOB            NOT NULL,
  lang           VARCHAR(16)     NOT NULL,
  page_url       VARCHAR(2048)   NOT NULL DEFAULT '',
  count          INT UNSIGNED    NOT NULL DEFAULT 1,
  first_asked    DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  last_asked     DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  status         VARCHAR(16)     NOT NULL DEFAULT 'open',
  PRIMARY KEY (id),
  UNIQUE KEY uq_unanswered_question (site_id, question_hash),
  KEY ix_unanswered_status (site_id, status, last_asked),
  CONSTRAINT fk_unanswered_site FOREIGN KEY (site_id) REFERENCES rtac_sites (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Request nonces, shared by every worker and host that uses this database.
CREATE TABLE IF NOT EXISTS rtac_nonces (
  site_id  VARCHAR(64)  NOT NULL,
  nonce    VARCHAR(128) NOT NULL,
  seen_at  DATETIME     NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (site_id, nonce),
  KEY ix_nonce_seen (seen_at),
  CONSTRAINT fk_nonce_site FOREIGN KEY (site_id) REFERENCES rtac_sites (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
