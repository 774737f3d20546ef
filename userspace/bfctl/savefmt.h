/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bfctl restore's input: a line reader and the filter block parser
 * (savefmt.c), shared with the create/add lines and the loader
 * (restore.c).  The format is described at the top of savefmt.c.
 */
#ifndef _BFCTL_SAVEFMT_H
#define _BFCTL_SAVEFMT_H

/*
 * A save begins with SAVE_MAGIC and ends with SAVE_END, written only when
 * every filter was saved: restore refuses input that begins with the magic
 * and has no end line, so a failed 'bfctl save > file' cannot restore
 * "successfully" to less (lines after the end, create and add lines an
 * admin appends, are fine).
 */
#define SAVE_MAGIC	"# bfctl save 1"
#define SAVE_END	"# bfctl save end"

#include <stdio.h>
#include "kverbs.h"

/* streamed input: only a window of the text is ever in memory */
struct bfctl_lines {
	int fd;
	char *buf;
	size_t cap, pos, end;	/* unread text is buf[pos..end) */
	bool eof;
	u64 line;		/* of the line last returned */
	size_t len;		/* its length */
	int code;		/* of the first error: BFCTL_USAGE or _ERR */
	char err[320];		/* "line N: why" */
	bool in_block;		/* a filter block's 'end' is still to come */
	bool discard;		/* the rest of a line too long is dropped */
	bool again;		/* bfctl_lines_unread(): the last line again */
	char *last;		/* the line last returned */
};

int bfctl_lines_open(struct bfctl_lines *r, const char *file);
void bfctl_lines_close(struct bfctl_lines *r);
/* next line, NUL-terminated without its "\n" / "\r\n"; NULL at the end or
 * on an error (r->code set)
 */
char *bfctl_lines_next(struct bfctl_lines *r);
/* record "line N: why" (the current line) with code; returns -EINVAL */
int bfctl_lines_fail(struct bfctl_lines *r, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * split the line s at blanks into argv[0..argc) and a NULL, as a verb's
 * argv (s is changed); returns argc, or bfctl_lines_fail()'s -EINVAL
 * (BFCTL_USAGE) when it has max - 1 words or more
 */
int bfctl_lines_words(struct bfctl_lines *r, char *s, char **argv, int max);
/* make the next bfctl_lines_next() return the line it returned last */
void bfctl_lines_unread(struct bfctl_lines *r);
/* s begins a filter block, a create or add line, or is SAVE_END */
bool bfctl_lines_begins(const char *s);
/* the rest of a filter block after an error (r->in_block), if any */
void bfctl_lines_skip_block(struct bfctl_lines *r);

/*
 * A slice block of a window or a growing filter ("slice NAME index=N
 * age-ms=A saved-ms=T ..."; savefmt_slices.c): its image, uploaded into
 * the filter's transaction as slice N with age A plus the time since T
 */
struct rslice {
	u32 index;
	u64 age_ms, saved_ms;
	u64 line;
	u8 *img;
	u64 img_len;
};

/* one filter of a restore */
enum rf_how {
	RF_IMAGE,	/* a "filter" block: upload its image in a txn */
	RF_CREATE,	/* a "create" line: a new, empty filter in a txn */
	RF_LIVE,	/* one already in the kernel: adds go in directly */
};

struct rfilter {
	char name[KB_NAME_MAX];
	size_t name_len;	/* strlen(name), for the add-line hot path */
	u64 line;		/* where the file defines or first uses it */
	enum rf_how how;
	u32 key_type;
	struct kb_ioc_create c;	/* the transaction's parameters */
	u8 *img;		/* RF_IMAGE: the image rebuilt from the text */
	u64 img_len;
	struct bfctl_batch keys;	/* its add lines, packed */
	struct bfctl_batch exc;		/* its except lines (count 0: none) */
	/*
	 * the filter before the file's add lines: capacity (items, m, k,
	 * fpr_ppb) and keys (count), for bfctl_cap_check()
	 */
	struct kb_ioc_info held;
	/* sync: the kernel's filter of that name when the file was read */
	bool live;
	struct kb_ioc_info live_info;
	/*
	 * --on-bad-payload (restore_bad.c): p holds the parameters the file
	 * gave (have_p), have_type its key type alone (a filter line bad
	 * after its key-type=); bad: its contents cannot be restored, so a
	 * stand-in is loaded instead, why saying what went wrong
	 */
	struct kb_params p;
	bool have_p, have_type;
	bool bad;
	bool gone;		/* not even its stand-in loaded */
	char why[sizeof(((struct bfctl_lines *)0)->err)];
	u32 max_fpr_ppb;	/* RF_IMAGE: the commit's saturation guard */
	u32 cap_ppb;		/* the packet path's cap (create --max-fpr,
				 * max-fpr-ppb=), 0: the default
				 */
	struct bfctl_grant grant;	/* its grant line (grant.c) */
	/* a "slice" block being read (savefmt.c): its index= age-ms= ... */
	bool slice_line;
	struct rslice sl1;
	/* a create line's window or growing filter: its slice blocks */
	struct rslice *sl;
	u32 nsl;
};

/*
 * What restore makes of a filter whose contents it cannot restore (a bad
 * or truncated block, a CRC that does not match, a bad add line, a payload
 * a guard refuses, a load the kernel refuses).  RS_BAD_FAIL: nothing
 * loads (the default, and always for sync).  RS_BAD_EMPTY, RS_BAD_CLOSED
 * (restore --on-bad-payload=empty|closed, restore_bad.c): every other
 * filter loads, and the bad one is created anyway, empty or answering
 * "maybe" for every key, so that the firewall rules naming it load; the
 * exit code is BFCTL_ERR.
 */
enum rs_bad {
	RS_BAD_FAIL,
	RS_BAD_EMPTY,
	RS_BAD_CLOSED,
};

/*
 * An attachment of a save (savefmt_attach.c): an XDP/tc blocklist or an
 * LSM filter, re-attached after the filters by the attach verbs themselves
 * (restore_attach.c).  An LSM attachment carries its list (the lines its
 * -file had, as the programs hold them), not the list file's name.
 */
enum ra_kind {
	RA_XDP,
	RA_LSM_PATH,
	RA_LSM_CONTENT,
};

struct rattach {
	enum ra_kind kind;
	u64 line;
	char dev[16];		/* RA_XDP: IF_NAMESIZE */
	char filter[KB_NAME_MAX];
	const char *mode;	/* RA_XDP: "native", "generic", "tc" */
	const char *dir;	/* RA_XDP: "src", "dst" */
	bool force;		/* RA_XDP: the filter was missing at save */
	bool alone;		/* RA_XDP: not in libxdp's dispatcher */
	long prio;		/* RA_XDP: its run priority there, -1: none */
	u32 hooks;		/* RA_LSM_*: LSM_HOOK_* bits */
	bool audit;
	char *list;		/* RA_LSM_*: its lines, each ending in '\n' */
	size_t list_len, list_n;
	bool done;		/* attached (or already there) */
};

/* restore --only: the parts of the file left out (RS_SKIP_*) */
#define RS_SKIP_FILTERS	(1u << 0)
#define RS_SKIP_LSM	(1u << 1)
#define RS_SKIP_XDP	(1u << 2)

/*
 * The whole input of a restore or a sync, read and checked before
 * anything changes (restore.c).  A sync's file defines every filter it
 * names (a filter block or a create line; an add to any other name is an
 * error) and a filter of that name in the kernel is to be replaced, so
 * its parameters may differ; a restore's adds may go to filters in the
 * kernel, and with -exist a create line keeps a matching one.
 */
struct bfctl_restore {
	struct bfctl_lines r;
	struct kbconn conn;
	bool exist, check;	/* check: -check, change nothing */
	bool sync;		/* the input of bfctl sync */
	bool force;		/* --force: past the capacity and
				 * saturation guards
				 */
	u32 max_fpr_ppb;	/* --max-fpr, 0: not given */
	enum rs_bad on_bad;	/* --on-bad-payload */
	u64 nbad;		/* filters loaded as stand-ins */
	u64 nlost;		/* lines skipped, not even a stand-in */
	const char *verb, *file;	/* for messages */
	int no_kernel;		/* -check without the module (-EOPNOTSUPP)
				 * or the right to ask it (-EPERM): the file
				 * only
				 */
	u64 fresh;		/* filters the file creates */
	bool conn_up;
	bool lines;		/* a non-empty line was read */
	bool save, ended;	/* input is a save; SAVE_END was read */
	u64 max_bytes, max_total;	/* module parameters (or defaults) */
	u64 total;			/* payload bytes of the filter blocks */
	struct rfilter *v;
	size_t n, cap, last;	/* last: the filter of the previous add */
	unsigned int skip;	/* RS_SKIP_*: parts not restored */
	struct rattach *att;	/* the file's attachments, in file order */
	size_t natt;
};

/*
 * Read and check file into rs (zeroed, with exist/check/sync/force set):
 * BFCTL_OK, or the exit code after printing "verb: file: line N: why".
 * rs->conn is set up; bfctl_restore_free() releases everything.
 */
int bfctl_restore_read(struct bfctl_restore *rs, const char *verb,
		       const char *file);
/* the capacity guard over every filter of the file (bfctl_cap_check()) */
int bfctl_restore_guard(struct bfctl_restore *rs, const char *verb,
			const char *file);
void bfctl_restore_free(struct bfctl_restore *rs);
/*
 * Load one filter: a transaction for those the file defines (its image,
 * its adds, commit: the filter appears or changes whole, or not at all),
 * else adds in batches.  BFCTL_OK, or the error printed ("verb NAME
 * (line N): why").  (restore_load.c)
 */
int bfctl_restore_load(struct kbconn *conn, const char *verb,
		       struct rfilter *rf);
/* the transaction that loads an image of params p: its request, as m, k */
void bfctl_image_request(const struct kb_params *p, struct kb_ioc_create *c,
			 const char *name);
/*
 * Write the header and trailer of the image in img, whose payload f holds
 * in place at img + sizeof(struct kb_image_hdr) (sync, redis pull)
 */
void bfctl_image_finish(u8 *img, const struct kb_filter *f, u64 count);
/* max_filters: the file's new filters fit beside have, after going gone */
int bfctl_restore_check_count(struct bfctl_restore *rs, const char *verb,
			      const char *file, u64 gone);

/*
 * Parse a block after its "filter" line (fline, modified): fills rf's
 * name, line, key_type, img and c.  max_bytes caps the declared payload,
 * budget what the file's filters may still declare in all.
 */
int bfctl_save_parse_block(struct bfctl_lines *r, char *fline,
			   struct rfilter *rf, u64 max_bytes, u64 budget);

/* ---- windows and growing filters (savefmt_slices.c) ---- */

/* milliseconds since the epoch (the save's saved-ms=) */
u64 bfctl_wall_ms(void);
/* save: the create line that makes a filter of info's shape again */
void bfctl_save_create_line(FILE *f, const struct kb_ioc_info *info);
/* restore: a "slice NAME ..." block, after its filter's create line */
int bfctl_restore_slice_line(struct bfctl_restore *rs, char *s);
/* upload rf's slice blocks into its transaction (oldest first): 0/-errno */
int bfctl_restore_slices(struct kbconn *conn, struct rfilter *rf, u32 *why);
void bfctl_restore_slices_free(struct rfilter *rf);
/*
 * A slice's age at restore: saved age + (now - saved), the clock's
 * going backwards adding nothing; saturates instead of wrapping
 */
u64 bfctl_slice_age(u64 age_ms, u64 saved_ms, u64 now_ms);

/* ---- attachments: save lines (savefmt_attach.c) ---- */

/* "attach ..." (s, modified) into a: 0, or -EINVAL with err set */
int bfctl_attach_parse(char *s, struct rattach *a, char *err, size_t errlen);
/* one "list X" line's X into a's list: 0, or -EINVAL/-ENOMEM with err */
int bfctl_attach_list_add(struct rattach *a, const char *x, char *err,
			  size_t errlen);
void bfctl_attach_free(struct rattach *a);
/* an "attach" line (and an LSM one's list block) of a restore */
int bfctl_restore_attach_line(struct bfctl_restore *rs, char *s);
/* the filter the file defined above under name, or NULL (restore.c) */
struct rfilter *bfctl_restore_find(struct bfctl_restore *rs, const char *name);
/* name: defined by the file or in the kernel (restore.c): 0, -ENOENT, err */
int bfctl_restore_known(struct bfctl_restore *rs, const char *name);
/* "filters,lsm,xdp" -> rs->skip (what is not in it): 0 or -EINVAL */
int bfctl_restore_only_parse(struct bfctl_restore *rs, const char *v);

/*
 * restore_attach.c (not in the fuzz target, which stubs these): write
 * the attachments (of filter name, or all) as save lines; attach the
 * file's, each on its own, loud on failure: BFCTL_OK or BFCTL_ERR
 */
int bfctl_save_attachments(FILE *f, const char *name);
int bfctl_restore_attachments(struct bfctl_restore *rs);

/* ---- --on-bad-payload (restore_bad.c) ---- */

/*
 * The error just recorded in rs->r (a line of rf's, or of no filter when
 * rf is NULL): with --on-bad-payload, report it, make rf a stand-in, clear
 * the error and return 0 so that the reading goes on; without, return
 * -EINVAL (the error stands).  Skips the rest of a filter block whose
 * 'end' is still to come.
 */
int bfctl_restore_bad(struct bfctl_restore *rs, struct rfilter *rf);
/*
 * Make rf a stand-in (empty or closed, rs->on_bad) for the reason why:
 * its image and keys go.  Any check of a payload (a guard) calls it
 * instead of failing when rs->on_bad is set, and skips rf->bad filters:
 * a stand-in is deliberate.  0, or -ENOMEM / -EINVAL when no stand-in can
 * be made (rf->have_p and rf->have_type both false).
 */
int bfctl_restore_standin(struct bfctl_restore *rs, struct rfilter *rf,
			  const char *why);
/* the summary of what was not restored (stderr); BFCTL_ERR if anything */
int bfctl_restore_bad_report(struct bfctl_restore *rs);
/* "empty", "closed" -> rs->on_bad; -EINVAL */
int bfctl_restore_bad_parse(struct bfctl_restore *rs, const char *v);

/*
 * rf's except lines into its exception set (kept ones stay: -exist), after
 * it loaded; 0 or BFCTL_ERR with a message (restore_load.c)
 */
int bfctl_restore_exc(struct kbconn *conn, const char *verb,
		      struct rfilter *rf);
/*
 * Grants (grant.c): a "grant NAME ..." line (s, modified) of a filter the
 * file defined above, its groups resolved now; after the filter loaded,
 * set them (bfctl_restore_exc() does it first); save writes name's as a
 * grant line (grant_verb.c)
 */
int bfctl_restore_grant_line(struct bfctl_restore *rs, char *s);
int bfctl_restore_grant(struct kbconn *conn, const char *verb,
			struct rfilter *rf);
int bfctl_save_grant(struct kbconn *conn, FILE *f, const char *name);
/* save: name's exception set as except lines, after its block */
int bfctl_save_exc(struct kbconn *conn, FILE *f, const char *name,
		   u32 key_type);

#endif /* _BFCTL_SAVEFMT_H */
