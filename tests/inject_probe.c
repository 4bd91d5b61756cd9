/* inject_probe.c: loads libtracedb_inject.so as CUDA would and calls InitializeInjection(), for
 * tests/unit/test_record.c: on a machine without a GPU it must say so and let the program go on.
 * Usage: inject_probe LIB */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    void *lib = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!lib) {
        fprintf(stderr, "inject_probe: %s\n", dlerror());
        return 2;
    }
    int (*init)(void) = (int (*)(void))dlsym(lib, "InitializeInjection");
    if (!init)
        return 3;
    int rc = init();
    printf("InitializeInjection returned %d\n", rc);
    return rc == 1 ? 0 : 1;
}
