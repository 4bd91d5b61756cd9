/* db_guard.h: every SQLite connection tracedb opens goes through here, because every one may open a
 * database a stranger made or run SQL a stranger wrote (see db_guard.c for what is switched off). */
#ifndef TDB_DB_GUARD_H
#define TDB_DB_GUARD_H
#include <sqlite3.h>
#include <stdio.h>

/* Opens path with SQLite's flags (READONLY, or READWRITE [| CREATE]) as a defensive connection:
 * defensive mode, no fts3_tokenizer, untrusted schema, no extension loading, at most one attached
 * database, and a path that is never read as a "file:" URI. SQLITE_OK or SQLite's code; *db is
 * always set (close it). */
int tdb_db_open(const char *path, int flags, sqlite3 **db);

/* The same, running setup first (pragmas that defensive mode forbids, such as journal_mode=OFF, for a
 * database file tracedb has just created and nobody else has seen). */
int tdb_db_open_new(const char *path, int flags, const char *setup, sqlite3 **db);

/* The path as SQLite must be given it to take it literally (not as a "file:" URI): path itself, or
 * a copy starting "./" in out (of size n). */
const char *tdb_db_literal_path(const char *path, char *out, size_t n);

/* Read-only mode for SQL typed by a user: each statement must pass tdb_db_check_readonly before it
 * runs; the authorizer installed here refuses ATTACH, pragmas that set anything, and functions
 * that touch memory or files. */
void tdb_db_guard_readonly(sqlite3 *db);

/* 0 when st changes nothing (no file anywhere); else -1 with the reason in why. */
int tdb_db_check_readonly(sqlite3_stmt *st, char *why, size_t n);

/* Whether sql compiles on db (the tables and columns it names exist): how a reader tells a database
 * made before a column from one that has it. */
int tdb_db_compiles(sqlite3 *db, const char *sql);

/* path as an SQLite URI that opens it read-only ("file:...?mode=ro", every byte that is not plain
 * percent-encoded; "&immutable=1" added where path is a closed WAL-mode database, so that no -wal or
 * -shm is made beside it), for ATTACH of an input that must be neither created nor changed; in out
 * (size n). NULL when it does not fit. */
const char *tdb_db_readonly_uri(const char *path, char *out, size_t n);

/* Why a database could not be read, when it is a state of the file rather than damage: a hot journal
 * (an interrupted write that a read-only reader may not roll back) or a write-ahead log that needs
 * recovery; in buf (size n). NULL when it is none of these (then sqlite3_errmsg says it). */
const char *tdb_db_unreadable_why(sqlite3 *db, const char *path, char *buf, size_t n);

/* Rolls back what a failed write left in path (a hot journal, after an append that met a full disk or
 * ulimit -f: SQLite leaves its rollback to the next connection) by opening it read-write once, so the
 * database is as it was before the write as soon as the writer has failed. 0, or SQLite's code. */
int tdb_db_recover(const char *path);

/* sqlite3_errmsg, with the system's reason for a failed write in words ("disk full", "file too
 * large (...ulimit -f)") when there is one; in buf (size n). */
const char *tdb_db_errmsg(sqlite3 *db, char *buf, size_t n);

/* Whether database schema ("main", or an attached one's name) holds one of the tables schema.sql makes
 * as something else: a view, whose query may run for ever however small the file (a recursive one), or
 * take a table's place with another one's rows (or flow, where event has no column flow: the table of a
 * database made before it). 1 with "NAME is a view, not a table" in why (size n);
 * 0 when every one it holds is a table; -1 with SQLite's message in why. */
int tdb_db_foreign_table(sqlite3 *db, const char *schema, char *why, size_t n);

#endif
