/* sql_foreign_host.c: a program with a SQLite of its own (linked statically) that loads an extension: argv[1]. */
#include <sqlite3.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    sqlite3 *db;
    char *err = NULL;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 2;
    sqlite3_enable_load_extension(db, 1);
    int rc = sqlite3_load_extension(db, argv[1], NULL, &err);
    printf("%d %s\n", rc, err ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : 1;
}
