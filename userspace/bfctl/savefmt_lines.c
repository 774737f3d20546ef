// SPDX-License-Identifier: GPL-2.0
/*
 * bfctl: the save-file line reader (bfctl_lines_*) that restore, sync and
 * restore_bad.c read their input with: lines of up to RL_BUF bytes from a
 * file, a pipe or stdin, numbered for errors; a reader that goes on past a
 * bad line (restore --on-bad-payload) can skip the rest of a block and
 * read a line again.  The format itself is savefmt.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kverbs.h"
#include "savefmt.h"

#define RL_BUF		(4u << 20)	/* also the longest line */

int bfctl_lines_open(struct bfctl_lines *r, const char *file)
{
	memset(r, 0, sizeof(*r));
	r->fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : 0;
	if (r->fd < 0)
		return -errno;
	r->cap = RL_BUF;
	r->buf = malloc(r->cap);
	if (!r->buf) {
		bfctl_lines_close(r);
		return -ENOMEM;
	}
	posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return 0;
}

void bfctl_lines_close(struct bfctl_lines *r)
{
	if (r->fd > 0)
		close(r->fd);
	r->fd = -1;
	free(r->buf);
	r->buf = NULL;
}

int bfctl_lines_fail(struct bfctl_lines *r, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->err, sizeof(r->err), "line %llu: ",
		     (unsigned long long)r->line);
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
	r->code = code;
	return -EINVAL;
}

int bfctl_lines_words(struct bfctl_lines *r, char *s, char **argv, int max)
{
	char *save = NULL;
	int argc = 0;

	for (argv[0] = strtok_r(s, " \t", &save); argv[argc];
	     argv[argc] = strtok_r(NULL, " \t", &save))
		if (++argc == max - 1)
			return bfctl_lines_fail(r, BFCTL_USAGE, "too many words");
	return argc;
}

static char *lines_take(struct bfctl_lines *r, char *s, char *end)
{
	*end = 0;
	r->line++;
	if (end > s && end[-1] == '\r')
		*--end = 0;
	r->len = (size_t)(end - s);
	r->last = s;
	return s;
}

/* (the line stays in buf: nothing moves it before the next read) */
void bfctl_lines_unread(struct bfctl_lines *r)
{
	r->again = true;
	r->line--;
}

bool bfctl_lines_begins(const char *s)
{
	return !strncmp(s, "filter ", 7) || !strncmp(s, "slice ", 6) ||
	       !strncmp(s, "create ", 7) ||
	       !strncmp(s, "create\t", 7) || !strncmp(s, "add ", 4) ||
	       !strncmp(s, "add\t", 4) || !strncmp(s, "attach ", 7) ||
	       !strcmp(s, SAVE_END);
}

/*
 * base64 and "*N" lines have no blank, so no payload line looks like the
 * beginning of something else: the rest of a bad block goes up to its
 * 'end' or to such a line, which is read again
 */
void bfctl_lines_skip_block(struct bfctl_lines *r)
{
	char *s;

	while (r->in_block) {
		s = bfctl_lines_next(r);
		if (!s && r->code && r->discard) {
			r->code = 0;	/* a line too long: still the block's */
			continue;
		}
		if (!s || !strcmp(s, "end"))
			break;
		if (bfctl_lines_begins(s)) {
			bfctl_lines_unread(r);
			break;
		}
	}
	r->in_block = false;
}

char *bfctl_lines_next(struct bfctl_lines *r)
{
	if (r->again) {
		r->again = false;
		r->line++;
		return r->last;
	}
	for (;;) {
		char *s = r->buf + r->pos;
		char *nl = memchr(s, '\n', r->end - r->pos);
		ssize_t n;

		if (nl && r->discard) {	/* the end of a line too long */
			r->discard = false;
			r->pos = (size_t)(nl + 1 - r->buf);
			continue;
		}
		if (nl) {
			r->pos = (size_t)(nl + 1 - r->buf);
			return lines_take(r, s, nl);
		}
		if (r->discard)
			r->pos = r->end;
		if (r->eof) {
			if (r->pos == r->end)
				return NULL;
			r->pos = r->end;	/* a last line without "\n" */
			return lines_take(r, s, r->buf + r->end);
		}
		memmove(r->buf, s, r->end - r->pos);
		r->end -= r->pos;
		r->pos = 0;
		if (r->end == r->cap - 1) {	/* keep a byte for the NUL */
			r->line++;
			bfctl_lines_fail(r, BFCTL_USAGE, "line too long");
			/* a reader that goes on (restore_bad.c) skips it */
			r->discard = true;
			r->pos = r->end = 0;
			return NULL;
		}
		n = read(r->fd, r->buf + r->end, r->cap - 1 - r->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			bfctl_lines_fail(r, BFCTL_ERR, "%s", strerror(errno));
			r->eof = true;	/* a reader that goes on reads no more */
			r->pos = r->end;
			return NULL;
		}
		if (!n)
			r->eof = true;
		r->end += (size_t)n;
	}
}

