// SPDX-License-Identifier: MIT
//
// The few fields dsb-load reads from dsbridged's messages (PROTOCOL.md 2.3): `t`, `seq`,
// `id`, `code` and where `data` is, of each message of a frame (one object, or a batch:
// an array of objects). A scanner, not a parser: it walks the bytes once, skipping every
// other value whole (strings with their escapes, nested objects and arrays), and checks
// only as much syntax as it needs to find those fields.
#include "load.h"

#include <string.h>

static const uint8_t *skip_ws(const uint8_t *p, const uint8_t *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* p at the opening quote; returns the byte after the closing one, or NULL. */
static const uint8_t *skip_string(const uint8_t *p, const uint8_t *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* Any value; returns the byte after it, or NULL. */
static const uint8_t *skip_value(const uint8_t *p, const uint8_t *end)
{
	if (p >= end)
		return NULL;
	if (*p == '"')
		return skip_string(p, end);
	if (*p == '{' || *p == '[') {
		int depth = 0;
		while (p < end) {
			if (*p == '"') {
				p = skip_string(p, end);
				if (!p)
					return NULL;
				continue;
			}
			if (*p == '{' || *p == '[')
				depth++;
			else if (*p == '}' || *p == ']') {
				if (--depth == 0)
					return p + 1;
			}
			p++;
		}
		return NULL;
	}
	/* A number, true, false or null: up to the next delimiter. */
	const uint8_t *start = p;
	while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n')
		p++;
	return p > start ? p : NULL;
}

/* A JSON integer at p (optionally negative); returns the byte after it, or NULL. */
static const uint8_t *read_integer(const uint8_t *p, const uint8_t *end, long long *out)
{
	int negative = p < end && *p == '-';
	if (negative)
		p++;
	const uint8_t *start = p;
	unsigned long long v = 0;
	while (p < end && *p >= '0' && *p <= '9')
		v = v * 10 + (unsigned long long)(*p++ - '0');
	if (p == start)
		return NULL;
	*out = negative ? -(long long)v : (long long)v;
	return p;
}

static int key_is(const uint8_t *k, size_t len, const char *name)
{
	return len == strlen(name) && memcmp(k, name, len) == 0;
}

const uint8_t *scan_object(const uint8_t *p, const uint8_t *end, struct message *m)
{
	memset(m, 0, sizeof *m);
	p = skip_ws(p, end);
	if (p >= end || *p != '{')
		return NULL;
	p = skip_ws(p + 1, end);
	if (p < end && *p == '}')
		return p + 1;
	for (;;) {
		if (p >= end || *p != '"')
			return NULL;
		const uint8_t *key = p + 1;
		const uint8_t *after = skip_string(p, end);
		if (!after)
			return NULL;
		size_t key_len = (size_t)(after - 1 - key);
		p = skip_ws(after, end);
		if (p >= end || *p != ':')
			return NULL;
		p = skip_ws(p + 1, end);
		const uint8_t *value = p;
		long long n;
		if (key_is(key, key_len, "seq") || key_is(key, key_len, "id") || key_is(key, key_len, "code")) {
			p = read_integer(p, end, &n);
			if (!p)
				return NULL;
			if (key_is(key, key_len, "seq")) {
				m->has_seq = 1;
				m->seq = (uint64_t)n;
			} else if (key_is(key, key_len, "id")) {
				m->has_id = 1;
				m->id = (uint64_t)n;
			} else {
				m->has_code = 1;
				m->code = n;
			}
		} else {
			p = skip_value(p, end);
			if (!p)
				return NULL;
			if (key_is(key, key_len, "t") && *value == '"') {
				m->t = value + 1;
				m->t_len = (size_t)(p - value - 2);
			} else if (key_is(key, key_len, "data")) {
				m->data = value;
				m->data_len = (size_t)(p - value);
			}
		}
		p = skip_ws(p, end);
		if (p < end && *p == ',') {
			p = skip_ws(p + 1, end);
			continue;
		}
		if (p < end && *p == '}')
			return p + 1;
		return NULL;
	}
}

int scan_frame(const uint8_t *p, size_t len, void (*each)(struct conn *, const struct message *),
	       struct conn *c)
{
	const uint8_t *end = p + len;
	struct message m;
	p = skip_ws(p, end);
	if (p < end && *p == '{') {
		p = scan_object(p, end, &m);
		if (!p || skip_ws(p, end) != end)
			return 0;
		each(c, &m);
		return 1;
	}
	if (p >= end || *p != '[')
		return 0;
	p = skip_ws(p + 1, end);
	if (p < end && *p == ']')
		return 1;
	for (;;) {
		p = scan_object(p, end, &m);
		if (!p)
			return 0;
		each(c, &m);
		p = skip_ws(p, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		return p < end && *p == ']' && skip_ws(p + 1, end) == end;
	}
}
