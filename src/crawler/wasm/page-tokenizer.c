/*
 * The page tokenizer of the Wasm page reader (page-reader.ts): html-scanner.ts's rules over UTF-8 bytes, in C
 * for clang's wasm32 target, freestanding (no libc). It is fed a buffer of page bytes (what earlier calls kept,
 * then the new chunk) and writes flat records: an element opened (name id), an attribute read (id, value
 * offsets), an element closed (implied or not), a run of text (offsets, how to decode it). JavaScript makes
 * strings only for the values it reads, straight from the bytes, and decodes character references itself
 * (the `entities` package, as the JS scanner does), so both readers decode by the same code.
 *
 * Kept the JS scanner's shape on purpose, function by function, so a difference is found by reading both side
 * by side; test/crawler/wasm-reader.test.ts compares them event by event.
 */

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;

#define EXPORT(name) __attribute__((export_name(#name)))
#define IMPORT(name) __attribute__((import_module("env"), import_name(#name)))

/* JavaScript takes the records written so far (the buffer is then empty again). */
IMPORT(flush) void js_flush(void);
/* The id of a name not in the static table: JavaScript lowercases it as the JS scanner does; -1 past ID_CAP. */
IMPORT(intern) i32 js_intern(i32 ptr, i32 len);

/* Records: four i32 each (type | flags << 8, id, start, end). */
enum { R_OPEN = 1, R_CLOSE = 2, R_ATTR = 3, R_ATTR_NAME = 4, R_TEXT = 5, R_DROP = 6 };
/* Flags: an implied close; a value with `&`; a value with bytes past ASCII. */
enum { F_IMPLIED = 1, F_AMP = 2, F_WIDE = 4 };
/* How a text record is decoded: not at all, as text, as RCDATA (id: the element). */
enum { T_RAW = 0, T_DECODE = 1, T_RCDATA = 2 };

#define REC_CAP 4096
#define DEPTH_CAP (1 << 16)
#define ID_CAP (1 << 16)
#define MASK_CAP 1024
#define ATTR_NAMES_CAP 64
#define MAX_NAME_LENGTH 16

static i32 records[REC_CAP * 4];
static i32 nrec;

/* Open elements (ids), innermost last, and how many of each id are open. */
static u32 stack[DEPTH_CAP];
static i32 depth;
static u32 counts[ID_CAP];
/* Foreign content contexts (NONE, SVG, MATHML), innermost last; fstack[0] is NONE. */
static u8 fstack[DEPTH_CAP + 1];
static i32 fdepth;
enum { NONE = 0, SVG = 1, MATHML = 2 };

/* Text only to this element's end tag (an id), or -1. */
static i32 text_only = -1;
static i32 text_model;
enum { RAW_TEXT = 1, RCDATA = 2, PLAINTEXT = 3 };

/* Per tag id below MASK_CAP: which attribute names (bits of the configured list) are read on it; else `elsewhere`. */
static u64 read_masks[MASK_CAP];
static u64 read_elsewhere;
/* The configured attribute names, lowercased, written by JavaScript: lengths, then bytes. */
static u8 attr_config[ATTR_NAMES_CAP * (MAX_NAME_LENGTH + 1)];
static i32 attr_count;
static u16 attr_slots[256]; /* attribute index + 1, 0 empty */

/* Set when a page needs more room than the caps: the JS scanner takes the rest of it. */
static i32 overflowed;

/* The input: JavaScript writes it at input_ptr() and grows the memory for it. */
extern u8 __heap_base;
#define INPUT (&__heap_base)

/* ---- static element names ---- */

/* Properties of a static name id. */
enum {
  P_VOID = 1, P_INTEGRATION = 2, P_LOOKUP = 4 /* found by a lowercased lookup (SVG's camel names are not) */
};

static const char *const NAMES[] = {
    /* 0: the names the JS scanner looks up in place (HTML_ELEMENTS) */
    "a", "abbr", "acronym", "address", "area", "article", "aside", "audio", "b", "base", "bdi", "bdo", "big",
    "blockquote", "body", "br", "button", "canvas", "caption", "center", "cite", "code", "col", "colgroup", "data",
    "datalist", "dd", "del", "details", "dfn", "dialog", "dir", "div", "dl", "dt", "em", "embed", "fieldset",
    "figcaption", "figure", "font", "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head",
    "header", "hgroup", "hr", "html", "i", "iframe", "image", "img", "input", "ins", "kbd", "label", "legend", "li",
    "link", "main", "map", "mark", "menu", "meta", "meter", "nav", "nobr", "noembed", "noframes", "noscript", "object",
    "ol", "optgroup", "option", "output", "p", "param", "picture", "pre", "progress", "q", "rp", "rt", "ruby", "s",
    "samp", "script", "search", "section", "select", "slot", "small", "source", "span", "strike", "strong", "style",
    "sub", "summary", "sup", "svg", "table", "tbody", "td", "template", "textarea", "tfoot", "th", "thead", "time",
    "title", "tr", "track", "tt", "u", "ul", "var", "video", "wbr", "math", "xmp", "plaintext",
    /* names with a rule, not elements of HTML above */
    "basefont", "command", "isindex", "keygen", "mi", "mo", "mn", "ms", "mtext", "annotation-xml", "desc",
    /* SVG's names, lowercased, then as SVG writes them */
    "altglyph", "altglyphdef", "altglyphitem", "animatecolor", "animatemotion", "animatetransform", "clippath",
    "feblend", "fecolormatrix", "fecomponenttransfer", "fecomposite", "feconvolvematrix", "fediffuselighting",
    "fedisplacementmap", "fedistantlight", "fedropshadow", "feflood", "fefunca", "fefuncb", "fefuncg", "fefuncr",
    "fegaussianblur", "feimage", "femerge", "femergenode", "femorphology", "feoffset", "fepointlight",
    "fespecularlighting", "fespotlight", "fetile", "feturbulence", "foreignobject", "glyphref", "lineargradient",
    "radialgradient", "textpath",
    "altGlyph", "altGlyphDef", "altGlyphItem", "animateColor", "animateMotion", "animateTransform", "clipPath",
    "feBlend", "feColorMatrix", "feComponentTransfer", "feComposite", "feConvolveMatrix", "feDiffuseLighting",
    "feDisplacementMap", "feDistantLight", "feDropShadow", "feFlood", "feFuncA", "feFuncB", "feFuncG", "feFuncR",
    "feGaussianBlur", "feImage", "feMerge", "feMergeNode", "feMorphology", "feOffset", "fePointLight",
    "feSpecularLighting", "feSpotLight", "feTile", "feTurbulence", "foreignObject", "glyphRef", "linearGradient",
    "radialGradient", "textPath",
};
#define NAME_COUNT ((i32)(sizeof(NAMES) / sizeof(NAMES[0])))
#define SVG_LOWER_FROM (NAME_COUNT - 2 * 37)
#define SVG_CAMEL_FROM (NAME_COUNT - 37)

static u8 props[NAME_COUNT];
static u8 only_model[NAME_COUNT]; /* RAW_TEXT, RCDATA, PLAINTEXT or 0 */
static u32 close_bit[NAME_COUNT]; /* the bit of a name that some element's opening closes */
static u32 closes[NAME_COUNT];    /* the bits this element's opening closes */
static i32 svg_adjusted[NAME_COUNT];
static u16 name_slots[1024]; /* id + 1 */
static u8 name_length[NAME_COUNT];

static i32 id_a, id_br, id_form, id_image, id_img, id_p, id_svg, id_math;

static i32 str_length(const char *s) {
  i32 n = 0;
  while (s[n]) n++;
  return n;
}

static inline u32 lower(u32 c) { return c - 65u < 26u ? c | 0x20 : c; }

static inline int is_space(u32 c) { return c == 0x20 || c == 0x0a || c == 0x09 || c == 0x0c || c == 0x0d; }

static inline int ends_section(u32 c) { return c == '/' || c == '>' || is_space(c); }

static inline int is_alpha(u32 c) { return (c | 0x20) - 97u < 26u; }

/* The JS NameTable's hash of a lowercased name, or -1 when a character is outside [A-Za-z0-9:-]. */
static i32 name_hash(const u8 *s, i32 n) {
  i32 hash = n;
  for (i32 i = 0; i < n; i++) {
    u32 c = lower(s[i]);
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 58) || c == 45)) return -1;
    hash = (i32)((u32)hash * 31u + c);
  }
  return hash & 0x7fffffff;
}

static int same_lowered(const u8 *s, const char *name, i32 n) {
  for (i32 i = 0; i < n; i++)
    if (lower(s[i]) != (u8)name[i]) return 0;
  return 1;
}

/* A static id for s[0, n) (ASCII case-insensitive), -1 when not there, -2 when JavaScript must lowercase it. */
static i32 static_name(const u8 *s, i32 n) {
  if (n > MAX_NAME_LENGTH) return -2;
  i32 hash = name_hash(s, n);
  if (hash < 0) return -2;
  for (u32 slot = (u32)hash & 1023;; slot = (slot + 1) & 1023) {
    i32 id = (i32)name_slots[slot] - 1;
    if (id < 0) return -1;
    if (name_length[id] == n && same_lowered(s, NAMES[id], n)) return id;
  }
}

static i32 find(const char *name) { return static_name((const u8 *)name, str_length(name)); }

static void set_closes(const char *opener, const char *const *closed, i32 count) {
  i32 id = find(opener);
  for (i32 k = 0; k < count; k++) closes[id] |= close_bit[find(closed[k])];
}

static int initialized;

static void init(void) {
  for (i32 id = 0; id < NAME_COUNT; id++) {
    name_length[id] = (u8)str_length(NAMES[id]);
    svg_adjusted[id] = id;
    if (id >= SVG_CAMEL_FROM) continue;
    props[id] |= P_LOOKUP;
    u32 slot = (u32)name_hash((const u8 *)NAMES[id], name_length[id]) & 1023;
    while (name_slots[slot] != 0) slot = (slot + 1) & 1023;
    name_slots[slot] = (u16)(id + 1);
  }
  for (i32 k = 0; k < 37; k++) svg_adjusted[SVG_LOWER_FROM + k] = SVG_CAMEL_FROM + k;
  static const char *const voids[] = {"area", "base", "basefont", "br", "col", "command", "embed", "frame", "hr",
                                      "img", "input", "isindex", "keygen", "link", "meta", "param", "source",
                                      "track", "wbr"};
  for (u32 k = 0; k < sizeof(voids) / sizeof(voids[0]); k++) props[find(voids[k])] |= P_VOID;
  static const char *const integration[] = {"mi", "mo", "mn", "ms", "mtext", "annotation-xml", "desc", "title"};
  for (u32 k = 0; k < sizeof(integration) / sizeof(integration[0]); k++) props[find(integration[k])] |= P_INTEGRATION;
  props[SVG_CAMEL_FROM + 32] |= P_INTEGRATION; /* foreignObject */
  static const char *const raw[] = {"script", "style", "xmp", "iframe", "noembed", "noframes"};
  for (u32 k = 0; k < sizeof(raw) / sizeof(raw[0]); k++) only_model[find(raw[k])] = RAW_TEXT;
  only_model[find("title")] = RCDATA;
  only_model[find("textarea")] = RCDATA;
  only_model[find("plaintext")] = PLAINTEXT;
  /* htmlparser2's openImpliesClose (html-scanner.ts OPEN_IMPLIES_CLOSE), as bits of the names closed. */
  static const char *const closable[] = {"tr", "th", "td", "thead", "head", "link", "script", "a", "li", "p", "h1",
                                         "h2", "h3", "h4", "h5", "h6", "input", "option", "optgroup", "select",
                                         "button", "datalist", "textarea", "dd", "dt", "rt", "rp", "tbody"};
  for (u32 k = 0; k < sizeof(closable) / sizeof(closable[0]); k++) close_bit[find(closable[k])] = 1u << k;
  static const char *const trs[] = {"tr", "th", "td"};
  set_closes("tr", trs, 3);
  static const char *const ths[] = {"th"};
  set_closes("th", ths, 1);
  static const char *const tds[] = {"thead", "th", "td"};
  set_closes("td", tds, 3);
  static const char *const bodys[] = {"head", "link", "script"};
  set_closes("body", bodys, 3);
  static const char *const as[] = {"a"};
  set_closes("a", as, 1);
  static const char *const lis[] = {"li"};
  set_closes("li", lis, 1);
  static const char *const ps[] = {"p"};
  set_closes("p", ps, 1);
  static const char *const headings[] = {"h1", "h2", "h3", "h4", "h5", "h6", "p"};
  for (i32 k = 0; k < 6; k++) set_closes(headings[k], headings, 7);
  static const char *const controls[] = {"input", "option", "optgroup", "select", "button", "datalist", "textarea"};
  static const char *const control_openers[] = {"select", "input", "output", "button", "datalist", "textarea"};
  for (i32 k = 0; k < 6; k++) set_closes(control_openers[k], controls, 7);
  static const char *const options[] = {"option"};
  set_closes("option", options, 1);
  static const char *const optgroups[] = {"optgroup", "option"};
  set_closes("optgroup", optgroups, 2);
  static const char *const dds[] = {"dd", "dt"};
  set_closes("dd", dds, 2);
  set_closes("dt", dds, 2);
  static const char *const blocks[] = {"address", "article", "aside", "blockquote", "details", "div", "dl",
                                       "fieldset", "figcaption", "figure", "footer", "form", "header", "hr", "main",
                                       "nav", "ol", "pre", "section", "table", "ul"};
  for (u32 k = 0; k < sizeof(blocks) / sizeof(blocks[0]); k++) set_closes(blocks[k], ps, 1);
  static const char *const rts[] = {"rt", "rp"};
  set_closes("rt", rts, 2);
  set_closes("rp", rts, 2);
  static const char *const sections[] = {"thead", "tbody"};
  set_closes("tbody", sections, 2);
  set_closes("tfoot", sections, 2);
  id_a = find("a");
  id_br = find("br");
  id_form = find("form");
  id_image = find("image");
  id_img = find("img");
  id_p = find("p");
  id_svg = find("svg");
  id_math = find("math");
  initialized = 1;
}

/* ---- records ---- */

static inline void record(i32 type, i32 id, i32 start, i32 end) {
  if (nrec == REC_CAP) {
    js_flush();
    nrec = 0;
  }
  i32 *r = records + nrec * 4;
  r[0] = type;
  r[1] = id;
  r[2] = start;
  r[3] = end;
  nrec++;
}

/* ---- the stack of open elements ---- */

static inline u32 props_of(i32 id) { return id < NAME_COUNT ? props[id] : 0; }

static inline int is_open(i32 id) { return counts[id] != 0; }

static inline int pushes_foreign(i32 id) { return id == id_svg || id == id_math || (props_of(id) & P_INTEGRATION); }

static void pop_element(i32 implied) {
  i32 id = (i32)stack[--depth];
  counts[id]--;
  if (pushes_foreign(id)) fdepth--;
  record(R_CLOSE | (implied ? F_IMPLIED << 8 : 0), id, 0, 0);
}

/* htmlparser2's emitOpenTag up to the attributes: implied closes, the stack; -1 for an ignored second form. */
static i32 open_element(i32 id) {
  if (id == id_form && is_open(id_form)) return -1;
  if (id < NAME_COUNT) {
    u32 closed = closes[id];
    if (closed != 0)
      while (depth > 0 && stack[depth - 1] < (u32)NAME_COUNT && (closed & close_bit[stack[depth - 1]])) pop_element(1);
  }
  if (!(props_of(id) & P_VOID)) {
    stack[depth++] = (u32)id;
    counts[id]++;
    if (id == id_svg) fstack[++fdepth] = SVG;
    else if (id == id_math) fstack[++fdepth] = MATHML;
    else if (props_of(id) & P_INTEGRATION) fstack[++fdepth] = NONE;
  }
  return id;
}

/* htmlparser2's onclosetag for an end tag of element `id`. */
static void close_tag(i32 id) {
  if (!(props_of(id) & P_VOID)) {
    i32 at = -1;
    if (is_open(id))
      for (at = depth - 1; at >= 0 && stack[at] != (u32)id; at--) {
      }
    if (at != -1) {
      while (depth - 1 > at) pop_element(1);
      pop_element(0);
    } else if (id == id_p) {
      open_element(id_p);
      record(R_OPEN, id_p, 0, 0);
      if (depth > 0 && stack[depth - 1] == (u32)id_p) pop_element(0);
    }
  } else if (id == id_br) {
    record(R_OPEN, id_br, 0, 0);
    record(R_CLOSE, id_br, 0, 0);
  }
}

/* The element name of s[from, to) as the JS scanner's tagName gives it; -1 past the id cap. */
static i32 tag_name(const u8 *s, i32 from, i32 to) {
  i32 id = static_name(s + from, to - from);
  if (id < 0) {
    id = js_intern((i32)(s + from), to - from);
    if (id < 0) return -1;
  }
  u32 context = fstack[fdepth];
  if (context == SVG) return id < NAME_COUNT ? svg_adjusted[id] : id;
  if (fdepth > 0 && id < NAME_COUNT) {
    i32 adjusted = svg_adjusted[id];
    if (adjusted != id && is_open(adjusted)) return adjusted;
  }
  if (context == NONE) return id == id_image ? id_img : id;
  return id;
}

/* ---- attributes ---- */

/* The configured index of attribute name s[0, n), -1 when not configured, -2 when JavaScript must look. */
static i32 attribute_index(const u8 *s, i32 n) {
  if (n > MAX_NAME_LENGTH) return -2;
  i32 hash = name_hash(s, n);
  if (hash < 0) return -2;
  for (u32 slot = (u32)hash & 255;; slot = (slot + 1) & 255) {
    i32 k = (i32)attr_slots[slot] - 1;
    if (k < 0) return -1;
    const u8 *name = attr_config + k * (MAX_NAME_LENGTH + 1);
    if (name[0] == n && same_lowered(s, (const char *)name + 1, n)) return k;
  }
}

/* ---- the scanner ---- */

static i32 at_end;

static i32 to_next_gt(const u8 *s, i32 n, i32 from) {
  for (i32 i = from; i < n; i++)
    if (s[i] == '>') return i + 1;
  return at_end ? n : -1;
}

static inline void text(i32 from, i32 to, i32 mode, i32 id) {
  if (to > from) record(R_TEXT | (mode << 8), id, from, to);
}

/* Where text may be cut without cutting a character reference (html-scanner.ts entityCut). */
static i32 entity_cut(const u8 *s, i32 from, i32 to) {
  for (i32 i = to - 1; i >= from; i--) {
    u32 c = s[i];
    if (c == '&') return i;
    if (!((c - 48u < 10u) || ((c | 0x20) - 97u < 26u) || c == '#')) return to;
  }
  return to;
}

static int after_end_tag_start(const u8 *s, i32 at, i32 id) {
  const char *name = NAMES[id];
  i32 length_max = name_length[id] + 1;
  for (i32 length = 1; length <= length_max && length <= at; length++) {
    i32 start = at - length;
    if (s[start] != '<') continue;
    if (length == 1) return 1;
    if (s[start + 1] != '/') return 0;
    return length == 2 || same_lowered(s + start + 2, name, length - 2);
  }
  return 0;
}

static i32 rcdata_cut(const u8 *s, i32 from, i32 to, i32 id) {
  i32 cut = entity_cut(s, from, to);
  if (cut == to || !after_end_tag_start(s, cut, id)) return cut;
  i32 lt = cut - 1;
  while (lt >= 0 && s[lt] != '<') lt--;
  return lt > from ? lt : from;
}

static i32 comment(const u8 *s, i32 n, i32 from) {
  if (from >= n) return at_end ? n : -1;
  if (s[from] == '>') return from + 1;
  if (s[from] == '-') {
    if (from + 1 >= n) return at_end ? n : -1;
    if (s[from + 1] == '>') return from + 2;
  }
  for (i32 d = from; d + 1 < n; d++) {
    if (s[d] != '-' || s[d + 1] != '-') continue;
    i32 k = d + 2;
    while (k < n && s[k] == '-') k++;
    if (k >= n) break;
    if (s[k] == '>') return k + 1;
    if (s[k] == '!') {
      if (k + 1 >= n) break;
      if (s[k + 1] == '>') return k + 2;
    }
    d = k - 1;
  }
  return at_end ? n : -1;
}

static i32 declaration(const u8 *s, i32 n, i32 lt) {
  i32 at = lt + 2;
  if (at >= n) return at_end ? n : -1;
  u32 c = s[at];
  if (c == '-') {
    if (at + 1 >= n) return at_end ? n : -1;
    if (s[at + 1] != '-') return to_next_gt(s, n, at + 1);
    return comment(s, n, at + 2);
  }
  if (c == '[') {
    static const char cdata[] = "CDATA[";
    for (i32 k = 0; k < 6; k++) {
      if (at + 1 + k >= n) {
        if (!at_end) return -1;
        return to_next_gt(s, n, at + 1);
      }
      if (s[at + 1 + k] != (u8)cdata[k]) return to_next_gt(s, n, at + 1 + k);
    }
    i32 from = at + 7;
    i32 end = -1;
    for (i32 i = from; i + 2 < n; i++)
      if (s[i] == ']' && s[i + 1] == ']' && s[i + 2] == '>') {
        end = i;
        break;
      }
    if (end == -1) return at_end ? n : -1;
    if (fstack[fdepth] != NONE) text(from, end, T_RAW, 0);
    return end + 3;
  }
  return to_next_gt(s, n, at);
}

static i32 end_tag(const u8 *s, i32 n, i32 lt) {
  i32 at = lt + 2;
  if (at >= n) {
    if (!at_end) return -1;
    text(lt, n, T_RAW, 0);
    return n;
  }
  u32 c = s[at];
  if (c == '>') return at + 1;
  if (!is_alpha(c)) return to_next_gt(s, n, at);
  i32 name_end = at + 1;
  while (name_end < n && !ends_section(s[name_end])) name_end++;
  if (name_end >= n) return at_end ? n : -1;
  i32 gt = -1;
  for (i32 i = name_end; i < n; i++)
    if (s[i] == '>') {
      gt = i;
      break;
    }
  if (gt == -1 && !at_end) return -1;
  i32 id = tag_name(s, at, name_end);
  if (id < 0) {
    overflowed = 1;
    return -1;
  }
  close_tag(id);
  return gt == -1 ? n : gt + 1;
}

/* One attribute of the tag: reported when read on it (first of a name only), or its name when JavaScript must look. */
static inline void attribute(const u8 *s, i32 tag, u64 reads, u64 *taken, i32 name_start, i32 name_end, i32 value_start,
                             i32 value_end) {
  i32 k = attribute_index(s + name_start, name_end - name_start);
  if (k == -1) return;
  if (k >= 0 && (!((reads >> k) & 1) || ((*taken >> k) & 1))) return;
  u32 flags = 0;
  for (i32 i = value_start; i < value_end; i++) {
    u32 c = s[i];
    if (c == '&') flags |= F_AMP;
    flags |= (c >> 7) << 2; /* F_WIDE */
  }
  if (k >= 0) *taken |= 1ull << k;
  else record(R_ATTR_NAME, tag, name_start, name_end);
  record(R_ATTR | (i32)(flags << 8), k, value_start, value_end);
}

/* A start tag at `lt`: its events, and past it; -1 when cut off (or on overflow). */
static i32 start_tag(const u8 *s, i32 n, i32 lt) {
  i32 in_foreign = fstack[fdepth] != NONE;
  i32 i = lt + 2;
  while (i < n && !ends_section(s[i])) i++;
  if (i >= n) return at_end ? n : -1;
  if (depth >= DEPTH_CAP - 2) {
    overflowed = 1;
    return -1;
  }
  i32 id = tag_name(s, lt + 1, i);
  if (id < 0) {
    overflowed = 1;
    return -1;
  }
  u64 reads = id < MASK_CAP ? read_masks[id] : read_elsewhere;
  u64 taken = 0;
  /* Nothing read on this tag: its attributes are only passed over. */
  i32 skip = reads == 0;
  i32 end = -1, self_closing = 0, after_slash = 0;
  while (i < n) {
    u32 c = s[i];
    if (c == '>') {
      end = i + 1;
      self_closing = after_slash;
      break;
    }
    if (is_space(c)) {
      i++;
      continue;
    }
    if (c == '/') {
      after_slash = 1;
      i++;
      continue;
    }
    after_slash = 0;
    i32 name_start = i++;
    while (i < n) {
      u32 d = s[i];
      if (d == '=' || ends_section(d)) break;
      i++;
    }
    if (i >= n) break;
    i32 name_end = i;
    while (i < n && is_space(s[i])) i++;
    if (i >= n) break;
    if (s[i] != '=') {
      if (!skip) attribute(s, id, reads, &taken, name_start, name_end, 0, 0);
      continue;
    }
    i++;
    while (i < n && is_space(s[i])) i++;
    if (i >= n) break;
    u32 q = s[i];
    if (q == '"' || q == '\'') {
      i32 close = i + 1;
      while (close < n && s[close] != q) close++;
      if (close >= n) break;
      if (!skip) attribute(s, id, reads, &taken, name_start, name_end, i + 1, close);
      i = close + 1;
    } else {
      i32 value_start = i;
      while (i < n) {
        u32 d = s[i];
        if (d == '>' || is_space(d)) break;
        i++;
      }
      if (i >= n) break;
      if (!skip) attribute(s, id, reads, &taken, name_start, name_end, value_start, i);
    }
  }
  if (end == -1) {
    if (!at_end) return -1;
    record(R_DROP, 0, 0, 0);
    open_element(id);
    return n;
  }
  i32 opened = open_element(id);
  if (opened >= 0) {
    record(R_OPEN, id, 0, 0);
    if (props_of(id) & P_VOID) record(R_CLOSE | (F_IMPLIED << 8), id, 0, 0);
    else if (self_closing && fstack[fdepth] != NONE && depth > 0 && stack[depth - 1] == (u32)id) pop_element(1);
  } else {
    record(R_DROP, 0, 0, 0);
  }
  if (!in_foreign && id < NAME_COUNT && only_model[id] != 0) {
    text_only = id;
    text_model = only_model[id];
  }
  return end;
}

static i32 markup(const u8 *s, i32 n, i32 lt) {
  if (lt + 1 >= n) {
    if (!at_end) return -1;
    text(lt, n, T_RAW, 0);
    return n;
  }
  u32 c = s[lt + 1];
  if (is_alpha(c)) return start_tag(s, n, lt);
  if (c == '/') return end_tag(s, n, lt);
  if (c == '!') return declaration(s, n, lt);
  if (c == '?') return to_next_gt(s, n, lt + 2);
  text(lt, lt + 1, T_RAW, 0);
  return lt + 1;
}

/* Text to the end tag of the text-only element: the index of that end tag, or -(where to keep from) - 2. */
static i32 scan_text_only(const u8 *s, i32 n, i32 from) {
  i32 id = text_only;
  i32 decode = text_model == RCDATA;
  i32 mode = decode ? T_RCDATA : T_RAW;
  if (text_model == PLAINTEXT) {
    text(from, n, T_RAW, 0);
    return n;
  }
  const char *name = NAMES[id];
  i32 length = name_length[id];
  for (i32 lt = from; lt + 1 < n; lt++) {
    if (s[lt] != '<' || s[lt + 1] != '/') continue;
    i32 after = lt + 2 + length;
    if (after >= n) {
      if (at_end) break;
      i32 cut = decode ? rcdata_cut(s, from, lt, id) : lt;
      text(from, cut, mode, id);
      return -cut - 2;
    }
    if (!same_lowered(s + lt + 2, name, length) || !ends_section(s[after])) continue;
    text(from, lt, mode, id);
    text_only = -1;
    text_model = 0;
    return lt;
  }
  if (at_end) {
    text(from, n, mode, id);
    return n;
  }
  i32 cut = n - length - 2;
  if (cut < from) cut = from;
  i32 last_lt = n - 1;
  while (last_lt >= 0 && s[last_lt] != '<') last_lt--;
  cut = last_lt >= cut ? last_lt : n;
  if (decode) cut = rcdata_cut(s, from, cut, id);
  text(from, cut, mode, id);
  return -cut - 2;
}

/*
 * Reads input[0, n) (`final`: the page ends there). Returns where the unread rest starts (kept for the next
 * call), n when all was read. After an overflow, overflowed() is set and the rest starts at the tag not read.
 */
EXPORT(scan) i32 scan(i32 n, i32 final) {
  const u8 *s = INPUT;
  at_end = final;
  i32 i = 0;
  while (i < n) {
    if (text_only >= 0) {
      i32 next = scan_text_only(s, n, i);
      if (next < -1) return -next - 2;
      i = next;
      continue;
    }
    i32 lt = i;
    while (lt < n && s[lt] != '<') lt++;
    if (lt == n) {
      i32 cut = final ? n : entity_cut(s, i, n);
      text(i, cut, T_DECODE, 0);
      return cut;
    }
    if (lt > i) text(i, lt, T_DECODE, 0);
    i32 next = markup(s, n, lt);
    if (next == -1) return lt;
    i = next;
  }
  return n;
}

/* The page's end: the elements still open reported closed, innermost first, without popping them. */
EXPORT(finish) void finish(void) {
  for (i32 k = depth - 1; k >= 0; k--) record(R_CLOSE | (F_IMPLIED << 8), (i32)stack[k], 0, 0);
}

/* Ready for a new page (counts of the elements left open cleared, so no whole-table reset). */
EXPORT(reset) void reset(void) {
  if (!initialized) init();
  for (i32 k = 0; k < depth; k++) counts[stack[k]] = 0;
  depth = 0;
  fdepth = 0;
  fstack[0] = NONE;
  text_only = -1;
  text_model = 0;
  overflowed = 0;
  nrec = 0;
}

/* The attribute names read (written at attr_config_ptr(): length byte, then the lowercased name). */
EXPORT(configure) void configure(i32 count) {
  if (!initialized) init();
  attr_count = count;
  for (i32 k = 0; k < 256; k++) attr_slots[k] = 0;
  for (i32 k = 0; k < count; k++) {
    const u8 *name = attr_config + k * (MAX_NAME_LENGTH + 1);
    u32 slot = (u32)name_hash(name + 1, name[0]) & 255;
    while (attr_slots[slot] != 0) slot = (slot + 1) & 255;
    attr_slots[slot] = (u16)(k + 1);
  }
  for (i32 k = 0; k < MASK_CAP; k++) read_masks[k] = 0;
}

EXPORT(set_reads) void set_reads(i32 id, u32 low, u32 high) {
  u64 mask = ((u64)high << 32) | low;
  if (id < 0) {
    /* Everywhere first: every id takes it until its tag's own set is given. */
    read_elsewhere = mask;
    for (i32 k = 0; k < MASK_CAP; k++) read_masks[k] = mask;
  } else if (id < MASK_CAP) read_masks[id] = mask;
}

EXPORT(input_ptr) i32 input_ptr(void) { return (i32)INPUT; }
EXPORT(records_ptr) i32 records_ptr(void) { return (i32)records; }
EXPORT(record_count) i32 record_count(void) { return nrec; }
EXPORT(clear_records) void clear_records(void) { nrec = 0; }
EXPORT(attr_config_ptr) i32 attr_config_ptr(void) { return (i32)attr_config; }
EXPORT(stack_ptr) i32 stack_ptr(void) { return (i32)stack; }
EXPORT(stack_depth) i32 stack_depth(void) { return depth; }
EXPORT(is_overflowed) i32 is_overflowed(void) { return overflowed; }
EXPORT(static_count) i32 static_count(void) { return NAME_COUNT; }
EXPORT(mask_cap) i32 mask_cap(void) { return MASK_CAP; }
EXPORT(id_cap) i32 id_cap(void) { return ID_CAP; }
/* The static names, for JavaScript's id → name table: the address of name `id` (NUL-terminated). */
EXPORT(name_ptr) i32 name_ptr(i32 id) { return (i32)NAMES[id]; }
