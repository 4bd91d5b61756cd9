/* output_claim.c: outputs that appear whole or not at all (see output_claim.h).
 *
 * The claim is renameat2(RENAME_NOREPLACE), or link(2) + unlink where the filesystem lacks it: both
 * fail with EEXIST when the name was taken meanwhile, so two imports racing for one new database can
 * never both succeed (checking first and renaming later could). The signal path touches only a fixed
 * table of names and calls only unlink, signal and raise (async-signal-safe). */
#define _GNU_SOURCE
#include "output_claim.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_TMP 8
#define TMP_LEN 4096
static char pending[MAX_TMP][TMP_LEN]; /* registered temporaries; "" when free */
static volatile sig_atomic_t pending_used[MAX_TMP];

static const char *const side_suffixes[] = {"-journal", "-wal", "-shm"};

static void unlink_with_sides(const char *tmp)
{
    char side[TMP_LEN + 16];
    unlink(tmp);
    for (size_t i = 0; i < sizeof side_suffixes / sizeof side_suffixes[0]; i++) {
        size_t n = strlen(tmp), k = strlen(side_suffixes[i]);
        if (n + k >= sizeof side)
            continue;
        memcpy(side, tmp, n);
        memcpy(side + n, side_suffixes[i], k + 1);
        unlink(side);
    }
}

/* Removes PATH.tmp-PID (and side files) for every PID that is no longer a process here. */
static void remove_stale(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[TMP_LEN];
    const char *base = slash ? slash + 1 : path;
    size_t dn = slash ? (size_t)(slash - path) : 1;
    if (dn >= sizeof dir)
        return;
    if (slash)
        memcpy(dir, path, dn ? dn : 1), dir[dn ? dn : 1] = 0;
    else
        strcpy(dir, ".");
    DIR *d = opendir(dir);
    if (!d)
        return;
    size_t bn = strlen(base);
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        if (strncmp(name, base, bn) != 0 || strncmp(name + bn, ".tmp-", 5) != 0)
            continue;
        const char *digits = name + bn + 5;
        char *end;
        long pid = strtol(digits, &end, 10);
        if (end == digits || *end || pid <= 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive (or not ours to judge): leave it */
        char full[TMP_LEN * 2 + 2];
        snprintf(full, sizeof full, "%s/%s", dir, name);
        unlink_with_sides(full);
    }
    closedir(d);
}

int tdb_out_begin(const char *path, char *tmp, size_t n)
{
    int len = snprintf(tmp, n, "%s.tmp-%ld", path, (long)getpid());
    if (len < 0 || (size_t)len >= n || (size_t)len >= TMP_LEN)
        return -1;
    remove_stale(path);
    unlink_with_sides(tmp);
    for (int i = 0; i < MAX_TMP; i++) {
        if (!pending_used[i]) {
            memcpy(pending[i], tmp, (size_t)len + 1);
            pending_used[i] = 1;
            return 0;
        }
    }
    return -1;
}

static void forget(const char *tmp)
{
    for (int i = 0; i < MAX_TMP; i++)
        if (pending_used[i] && strcmp(pending[i], tmp) == 0)
            pending_used[i] = 0;
}

void tdb_out_discard(const char *tmp)
{
    unlink_with_sides(tmp);
    forget(tmp);
}

static int claim_noreplace(const char *tmp, const char *path)
{
#ifdef SYS_renameat2
    if (syscall(SYS_renameat2, AT_FDCWD, tmp, AT_FDCWD, path, 1 /* RENAME_NOREPLACE */) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
        return -1;
#endif
    if (link(tmp, path) != 0) /* filesystems without renameat2's flag: link fails on an existing name too */
        return -1;
    unlink(tmp);
    return 0;
}

/* Whether path is there and no file: a device, FIFO or socket, or a link to one (/dev/stdout); a link
 * to a file, or to nothing, is replaced itself with --force, not what it points at. */
static int no_file(const char *path)
{
    struct stat sb;
    return (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode) && !S_ISDIR(sb.st_mode)) ||
           (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode));
}

int tdb_out_commit(const char *tmp, const char *path, int replace, FILE *err)
{
    if (no_file(path)) { /* --force replaces a file; never /dev/null (as root, rename would) */
        fprintf(err, "tracedb: %s is not a regular file (a device, FIFO or socket); nothing replaced, this result is "
                     "discarded: name a file\n", path);
        tdb_out_discard(tmp);
        return -1;
    }
    int rc = replace ? rename(tmp, path) : claim_noreplace(tmp, path);
    if (rc != 0) {
        int e = errno;
        if (e == EEXIST)
            fprintf(err, "tracedb: %s already exists (made by another process while this one worked); nothing "
                         "replaced, this result is discarded: use --force to replace it\n", path);
        else
            fprintf(err, "tracedb: cannot move %s to %s: %s\n", tmp, path, tdb_out_reason(e));
        tdb_out_discard(tmp);
        return -1;
    }
    forget(tmp);
    return 0;
}

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_TMP; i++)
        if (pending_used[i])
            unlink_with_sides(pending[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

void tdb_out_cleanup_on_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}; /* SIGPIPE: `... 2>&1 | head -1` */
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue; /* ignored by whoever started us (nohup): keep it so */
        sigaction(sigs[i], &sa, NULL);
    }
    signal(SIGXFSZ, SIG_IGN);
}

/* The checked file behind tdb_out_fopen: a descriptor and the first error its writes met. */
struct checked_file {
    int fd;
    int first_error;
};

static ssize_t checked_write(void *cookie, const char *p, size_t n)
{
    struct checked_file *c = cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(c->fd, p + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!c->first_error)
                c->first_error = w < 0 ? errno : ENOSPC;
            errno = c->first_error;
            return 0; /* fopencookie: 0 on error, and stdio marks the stream failed */
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

static int checked_close(void *cookie)
{
    struct checked_file *c = cookie;
    int e = close(c->fd) != 0 ? errno : 0;
    if (c->first_error)
        e = c->first_error;
    free(c);
    if (e) {
        errno = e;
        return -1;
    }
    return 0;
}

FILE *tdb_out_fopen(const char *tmp)
{
    struct checked_file *c = malloc(sizeof *c);
    if (!c) {
        errno = ENOMEM;
        return NULL;
    }
    c->first_error = 0;
    c->fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (c->fd < 0) {
        int e = errno;
        free(c);
        errno = e;
        return NULL;
    }
    cookie_io_functions_t io = {NULL, checked_write, NULL, checked_close};
    FILE *f = fopencookie(c, "w", io);
    if (!f) {
        close(c->fd);
        free(c);
        errno = ENOMEM;
        return NULL;
    }
    setvbuf(f, NULL, _IOFBF, 1 << 16);
    return f;
}

int tdb_out_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

const char *tdb_out_reason(int e)
{
    switch (e) {
    case EFBIG:
        return "file too large (over the file size limit: see the shell's ulimit -f)";
    case ENOSPC:
        return "disk full";
#ifdef EDQUOT
    case EDQUOT:
        return "disk quota exceeded";
#endif
    default:
        return strerror(e);
    }
}

const char *tdb_out_unwritable(const char *path, char *why, size_t n)
{
    struct stat sb;
    size_t len = strlen(path);
    if (len == 0) {
        snprintf(why, n, "no file name given");
        return why;
    }
    if (path[len - 1] == '/' || (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))) {
        snprintf(why, n, "is a directory; name a file in it");
        return why;
    }
    if (no_file(path)) {
        snprintf(why, n, "is not a regular file (a device, FIFO or socket); name a file");
        return why;
    }
    const char *slash = strrchr(path, '/');
    char dir[TMP_LEN];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else if ((size_t)(slash - path) < sizeof dir)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else
        return NULL;
    if (stat(dir, &sb) != 0) {
        int e = errno;
        if (e == ENOENT)
            snprintf(why, n, "directory %s does not exist", dir);
        else if (e == ENOTDIR)
            snprintf(why, n, "%s is not a directory path", dir);
        else
            snprintf(why, n, "directory %s: %s", dir, strerror(e));
        return why;
    }
    if (!S_ISDIR(sb.st_mode)) {
        snprintf(why, n, "%s is not a directory", dir);
        return why;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        int e = errno;
        if (e == EROFS)
            snprintf(why, n, "directory %s is on a read-only file system", dir);
        else if (e == EACCES)
            snprintf(why, n, "no permission to write in directory %s", dir);
        else
            snprintf(why, n, "directory %s: %s", dir, strerror(e));
        return why;
    }
    return NULL;
}
