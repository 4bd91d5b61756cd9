/* term_text.h: what may reach a terminal: one rule for a character's display form (control characters
 * escaped, invalid UTF-8 replaced), used by the tables (render_cell.c) and by the stream every message
 * goes through (term_safe_stream), so that no name in a trace, a database or a file name can move the
 * cursor, retitle the window or rewrite the screen. */
#ifndef TDB_TERM_TEXT_H
#define TDB_TERM_TEXT_H
#include <stddef.h>
#include <stdio.h>

/* The display form of the character at p (len > 0 bytes left) into piece: C0 controls and DEL as \xNN,
 * C1 controls (U+0080..U+009F) as \u00NN, invalid UTF-8 as U+FFFD. Sets *used to the bytes consumed
 * (at least 1); returns the piece's length (at most 6). */
size_t term_char(const unsigned char *p, size_t len, char piece[8], size_t *used);

/* A stream that writes to `to` what it is given with every character in term_char's display form, but
 * for newlines and tabs, and a carriage return that begins a write (a progress line rewriting itself).
 * Unbuffered: one write of `to` for each write of it (each fprintf), so a write error shows at once
 * (ferror). NULL where it cannot be made; fclose it (`to` stays open). */
FILE *term_safe_stream(FILE *to);

#endif
