/* kernel_type.h: the one classifier of GPU work by name, HTA's kernel types (kernel_type.c). The import's
 * device time (recorder/store/device_time.c), `tracedb device`, `overlap`, `kernels --by-type` and the
 * critical path all read it: SQL's kernel_type(name) and tdb_device_class(kind, name) call it. */
#ifndef TDB_KERNEL_TYPE_H
#define TDB_KERNEL_TYPE_H
#include <stddef.h>

enum tdb_kernel_type { TDB_KT_COMPUTATION, TDB_KT_COMMUNICATION, TDB_KT_MEMORY, TDB_KT_OTHER };

/* The kernel type of the n bytes at name (need not end in NUL; NULL with n 0 is the empty name). */
enum tdb_kernel_type tdb_kernel_type_of(const char *name, size_t n);
/* Its name: "computation", "communication", "memory" or "other". */
const char *tdb_kernel_type_name(enum tdb_kernel_type t);
/* tdb_kernel_type_name(tdb_kernel_type_of(name, strlen(name))), name a C string. */
const char *tdb_kernel_type(const char *name);

#endif
