-- report_name: a name by its id, for the HTML report's timeline events.
SELECT value FROM string WHERE id = :id;
