#!/usr/bin/env python3
"""Checks on the forecast page as Chromium rendered it (contrib/browser/check_page.sh).

    check_page.py FORECAST.json DOM.html SCREENSHOT.png CHROMIUM.log

FORECAST.json is `jobsort forecast --format json` of the snapshot the page was made from;
DOM.html is what `chromium --dump-dom` printed for the page opened with
`#sort-queue-table-1-desc` (sort by id, descending); SCREENSHOT.png is its screenshot;
CHROMIUM.log is Chromium's stderr for the DOM run (--enable-logging=stderr), with the
page's console messages.
Python's standard library only: html.parser for the DOM, zlib and struct for the PNG.
"""

import json
import struct
import sys
import zlib
from html.parser import HTMLParser

passed = 0
failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"browser: ok: {name}")
    else:
        failed += 1
        print(f"browser: FAILED: {name}{': ' + detail if detail else ''}")


class Dom(HTMLParser):
    """table#queue-table: its headings, and its body's rows (each a list of (cell text,
    cell data-k)); every element's tag name; <html>'s attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.html_attrs = {}
        self.heads = []
        self.head = None
        self.rows = []
        self.row_ids = []
        self.table = None  # the id of the table we are in
        self.in_body = False
        self.cell = None
        self.texts = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "html":
            self.html_attrs = a
        elif tag == "table":
            self.table = a.get("id")
        elif tag == "tbody" and self.table == "queue-table":
            self.in_body = True
        elif tag == "tr" and self.in_body:
            self.rows.append([])
            self.row_ids.append(a.get("id"))
        elif tag == "td" and self.in_body:
            self.cell = []
            self.key = a.get("data-k")
        elif tag == "th" and self.table == "queue-table":
            self.head = []

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.rows[-1].append((" ".join("".join(self.cell).split()), self.key))
            self.cell = None
        elif tag == "th" and self.head is not None:
            self.heads.append(" ".join("".join(self.head).split()))
            self.head = None
        elif tag == "tbody":
            self.in_body = False
        elif tag == "table":
            self.table = None

    def handle_data(self, data):
        self.texts.append(data)
        if self.cell is not None:
            self.cell.append(data)
        if self.head is not None:
            self.head.append(data)


def png_pixels(path):
    """Width, height and the rows of RGB(A) bytes of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError(f"PNG depth {depth}, colour type {colour}, interlace {interlace}")
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, at = [], bytearray(stride), 0
    for _ in range(height):
        filt, line = raw[at], bytearray(raw[at + 1 : at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if filt == 1:
                line[i] = (line[i] + a) & 255
            elif filt == 2:
                line[i] = (line[i] + b) & 255
            elif filt == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif filt == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    forecast_path, dom_path, shot_path, log_path = sys.argv[1:5]
    with open(forecast_path) as f:
        doc = json.load(f)
    with open(dom_path, encoding="utf-8") as f:
        dom_text = f.read()
    dom = Dom()
    dom.feed(dom_text)
    jobs = doc["jobs"]

    # The sort script ran: its marker, and the rows in the order the link asked for.
    check(
        "the sort script ran (data-sort-ready on <html>)",
        dom.html_attrs.get("data-sort-ready") == "2",
        repr(dom.html_attrs),
    )
    check(
        "one row per waiting job",
        len(dom.rows) == len(jobs),
        f"{len(dom.rows)} rows, {len(jobs)} jobs",
    )
    col = {h: i for i, h in enumerate(dom.heads)}
    need = ["rank", "id", "user", "priority", "forecast start"]
    check("the table has its columns", all(h in col for h in need), repr(dom.heads))
    if not all(h in col for h in need):
        print(f"browser: {passed} passed, {failed + 1} failed")
        return 1
    cell = lambda r, h: r[col[h]] if col[h] < len(r) else ("", None)
    ids = [cell(r, "id")[0] for r in dom.rows]
    check(
        "the rows are sorted by id, descending (#sort-queue-table-1-desc)",
        ids == sorted((j["id"] for j in jobs), reverse=True),
        repr(ids),
    )
    by_id = {j["id"]: j for j in jobs}
    bad = []
    for r in dom.rows:
        j = by_id.get(cell(r, "id")[0])
        if j is None:
            bad.append(f"row {r[:2]}: no such job")
            continue
        jid = j["id"]
        if cell(r, "rank")[0] != str(j["rank"]):
            bad.append(f"{jid}: rank {cell(r, 'rank')[0]}, the JSON says {j['rank']}")
        text, key = cell(r, "priority")
        if j["value"] is None:
            if text != "-" or key:
                bad.append(f"{jid}: value {text!r}, the JSON has none")
        elif key is None or float(key) != j["value"]:
            bad.append(f"{jid}: value {key!r}, the JSON says {j['value']}")
        elif abs(float(text.split()[0]) - j["value"]) > 1e-3 * max(1.0, abs(j["value"])):
            bad.append(f"{jid}: shows {text!r} for {j['value']}")
        if cell(r, "user")[0] != (j["user"] or "?"):
            bad.append(f"{jid}: user {cell(r, 'user')[0]!r}, the JSON says {j['user']!r}")
        start = cell(r, "forecast start")[1]
        if (start or None) != (str(j["start"]) if j["start"] is not None else None):
            bad.append(f"{jid}: start {start!r}, the JSON says {j['start']}")
    check(
        "each row has its job's id, rank, user, priority value and forecast start",
        not bad,
        "; ".join(bad),
    )

    # The hostile user name is text: one <script> element (the page's own), and the name
    # shows as written.
    check(
        "a user named <script>... is text, not an element",
        dom.tags.count("script") == 1 and any("<script>alert(1)</script>" in t for t in dom.texts),
        f"{dom.tags.count('script')} script elements",
    )
    check("the chart is there (inline <svg>)", "svg" in dom.tags and "rect" in dom.tags)
    with open(log_path, encoding="utf-8", errors="replace") as f:
        console = [line.strip() for line in f if ":CONSOLE" in line]
    check("the console is silent (no script error)", not console, "; ".join(console[:3]))

    # The screenshot is not blank.
    try:
        width, height, bpp, rows = png_pixels(shot_path)
    except (OSError, ValueError, zlib.error) as e:
        check("the screenshot decodes", False, str(e))
    else:
        colours, white = set(), 0
        for row in rows[::2]:
            for x in range(0, width * bpp, bpp * 2):
                px = row[x : x + 3]
                colours.add(px)
                white += px == b"\xff\xff\xff"
        sampled = len(rows[::2]) * len(range(0, width * bpp, bpp * 2))
        inked = 1 - white / sampled
        print(f"browser: screenshot {width}x{height}, {len(colours)} colours, {inked:.0%} not white")
        check("the screenshot is not blank", len(colours) >= 50 and inked >= 0.05)

    print(f"browser: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
