"""Core table objects for building queries. The DDL lives in sql/*.sql; a test
checks these columns against the migrated database so the two cannot drift."""
from sqlalchemy import (
                        BigInteger,
                        Boolean,
                        Column,
                        DateTime,
                        Float,
                        Integer,
                        LargeBinary,
                        MetaData,
                        Numeric,
                        String,
                        Table,
                        Text,
)

metadata = MetaData()

sites = Table(
    "rtac_sites", metadata,
    Column("id", String(64), primary_key=True),
    Column("secret_enc", LargeBinary),
    Column("wrapped_key", LargeBinary),
    Column("key_id", LargeBinary),
    Column("default_lang", String(16)),
    Column("created_at", DateTime),
    Column("content_version", Integer),
    Column("previous_secret_enc", LargeBinary),
    Column("previous_secret_expires_at", DateTime),
    Column("daily_budget_usd", Numeric(12, 4)),
    Column("ft_shard", Integer),  # the number of its FULLTEXT table, rtac_ft_<n> (fulltext.py)
    Column("ft_ready", Boolean),
)

spaces = Table(
    "rtac_spaces", metadata,
    Column("id", BigInteger, primary_key=True),
    Column("site_id", String(64)),
    Column("identity_hash", LargeBinary),
    Column("wrapped_key", LargeBinary),
    Column("key_id", LargeBinary),
    Column("created_at", DateTime),
    Column("last_seen_at", DateTime),
    Column("memory_version", Integer),
)

documents = Table(
    "rtac_documents", metadata,
    Column("id", BigInteger, primary_key=True),
    Column("site_id", String(64)),
    Column("source", String(64)),
    Column("source_id", String(64)),
    Column("lang", String(16)),
    Column("title", String(512)),
    Column("url", String(2048)),
    Column("modified", DateTime),
    Column("content_hash", LargeBinary),
    Column("updated_at", DateTime),
)

chunks = Table(
    "rtac_chunks", metadata,
    Column("id", BigInteger, primary_key=True),
    Column("site_id", String(64)),
    Column("document_id", BigInteger),
    Column("lang", String(16)),
    Column("seq", Integer),
    Column("content", Text),
    Column("search_text", Text),
    Column("term_count", Integer),
    Column("search_version", Integer),
)

conversations = Table(
    "rtac_conversations", metadata,
    Column("id", String(32), primary_key=True),
    Column("site_id", String(64)),
    Column("space_id", BigInteger),
    Column("created_at", DateTime),
    Column("updated_at", DateTime),
    Column("lang", String(16)),
    Column("turn_count", Integer),
    Column("last_seq", Integer),
    Column("unanswered", Boolean),
    Column("degraded", Boolean),
    Column("lead_captured", Boolean),
    Column("forgot", Boolean),
)

turns = Table(
    "rtac_turns", metadata,
    Column("id", BigInteger, primary_key=True),
    Column("site_id", String(64)),
    Column("space_id", BigInteger),
    Column("conversation_id", String(32)),
    Column("seq", Integer),
    Column("lang", String(16)),
    Column("content_enc", LargeBinary),
    Column("action", String(32)),
    Column("unanswered", Boolean),
    Column("degraded", Boolean),
    Column("provider", String(32)),
    Column("model", String(128)),
    Column("created_at", DateTime),
    Column("lead_captured", Boolean),
    Column("forgot", Boolean),
    Column("grounding", String(8)),
)

usage = Table(
    "rtac_usage", metadata,
    Column("id", BigInteger, primary_key=True),
    Column("site_id", String(64)),
    Column("turn_id", BigInteger),
    Column("purpose", String(16)),
    Column("provider", String(32)),
    Column("model", String(128)),
    Column("input_tokens", Integer),
    Column("output_tokens", Integer),
    Column("cache_read_input_tokens", Integer),
    Column("cache_creation_input_tokens", Integer),
    Column("cost_usd", Numeric(14, 8)),
    Column("uncached_cost_usd", Numeric(14, 8)),
    Column("price_corrections", Integer),
    Column("created_at", DateTime),
)

unanswered = Table(
    "rtac_unanswered", metadata,
    Column("id", BigInteger, primary_key=True),
    Column("site_id", String(64)),
    Column("question_hash", LargeBinary),
    Column("question_enc", LargeBinary),
    Column("lang", String(16)),
    Column("page_url", String(2048)),
    Column("count", Integer),
    Column("first_asked", DateTime),
    Column("last_asked", DateTime),
    Column("status", String(16)),
)

unanswered_askers = Table(
    "rtac_unanswered_askers", metadata,
    Column("id", BigInteger, primary_key=True),
    Column("site_id", String(64)),
    Column("unanswered_id", BigInteger),
    Column("space_id", BigInteger),
    Column("lang", String(16)),
    Column("asked_at", DateTime),
)

nonces = Table(
    "rtac_nonces", metadata,
    Column("site_id", String(64), primary_key=True),
    Column("nonce", String(128), primary_key=True),
    Column("seen_at", DateTime),
)

memories = Table(
    "rtac_memories", metadata,
    Column("id", BigInteger, primary_key=True),
    Column("site_id", String(64)),
    Column("space_id", BigInteger),
    Column("uid", LargeBinary),
    Column("kind", String(8)),
    Column("topic_hash", LargeBinary),
    Column("content_enc", LargeBinary),
    Column("topic_enc", LargeBinary),
    Column("embedding_enc", LargeBinary),
    Column("embed_model", String(128)),
    Column("importance", Integer),
    Column("conversation_id", String(32)),
    Column("turn_seq", Integer),
    Column("created_at", DateTime),
    Column("updated_at", DateTime),
)

memory_jobs = Table(
    "rtac_memory_jobs", metadata,
    Column("id", BigInteger, primary_key=True),
    Column("site_id", String(64)),
    Column("space_id", BigInteger),
    Column("conversation_id", String(32)),
    Column("turn_seq", Integer),
    Column("lang", String(16)),
    Column("attempts", Integer),
    Column("next_attempt_at", DateTime),
    Column("locked_until", DateTime),
    Column("last_error", String(255)),
    Column("created_at", DateTime),
)

chunk_vectors = Table(
    "rtac_chunk_vectors", metadata,
    Column("chunk_id", BigInteger, primary_key=True),
    Column("model", String(128), primary_key=True),
    Column("site_id", String(64)),
    Column("vec", LargeBinary),
    Column("scale", Float),
    Column("created_at", DateTime),
)

chunk_jobs = Table(
    "rtac_chunk_jobs", metadata,
    Column("chunk_id", BigInteger, primary_key=True),
    Column("site_id", String(64)),
    Column("attempts", Integer),
    Column("next_attempt_at", DateTime),
    Column("locked_until", DateTime),
    Column("last_error", String(255)),
    Column("created_at", DateTime),
)

terms = Table(
    "rtac_terms", metadata,
    Column("site_id", String(64), primary_key=True),
    Column("term", String(84), primary_key=True),
    Column("df", Integer),
)

# migrate.py creates it before anything else; it records which sql/*.sql files ran.
schema_migrations = Table(
    "rtac_schema_migrations", metadata,
    Column("version", String(128), primary_key=True),
    Column("applied_at", DateTime),
)
