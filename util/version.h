/* version.h: tool and schema versions, written into every database's meta table. */
#ifndef TDB_VERSION_H
#define TDB_VERSION_H
#define TDB_VERSION "0.1.0"
#define TDB_SCHEMA_VERSION 1
#define TDB_SCHEMA_VERSION_STR "1"
#endif
