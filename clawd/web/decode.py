"""What a fetched body is and how to read it as text: its kind (html, markdown, json, text or
binary) from the Content-Type header or, without one, from the bytes; its characters by the
header's charset, then the document's own <meta charset>, then detection. A charset is one of
the WHATWG Encoding Standard's labels (webencodings), never any Python codec a page names."""

from __future__ import annotations

import codecs
import functools
import re

import webencodings
from webencodings.labels import LABELS

from clawd.web.watchdog import Deadline

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})
TEXT_APPLICATION_TYPES = frozenset(
    {
        "application/xml",
        "application/javascript",
        "application/ecmascript",
        "application/x-yaml",
        "application/yaml",
        "application/toml",
        "application/x-sh",
        "application/rss+xml",
        "application/atom+xml",
    }
)
SNIFF_BYTES = 4096

# linear: a tag's search for `charset` stops at the next `<`, so a run of `<meta` is scanned once,
# not once from each of them
_META_CHARSET = re.compile(
    rb"""<meta(?:[^<>c]|c(?!harset))*+charset\s*+=\s*+["']?\s*+([A-Za-z0-9_.:\-]{1,40})""",
    re.IGNORECASE,
)
# possessive (*+): a run of k comments is read one way (each ends at its first `-->`, as in HTML),
# not in each of its 2**k groupings when what follows is not an HTML tag
_HTML_START = re.compile(
    rb"^\s*+(?:<!--.*?-->\s*+)*+<(!doctype\s+html|html|head|body|meta|title|div|p)\b",
    re.IGNORECASE | re.DOTALL,
)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
DECODE_CHUNK = 65536  # bytes decoded between two looks at the fetch's deadline
DETECT_BYTES = 65536
REPLACEMENT = "replacement"  # WHATWG: iso-2022-kr, hz-gb-2312...: a page in it reads as one U+FFFD
# WHATWG decodes gbk with gb18030's decoder (a superset); webencodings hands out Python's gbk
_CODEC_OF = {"gbk": "gb18030"}
# the <meta> prescan reads these as others (HTML: "prescan a byte stream"): a document that says
# it is UTF-16 in its own ASCII bytes is not
_META_READS_AS = {"utf-16le": "utf-8", "utf-16be": "utf-8", "x-user-defined": "windows-1252"}


def media_type(content_type: str | None) -> str:
    """`text/html; charset=x` -> `text/html` (lowercase); '' when absent."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def header_charset(content_type: str | None) -> str | None:
    for param in (content_type or "").split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip("\"'") or None
    return None


def kind_of(content_type: str | None, head: bytes) -> str:
    """html | markdown | json | text | binary, by the header, else by sniffing the first bytes."""
    kind = declared_kind(content_type)
    if kind is not None:
        return kind
    return _sniff(head[:SNIFF_BYTES])


def declared_kind(content_type: str | None) -> str | None:
    """The kind the Content-Type header declares; None when it says nothing useful."""
    mtype = media_type(content_type)
    if not mtype or mtype in ("application/octet-stream", "binary/octet-stream"):
        return None  # servers label anything so: look at the bytes
    if mtype in HTML_TYPES:
        return "html"
    if mtype in MARKDOWN_TYPES:
        return "markdown"
    if mtype == "application/json" or mtype.endswith("+json"):
        return "json"
    if mtype.startswith("text/") or mtype in TEXT_APPLICATION_TYPES or mtype.endswith("+xml"):
        return "text"
    return "binary"


def _sniff(head: bytes) -> str:
    if any(head.startswith(bom) for bom, _ in _BOMS[1:]):
        return "text"
    if b"\x00" in head:
        return "binary"
    if _HTML_START.match(head):
        return "html"
    stripped = head.lstrip()
    if stripped[:1] in (b"{", b"[") and _decodes(head):
        return "json"
    return "text" if _decodes(head) else "binary"


def _decodes(head: bytes) -> bool:
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start >= len(head) - 3  # cut in the middle of the last character
    return True


def decode(
    body: bytes, content_type: str | None, kind: str, *, deadline: Deadline | None = None
) -> tuple[str, str]:
    """(text, the codec used). Bad bytes become U+FFFD; only a passed `deadline` (the fetch's)
    raises, between two chunks, so no charset holds the service past the fetch's time."""
    codec = _codec_for(body, content_type, kind, deadline)
    if codec.name == REPLACEMENT:
        return ("\ufffd" if body else ""), codec.name
    return _decoded(body, codec, deadline), codec.name


def _decoded(body: bytes, codec: codecs.CodecInfo, deadline: Deadline | None) -> str:
    decoder = codec.incrementaldecoder(errors="replace")
    parts = []
    for start in range(0, len(body), DECODE_CHUNK):
        if deadline is not None:
            deadline.check()
        parts.append(decoder.decode(body[start : start + DECODE_CHUNK]))
    parts.append(decoder.decode(b"", final=True))
    return "".join(parts)


def _codec_for(body, content_type, kind, deadline) -> codecs.CodecInfo:
    for bom, name in _BOMS:
        if body.startswith(bom):
            return codecs.lookup(name)  # a byte order mark wins over every label (WHATWG)
    known = web_encoding(header_charset(content_type))
    if known is None and kind == "html":
        known = web_encoding(_meta_charset(body), _META_READS_AS)
    if known is not None:
        return known
    if kind == "json" or _decodes(body[:DETECT_BYTES]):
        return codecs.lookup("utf-8")
    if deadline is not None:
        deadline.check()
    return _detected(body)


def web_encoding(label: str | None, reads_as: dict | None = None) -> codecs.CodecInfo | None:
    """The codec of a WHATWG Encoding Standard label (`latin1` is windows-1252, `gb2312` is
    gb18030's decoder); None for any other label (`foo`, and Python's `punycode`, `rot13`...)."""
    found = webencodings.lookup(label) if label else None
    if found is None:
        return None
    name = (reads_as or {}).get(found.name, found.name)
    if name in _CODEC_OF:
        return codecs.lookup(_CODEC_OF[name])
    return found.codec_info if name == found.name else webencodings.lookup(name).codec_info


def _meta_charset(body: bytes) -> str | None:
    found = _META_CHARSET.search(body[:16384])
    return found.group(1).decode("ascii", "ignore") if found else None


@functools.cache
def _detectable() -> tuple[str, ...]:
    """The codecs detection may answer: those of WHATWG encodings (not x-user-defined, whose
    bytes are anything, nor the replacement encoding, which is no reading at all)."""
    names = set(LABELS.values()) - {REPLACEMENT, "x-user-defined"}
    return tuple(sorted({web_encoding(name).name for name in names}))


def _detected(body: bytes) -> codecs.CodecInfo:
    from charset_normalizer import from_bytes  # ships with requests; only for unlabelled bytes

    best = from_bytes(body[:DETECT_BYTES], cp_isolation=_detectable()).best()
    return codecs.lookup(best.encoding if best is not None else "utf-8")
