-- The memory worker's sweep of rows an earlier recipe embedded (sidecar/memory/
-- reembed.py) asks, pass after pass, which spaces still hold rows of one model:
-- without this index each pass reads every memory of every site.
ALTER TABLE rtac_memories ADD KEY ix_memory_model (embed_model, site_id, space_id);
