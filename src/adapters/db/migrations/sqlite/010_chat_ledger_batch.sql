-- The chat ledger's batch function exists on PostgreSQL only (postgres/010): on SQLite the ledger's
-- writer thread runs prepared statements (services/chat/chat-ledger.sqlite.ts). Kept so that both
-- stores number their migrations alike.
SELECT 1;
