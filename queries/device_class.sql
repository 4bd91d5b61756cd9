-- device_class: whether GPU work of kind :kind named by string :name_id is computation (the import's rule,
-- tdb_device_class), for `tracedb device`'s C pass (analyzer/report/device_sweep.c); no row: no such name.
SELECT tdb_device_class(:kind, value) = 'computation' FROM string WHERE id = :name_id;
