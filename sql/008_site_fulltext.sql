-- Each site's FULLTEXT index of its own (sidecar/fulltext.py).
--
-- InnoDB's natural-language ranking reads and scores every matching posting of the
-- whole index before a WHERE on site_id applies, so in one index shared by every
-- site a small site's retrieval pays for the biggest site's text. InnoDB FULLTEXT
-- cannot be partitioned; instead each site's chunks' search text is kept, in the
-- same transaction as the chunks, in a table of its own: rtac_ft_<ft_shard>
-- (chunk_id, site_id, lang, search_text) with its own FULLTEXT index and a foreign
-- key to its chunk (a chunk deleted takes its row with it). Those tables are
-- created by the code (a site added, a site's first write, `rtac init-db`), never
-- named after the site id: only after this number.
--
-- ft_shard: the site's table number, given by the server, so two sidecars adding
-- sites at once never pick the same one; existing sites are numbered here.
-- ft_ready: 1 when the site's table holds every chunk of the site (a site added by
-- this release, or filled by `rtac init-db`); until then the site is searched in
-- rtac_chunks' shared FULLTEXT index, as before.

ALTER TABLE rtac_sites ADD COLUMN ft_shard INT UNSIGNED NOT NULL AUTO_INCREMENT,
  ADD UNIQUE KEY uq_site_ft_shard (ft_shard);

ALTER TABLE rtac_sites ADD COLUMN ft_ready TINYINT(1) NOT NULL DEFAULT 0;
