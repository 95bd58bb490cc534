#include <stdlib.h>
#include <string.h>

/** A growable byte buffer. */
struct buffer {
    char *data;
    size_t len;
    size_t cap;
};

typedef struct {
    int line;
    int column;
} position;

enum mode { READ, WRITE };

/**
 * Makes room for n more bytes.
 */
static int buffer_reserve(struct buffer *b, size_t n)
{
    if (b->len + n <= b->cap)
        return 0;
    char *p = realloc(b->data, b->len + n);
    if (!p)
        return -1;
    b->data = p;
    b->cap = b->len + n;
    return 0;
}

char *buffer_take(struct buffer *b)
{
    char *out = b->data;
    memset(b, 0, sizeof *b);
    return out;
}
