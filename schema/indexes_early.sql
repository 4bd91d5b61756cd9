-- tracedb's one index made with the schema of a new database (indexes.sql holds the others, built after
-- the bulk load). It holds range rows only, a handful: kept up as rows arrive, it costs each row a test
-- of its kind; built at the end, it cost a scan of every row (0.06 s of a 300 MB import's 1.3 s, all of
-- it after the parse). Where a database gets it later (appended to, recorded), finishing makes it. Its key
-- is the name alone: its rows' kind is one value, and a key holding it too made SQLite's sort compare one
-- more field of every entry (finishing a recording of 2 M ranges: 0.96-1.00 -> 0.45-0.49 s). A query finds
-- it by `kind = <range's id>` written as that constant, as before. Databases made before keep (kind, name_id).
CREATE INDEX IF NOT EXISTS event_ranges ON event(name_id) WHERE kind = {kind:range};  -- steps and named ranges
