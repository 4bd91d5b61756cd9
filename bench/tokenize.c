/* tokenize.c: the baseline for import speed: one streaming pass of yajl's tokenizer over the file,
 * keeping no values (numbers arrive as text, as tracedb takes them). Usage: tokenize FILE */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>

static long tokens;

static int on_any(void *ctx)
{
    (void)ctx;
    tokens++;
    return 1;
}

static int on_text(void *ctx, const unsigned char *s, size_t n)
{
    (void)s, (void)n;
    return on_any(ctx);
}

static int on_number(void *ctx, const char *s, size_t n)
{
    (void)s, (void)n;
    return on_any(ctx);
}

static int on_bool(void *ctx, int b)
{
    (void)b;
    return on_any(ctx);
}

int main(int argc, char **argv)
{
    static const yajl_callbacks cb = {on_any, on_bool, NULL, NULL, on_number, on_text, on_any, on_text, on_any, on_any, on_any};
    static unsigned char buf[256 * 1024];
    int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
    if (fd < 0) {
        perror("tokenize");
        return 1;
    }
    yajl_handle h = yajl_alloc(&cb, NULL, NULL);
    yajl_config(h, yajl_dont_validate_strings, 1);
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        if (yajl_parse(h, buf, (size_t)n) != yajl_status_ok)
            return 1;
    if (yajl_complete_parse(h) != yajl_status_ok)
        return 1;
    printf("%ld tokens\n", tokens);
    yajl_free(h);
    close(fd);
    return 0;
}
