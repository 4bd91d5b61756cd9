-- tracedb's one index made with the schema of a new database (indexes.sql holds the others, built after
-- the bulk load). It holds range rows only, a handful: kept up as rows arrive, it costs each row a test
-- of its kind; built at the end, it cost a scan of every row (0.06 s of a 300 MB import's 1.3 s, all of
-- it after the parse). Where a database gets it later (appended to, recorded), finishing makes it.
CREATE INDEX IF NOT EXISTS event_ranges ON event(kind, name_id) WHERE kind = {kind:range};  -- steps and named ranges
