-- The owner's conversation log and the language gaps of the site's content.
--
-- A conversation row carries what the log lists, kept by every turn in the turn's
-- own transaction (the row is locked there): its language (the first turn's),
-- the number of turns and four flags OR-ed over its turns. Listing never opens a
-- sealed turn and never scans the turns table. `created_at` is when it started,
-- `updated_at` its last turn; the log is ordered by start, which never moves.
--
-- A turn gains two flags (the visitor had left contacts; memories were forgotten)
-- and its grounding class: own (documents in the visitor's language were shown),
-- other (only another language's documents), none (nothing but the pinned
-- entries); NULL for turns stored before this migration, whose class is unknown.
-- None of these hold a customer's words, so they are plain columns; the sources
-- shown go inside the sealed content, which may now exceed a BLOB's 64 KB.

ALTER TABLE rtac_conversations ADD COLUMN lang VARCHAR(16) NOT NULL DEFAULT '';

ALTER TABLE rtac_conversations ADD COLUMN turn_count INT UNSIGNED NOT NULL DEFAULT 0;

-- The seq of its last turn: the next turn's number, read from the row the turn has
-- locked (turn_count may be less once turns past retention are gone).
ALTER TABLE rtac_conversations ADD COLUMN last_seq INT UNSIGNED NOT NULL DEFAULT 0;

ALTER TABLE rtac_conversations ADD COLUMN unanswered TINYINT(1) NOT NULL DEFAULT 0;

ALTER TABLE rtac_conversations ADD COLUMN degraded TINYINT(1) NOT NULL DEFAULT 0;

ALTER TABLE rtac_conversations ADD COLUMN lead_captured TINYINT(1) NOT NULL DEFAULT 0;

ALTER TABLE rtac_conversations ADD COLUMN forgot TINYINT(1) NOT NULL DEFAULT 0;

-- Newest first within a site, and within a site's language: a page is an index range,
-- and the retention and flag filters are decided from the index entries alone (the
-- page's ids are chosen without reading a row, then only those rows are read).
ALTER TABLE rtac_conversations
  ADD KEY ix_conversation_log (site_id, created_at, id, updated_at, unanswered, degraded, lead_captured, forgot);

ALTER TABLE rtac_conversations
  ADD KEY ix_conversation_log_lang (site_id, lang, created_at, id, updated_at, unanswered, degraded, lead_captured,
                                    forgot);

ALTER TABLE rtac_turns ADD COLUMN lead_captured TINYINT(1) NOT NULL DEFAULT 0;

ALTER TABLE rtac_turns ADD COLUMN forgot TINYINT(1) NOT NULL DEFAULT 0;

ALTER TABLE rtac_turns ADD COLUMN grounding VARCHAR(8) NULL;

ALTER TABLE rtac_turns MODIFY content_enc MEDIUMBLOB NOT NULL;

-- The owner's language statistics: the site's turns within retention, counted by
-- language and grounding class from the index alone, in its order (no temporary table).
ALTER TABLE rtac_turns ADD KEY ix_turn_site_grounding (site_id, lang, grounding, created_at, unanswered);

-- Conversations stored before: what their turns' plain columns tell (whether the
-- visitor had left contacts or memories were forgotten was not recorded).
UPDATE rtac_conversations c
  JOIN (SELECT conversation_id, COUNT(*) AS n, MAX(seq) AS last_seq, MAX(unanswered) AS u, MAX(degraded) AS d,
               MIN(seq) AS first_seq
        FROM rtac_turns GROUP BY conversation_id) s ON s.conversation_id = c.id
  JOIN rtac_turns f ON f.conversation_id = s.conversation_id AND f.seq = s.first_seq
  SET c.turn_count = s.n, c.last_seq = s.last_seq, c.unanswered = s.u, c.degraded = s.d, c.lang = f.lang;
