#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The book: it renders with warnings as errors, the HTML has what a reader
# needs (one page per chapter, contents, numbered chapters, highlighted diffs,
# links to the labs), every page has the sidebar and previous/next links,
# every internal link of every page leads to a file and an id, the reference
# answers are folded, the search index holds every chapter (and finds a word
# of one chapter there only), a lab without a chapter is listed and skipped,
# a broken directive or name anchor fails (named with its file and name), a
# hunk number or lines= is a warning, commit messages keep the blank line
# after the subject, the EPUB has its figures, its cover and its own
# stylesheet, and (when chromium is installed) the pages really draw: a
# screenshot that is not blank, with the diff colours on it, the search box
# finds the word in lunr.js, and no page is wider than 390 px. Before all
# that, every function the book names exists in each base's kernel tree
# (scripts/claims.py; skipped for a base whose tree is not here).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
. "$here/lib.sh"
export NO_COLOR=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the book of make book (build/book), written where this test looks, for
# whichever base is in use
out=$top/build/book

# --- the functions the book names, in each base's tree (claims.py) --------
# Every `name()` of the book and of the labs' READMEs and hints is defined
# at the tag distro of each base's kernel repository (or the text says which
# base it speaks of); a machine with one base skips the other. The first
# run greps both trees, the second reads its cache (build/claims/).
for b in $(bash -c '. "$1/scripts/lib.sh"; echo "$BASES"' - "$top"); do
	kdir=$(env -u KERNEL_DIR -u BUILD KERNEL="$b" bash -c '. "$1/scripts/lib.sh"; echo "$KERNEL_DIR"' - "$top")
	if ! git -C "$kdir" rev-parse -q --verify 'distro^{commit}' >/dev/null 2>&1; then
		t_ok "every function the book names exists on $b (skipped: no kernel tree)"
	elif l=$(python3 "$top/scripts/claims.py" --base "$b" 2>&1); then
		t_ok "every function the book names exists on $b ($(sed -n 's/^claims\.py: \([0-9]* names\) in .*; \([0-9]* fields\).* (\(.*\))$/\1, \2 in their functions, \3/p' <<<"$l"))"
	else
		t_fail "every function the book names exists on $b (scripts/claims.py --base $b)" "$l"
	fi
done
# CI's book suite runs before the 6.1 tree is imported: with one tree, the
# check must find no problem that it does not find with both (it may find
# fewer). Checked here when both are present, so it shows before CI.
trees=()
for b in $(bash -c '. "$1/scripts/lib.sh"; echo "$BASES"' - "$top"); do
	kdir=$(env -u KERNEL_DIR -u BUILD KERNEL="$b" bash -c '. "$1/scripts/lib.sh"; echo "$KERNEL_DIR"' - "$top")
	git -C "$kdir" rev-parse -q --verify 'distro^{commit}' >/dev/null 2>&1 && trees+=("$b=$kdir")
done
if [ "${#trees[@]}" -ge 2 ]; then
	for t in "${trees[@]}"; do
		b=${t%%=*}
		args=(--base "$b")
		for u in "${trees[@]}"; do
			if [ "$u" = "$t" ]; then args+=(--tree "$u"); else args+=(--tree "${u%%=*}=/nonexistent"); fi
		done
		if l=$(python3 "$top/scripts/claims.py" "${args[@]}" 2>&1); then
			t_ok "the function names on $b, with only $b's tree: no problem the two trees do not find"
		else
			t_fail "the function names on $b, with only $b's tree (claims.py ${args[*]})" "$l"
		fi
	done
fi

# --- the real book, strict ----------------------------------------------
start=$(date +%s%N)
if log=$("$top/scripts/book.sh" --strict --out "$out" 2>&1); then
	t_ok "book renders with no warnings (--strict, $(( ($(date +%s%N) - start) / 1000000 )) ms)"
else
	t_fail "book renders with no warnings (--strict)" "$log"
fi
printf '%s\n' "$log" | grep '^note:' | sed 's/^/# /' || true
html=$out/index.html
[ -f "$html" ] || { t_fail "build/book/index.html exists"; t_summary book; exit 1; }
h=$(cat "$html")
# every page, for the checks that do not care which page
all=$(cat "$out"/*.html)

# one series: a quote names the patch 6.1 applies (its own where it keeps
# one, else the series'), and shows no line numbers, true on both bases
t_grep "series: a step 6.1 keeps on its own is quoted from kernel-steps/6.1/ or solutions/6.1/" \
	'From <code>solutions/6\.1/01-[a-z-]+\.patch</code>' "$(tr '\n' ' ' <"$out/lab-01.html" 2>/dev/null)"
t_grep "series: a step both bases share is quoted from the series" \
	'From <code>solutions/02-[a-z-]+\.patch</code>' "$(tr '\n' ' ' <"$out/lab-02.html" 2>/dev/null)"
t_expect "series: no quoted hunk header gives line numbers" "" \
	"$(printf '%s\n' "$all" | grep -E '^(<span[^>]*>)?@@ -[0-9]' | head -3)"
t_grep "html: a table of contents" '<nav id="TOC"' "$h"
t_grep "html: the contents list the introduction and the course map" 'href="course-map.html"' "$h"
chapters=0
for f in "$top"/book/chapters/[0-9][0-9]-*.md; do
	[ -e "$f" ] || continue
	chapters=$((chapters + 1))
	n=$(basename "$f" | cut -c1-2)
	num=$((10#$n))
	t_grep "html: chapter $num is numbered and in the contents" \
		"<a href=\"lab-$n.html\"[^>]*><span class=\"secno\">$num</span>" "$h"
	slug=$(basename "$f" .md)
	if [ -d "$top/labs/$slug" ]; then
		t_grep "html: chapter $num, on its page lab-$n.html, links to its lab folder" \
			"href=\"\\.\\./\\.\\./labs/$slug/\"" "$(cat "$out/lab-$n.html" 2>/dev/null)"
	else
		t_fail "chapter file $slug.md is named after its lab folder labs/$slug/"
	fi
done
t_grep "html: at least one chapter" '^[1-9]' "$chapters"
links_ok=1
while IFS= read -r l; do
	[ -e "$out/$l" ] || { links_ok=0; t_fail "html: the link $l leads to a file of the repository"; }
done < <(grep -ohE 'href="\.\./\.\./labs/[^"#]*"' "$out"/*.html | sed -E 's/href="(.*)"/\1/' | sort -u)
[ "$links_ok" = 1 ] && t_ok "html: every link to labs/ leads to a file of the repository"
t_grep "html: diff blocks are highlighted (added and removed lines)" \
	'<code class="sourceCode diff">.*<span class="va">\+' "$(tr -d '\n' <<<"$all")"
t_grep "html: removed lines are highlighted too" '<span class="st">-' "$all"
t_grep "html: demo output captured in the guest" '<pre class="text capture">' "$all"
if grep -qE '@LABS@|<!-- *(diff|capture|message|file|lab-section):' "$out"/*.html; then
	t_fail "html: every directive was expanded" "$(grep -nE '@LABS@|<!-- *(diff|capture|message|file|lab-section):' "$out"/*.html | head -5)"
else
	t_ok "html: every directive was expanded"
fi
if l=$(python3 "$top/scripts/bookpages.py" check "$out" 2>&1); then
	t_ok "html: every internal link (href, src) of every page leads to a file and an id in it ($(tail -1 <<<"$l"))"
else
	t_fail "html: every internal link of every page leads to a file and an id in it" "$l"
fi

# The pages, the sidebar, the answer folds and the search index (Python: the
# page list, the previous/next chain and the index data). It prints
# "ok<TAB>name" or "fail<TAB>name<TAB>detail".
pages_check() {
	python3 - "$top" "$out" <<'EOP'
import glob, json, os, re, sys
top, out = sys.argv[1], sys.argv[2]
res = []
def text_cap(m):
    """an alt text that is not just the caption again"""
    cap = re.sub(r"<[^>]+>", "", m.group(2))
    return m.group(1).strip() != " ".join(cap.split())
def check(name, good, detail=""):
    res.append(("ok" if good else "fail", name, str(detail).replace("\n", " ")))
chap = sorted(os.path.basename(f)[:2] for f in glob.glob(top + "/book/chapters/[0-9][0-9]-*.md"))
napp = len(glob.glob(top + "/book/appendix-*.md"))
want = ["index.html", "introduction.html", "course-map.html"] + ["lab-%s.html" % n for n in chap] + \
       ["appendix-%s.html" % "abcdefgh"[i] for i in range(napp)]
have = sorted(os.path.basename(f) for f in glob.glob(out + "/*.html"))
check("pages: one per chapter, plus the contents, introduction, course map and appendices (%d)" % len(want),
      sorted(want) == have, "want %s, have %s" % (want, have))
text = {p: open(os.path.join(out, p), encoding="utf-8").read() for p in have}
def attr(page, rel):
    m = re.search(r'<a class="%s" rel="%s" href="([^"]*)"' % (rel, rel), text.get(page, ""))
    return m.group(1) if m else None
chain, p = [], "index.html"
while p and p not in chain and len(chain) <= len(want):
    chain.append(p)
    p = attr(p, "next")
check("pages: following 'next' from index.html reads every page once, in the book's order", chain == want, chain)
back, p = [], want[-1]
while p and p not in back and len(back) <= len(want):
    back.append(p)
    p = attr(p, "prev")
check("pages: following 'previous' from the last page reads them back", back == want[::-1], back)
both = [p for p in want if text.get(p, "").count('class="pagenav') != 2]
check("pages: every page has the previous/next links above and below its text", not both, both)
side = [p for p in want if not all(x in text.get(p, "") for x in
        ('<nav id="sidebar"', 'id="search-input"', 'src="lunr.min.js"', 'src="search-docs.js"', 'src="search.js"'))]
check("pages: every page has the sidebar with the search box and the contents", not side, side)
cur = [p for p in want[1:] if '<li class="current"><a aria-current="page" href="%s">' % p not in text.get(p, "")]
check("pages: the sidebar marks the page the reader is on", not cur, cur)
bare = [p for p in want if text.get(p, "").count("<table") != text.get(p, "").count('<div class="table-wrap"><table')]
check("pages: every table is in a box of its own (it scrolls there, not the page)", not bare, bare)
viewport = [p for p in want if 'name="viewport" content="width=device-width' not in text.get(p, "")]
check("pages: every page is laid out for the device's width (viewport)", not viewport, viewport)
css = open(os.path.join(out, "style.css"), encoding="utf-8").read()
check("style: a dark theme that follows prefers-color-scheme", "prefers-color-scheme: dark" in css)
check("style: code and captures scroll sideways, never wrap (white-space: pre)",
      re.search(r"pre, pre code[^{]*\{[^}]*white-space: pre;", css) is not None)
# the reference answer is folded: at least one <details> per chapter, and
# every quote of solutions/ (and the commit message) is inside one
for n in chap:
    t = text.get("lab-%s.html" % n, "")
    folds = [(m.start(), t.find("</details>", m.start())) for m in re.finditer('<details class="answer">', t)]
    quotes = [m.start() for m in re.finditer(r'<span class="source">From\s+<code>solutions/|<pre class="text commit">', t)]
    check("answer fold: chapter %d folds its reference answer in a <details>" % int(n),
          folds and quotes and all(any(a < q < b for a, b in folds) for q in quotes),
          "folds at %s, quotes of solutions/ at %s" % (folds, quotes))
# the commit message: its subject, a blank line, then the body (as git
# shows it; a format-patch file folds the subject into its header)
for n in chap:
    msgs = re.findall(r'<pre class="text commit"><code>(.*?)</code>', text.get("lab-%s.html" % n, ""), re.S)
    if not msgs:
        continue
    check("commit message: chapter %d shows it with the blank line after its subject" % int(n),
          all(len(m.split("\n")) > 2 and m.split("\n")[0].strip() and m.split("\n")[1] == ""
                       and m.split("\n")[2].strip() for m in msgs), [m[:120] for m in msgs])
check("commit message: the chapters show one",
      any('<pre class="text commit">' in text.get("lab-%s.html" % n, "") for n in chap))
# figures: every book/figures/NAME.dot drawn as figures/NAME.svg, shown on a
# page in a <figure> with a caption and an alt text of its own
for dot in sorted(glob.glob(top + "/book/figures/*.dot")):
    name = os.path.basename(dot)[:-4]
    svg = os.path.join(out, "figures", name + ".svg")
    ok = os.path.isfile(svg) and "<svg" in open(svg, encoding="utf-8").read(2000)
    shown = [p for p, t in text.items() for m in re.finditer(
        r'<figure>\s*<a href="figures/%s\.svg"><img src="figures/%s\.svg"\s+alt="([^"]{40,})"[^>]*></a>\s*<figcaption>(.{20,}?)</figcaption>'
        % (name, name), t, re.S) if text_cap(m)]
    check("figure %s: drawn by dot, shown with a caption and an alt text (%s)" % (name, ", ".join(shown) or "nowhere"),
          ok and len(shown) == 1, "svg %s, pages %s" % (ok, shown))
# the search index: every page's sections, and a word of one chapter only
js = open(os.path.join(out, "search-docs.js"), encoding="utf-8").read()
docs = json.loads(js[js.index("=") + 1:].strip().rstrip(";"))
pages = {d["url"].split("#")[0] for d in docs}
check("search: the index holds the sections of every page but the contents (%d documents)" % len(docs),
      pages == set(want[1:]), sorted(set(want[1:]) ^ pages))
for n in chap:
    k = sum(1 for d in docs if d["url"].startswith("lab-%s.html#" % n))
    check("search: chapter %d is in the index, section by section (%d)" % (int(n), k), k >= 3)
files = sorted(glob.glob(out + "/src/[0-9]*.md"))
words = {f: set(re.findall(r"[a-z]+", open(f, encoding="utf-8").read().lower())) for f in files}
word = chapter = None
for f in files:
    m = re.search(r"10-chapter-(\d\d)\.md$", f)
    if not m:
        continue
    others = {w[:5] for g in files if g != f for w in words[g]}
    cands = sorted(w for w in words[f] if len(w) >= 8 and w[:5] not in others)
    if cands:
        word, chapter = cands[0], m.group(1)
        break
check("search: a word that only one chapter uses (for the next test)", word is not None)
if word:
    hits = sorted({d["url"] for d in docs if re.search(r"\b%s\b" % word, d["text"].lower())})
    check("search: '%s', a word of chapter %d only, is found there and nowhere else" % (word, int(chapter)),
          hits and all(h.startswith("lab-%s.html" % chapter) for h in hits), hits)
    print("word\t%s\t%s" % (word, chapter))
for r in res:
    print("\t".join(r))
EOP
}
word="" wchap=""
while IFS=$'\t' read -r st name detail; do
	case $st in
	ok) t_ok "$name" ;;
	fail) t_fail "$name" "$detail" ;;
	word) word=$name wchap=$detail ;;
	*) t_fail "pages_check: $st $name $detail" ;;
	esac
done < <(pages_check 2>&1 || echo "fail	the Python checks of the pages ran	exit $?")
if [ -f "$out/lunr.min.js" ] && cmp -s "$out/lunr.min.js" /usr/share/javascript/lunr/lunr.min.js; then
	t_ok "search: build/book/lunr.min.js is Debian's libjs-lunr"
else
	t_fail "search: build/book/lunr.min.js is Debian's libjs-lunr"
fi
epub=$out/userns-labs.epub
if [ -f "$epub" ] && [ "$(head -c 2 "$epub")" = PK ] && head -c 100 "$epub" | grep -aq 'application/epub+zip'; then
	t_ok "epub: build/book/userns-labs.epub is an EPUB"
	nfig=$(find "$top/book/figures" -name "*.dot" 2>/dev/null | wc -l)
	t_expect "epub: it holds the $nfig figures" "$nfig" \
		"$(python3 -c 'import sys, zipfile; print(sum(n.endswith(".svg") for n in zipfile.ZipFile(sys.argv[1]).namelist()))' "$epub")"
	# its cover (a PNG drawn from book/cover.dot, marked as the cover) and
	# its own stylesheet, book/epub.css, with none of the HTML pages' rules
	while IFS=$'\t' read -r st name detail; do
		case $st in ok) t_ok "$name" ;; *) t_fail "$name" "$detail" ;; esac
	done < <(python3 - "$epub" "$top/book/epub.css" <<'EOP' 2>&1 || echo "fail	epub: the Python checks of the EPUB ran	exit $?"
import re, struct, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
opf = z.read(next(n for n in names if n.endswith(".opf"))).decode()
m = re.search(r'<item properties="cover-image"[^>]*href="([^"]*)"', opf)
cover = "EPUB/" + m.group(1) if m else None
png = z.read(cover) if cover in names else b""
w, h = struct.unpack(">II", png[16:24]) if png[:8] == b"\x89PNG\r\n\x1a\n" else (0, 0)
ok = cover and w >= 600 and abs(h / w - 1.5) < 0.01 and "cover.xhtml" in " ".join(names)
print("%s\tepub: a cover, a %dx%d PNG from book/cover.dot, with its cover page\t%s" % ("ok" if ok else "fail", w, h, cover))
css = [n for n in names if n.endswith(".css")]
want = open(sys.argv[2], encoding="utf-8").read()
ok = len(css) == 1 and z.read(css[0]).decode() == want and not re.search(r"#sidebar|#search|pagenav|\.book\b", want)
print("%s\tepub: its stylesheet is book/epub.css, with no sidebar or search rules\t%s" % ("ok" if ok else "fail", css))
EOP
)
else
	t_fail "epub: build/book/userns-labs.epub is an EPUB"
fi

# --- a lab with no chapter yet, and a broken chapter ----------------------
mkdir -p "$tmp/labs" "$tmp/book"
cp -r "$top"/labs/* "$tmp/labs/"
mkdir -p "$tmp/labs/99-not-yet"
printf 'TITLE="A lab with no chapter"\nFILES="kernel/fork.c"\n' >"$tmp/labs/99-not-yet/lab.conf"
# (this book is also printed, when weasyprint is installed: on Letter paper)
pdfargs=()
command -v weasyprint >/dev/null && pdfargs=(--pdf --paper letter)
if log=$(LABS_DIR=$tmp/labs BOOK_CAPTURE_NOTES=0 "$top/scripts/book.sh" --strict --html "${pdfargs[@]}" --out "$tmp/o1" 2>&1); then
	t_ok "a lab without a chapter: still no warning"
else
	t_fail "a lab without a chapter: still no warning" "$log"
fi
t_grep "a lab without a chapter: listed in the course map, not written yet" \
	'99-not-yet/README.md">99</a></td>.*not written yet' "$(tr -d '\n' <"$tmp/o1/course-map.html" 2>/dev/null)"

if [ ${#pdfargs[@]} -eq 0 ]; then
	printf '# pdf skipped: weasyprint is not installed (apt-get install --no-install-recommends weasyprint)\n'
else
	# pages, Letter size, a bookmark for each chapter and section, running
	# heads and page numbers, and a contents list with the page of each entry
	if p=$(python3 - "$tmp/o1/userns-labs.pdf" "$top" <<'EOP' 2>&1
import glob, os, re, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:5] == b"%PDF-", "not a PDF"
# objects packed in compressed object streams (weasyprint 62, Debian 13)
# are read from the streams themselves
for m in re.finditer(rb"<<([^<>]*/Type\s*/ObjStm[^<>]*)>>\s*stream\r?\n", d):
    if b"/FlateDecode" in m.group(1):
        try:
            d += b"\n" + zlib.decompressobj().decompress(d[m.end():d.find(b"endstream", m.end())])
        except zlib.error:
            pass
pages = len(re.findall(rb"/Type\s*/Page\b", d))
boxes = set(re.findall(rb"/MediaBox\s*\[\s*0 0 ([0-9.]+) ([0-9.]+)\s*\]", d))
titles = []
for t in re.findall(rb"/Title\s*(\((?:[^)\\]|\\.)*\)|<[0-9a-fA-F]*>)", d):
    titles.append(bytes.fromhex(t[1:-1].decode()).decode("utf-16") if t[:1] == b"<" else
                  re.sub(rb"\\(.)", rb"\1", t[1:-1]).decode("latin-1"))
chap = sorted(int(os.path.basename(f)[:2]) for f in glob.glob(sys.argv[2] + "/book/chapters/[0-9][0-9]-*.md"))
miss = [n for n in chap if not any(t.startswith("%d " % n) for t in titles)]
secs = [n for n in chap if not any(t.startswith("%d.1 " % n) for t in titles)]
print(pages, " ".join("%sx%s" % (round(float(w)), round(float(h))) for w, h in boxes), len(titles), miss, secs)
EOP
); then
		read -r pages size nt _ <<<"$p"
		[ "${pages:-0}" -gt 50 ] && t_ok "pdf: printed by weasyprint ($pages pages)" || t_fail "pdf: printed by weasyprint" "$p"
		t_expect "pdf: --paper letter gives Letter pages (612x792 pt)" 612x792 "$size"
		t_grep "pdf: a bookmark for every chapter and its sections ($nt)" '\[\] \[\]$' "$p"
	else
		t_fail "pdf: a PDF with pages and bookmarks" "$p"
	fi
	css=$(cat "$top/book/print.css")
	t_grep "pdf: page numbers and running heads (print.css)" '@bottom-center \{ content: counter\(page\)' "$css"
	t_grep "pdf: the contents list gives each entry's page (target-counter)" 'target-counter\(attr\(href url\), page\)' "$css"
	t_grep "pdf: captures light on paper (print.css)" '^pre\.capture \{ background: #f' "$css"
	t_grep "pdf: A4 by default" '^strict="" formats=\(\) paper=A4$' "$(cat "$top/scripts/book.sh")"
fi

cp -r "$top"/book/* "$tmp/book/"
cat >"$tmp/book/chapters/01-suid-unmapped.md" <<'EOC'
# A broken chapter

<!-- diff: solutions/01-*.patch hunks=99 -->
<!-- capture: 01 middle -->
<!-- diff: solutions/no-such-*.patch -->
<!-- frobnicate: 01 -->
<!-- diff: solutions/01-*.patch hunks=bprm_fill_uid,no_such_function -->
<!-- file: labs/01-suid-unmapped/suid-exec.c fn=no_such_fn -->
<!-- file: labs/01-suid-unmapped/suid-exec.c marker=no-such-marker -->
<!-- diff: solutions/01-*.patch hunks=1 -->
<!-- file: labs/01-suid-unmapped/suid-exec.c lines=22-36 -->
EOC
if log=$(BOOK_DIR=$tmp/book BOOK_CAPTURE_NOTES=0 "$top/scripts/book.sh" --strict --html --out "$tmp/o2" 2>&1); then
	t_fail "a broken chapter fails the strict build" "$log"
else
	t_ok "a broken chapter fails the strict build"
	n=$(printf '%s\n' "$log" | grep -c 'warning: book:.*chapters/01-suid-unmapped.md:' || true)
	t_expect "a broken chapter: each bad directive is named with its line" 9 "$n"
	t_grep "a broken name anchor: a hunk, named with the patch and the name" \
		'01-suid-unmapped.md:7: solutions/6.1/01-userns-ignore-unmapped-setid.patch: no hunk changes .no_such_function.' "$log"
	t_grep "a broken name anchor: a function, named with the file and the name" \
		"01-suid-unmapped.md:8: labs/01-suid-unmapped/suid-exec.c: no function 'no_such_fn'" "$log"
	t_grep "a broken name anchor: a marker, named with the file and the name" \
		"01-suid-unmapped.md:9: labs/01-suid-unmapped/suid-exec.c: no marker 'book: no-such-marker'" "$log"
	t_grep "a hunk by number: a warning, anchor by name" '01-suid-unmapped.md:10: hunks by number: anchor by name' "$log"
	t_grep "lines= not in book/position-anchors.txt: a warning, anchor by name" '01-suid-unmapped.md:11: lines=: anchor by name' "$log"
fi
if grep -rnE '<!-- *(diff|file):.* (hunks=[0-9]|lines=)' "$top"/book/chapters "$top"/book/*.md | grep -v CHAPTER-GUIDE |
	grep -vF -f <(sed -n 's/^\(chapters\/[^ ]*\) \(.*\)$/\2 -->/p' "$top/book/position-anchors.txt"); then
	t_fail "every excerpt of the book is anchored by name (or waits for markers in book/position-anchors.txt)"
else
	t_ok "every excerpt of the book is anchored by name (or waits for markers in book/position-anchors.txt)"
fi

# --- what chromium draws --------------------------------------------------
# png_stats FILE [R,G,B...] -> "width height colours background-share count..."
png_stats() {
	python3 - "$@" <<'EOP'
import struct, sys, zlib
from collections import Counter
data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("not a PNG")
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype, _, _, lace = struct.unpack(">IIBBBBB", body)
        if depth != 8 or ctype not in (2, 6) or lace:
            sys.exit("unsupported PNG layout")
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride = zlib.decompress(idat), w * bpp
prev, count = bytearray(stride), Counter()
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 255
    for x in range(0, stride, bpp):
        count[bytes(line[x:x + 3])] += 1
    prev = line
res = [w, h, len(count), "%.3f" % (count.most_common(1)[0][1] / (w * h))]
res += [count[bytes(int(v) for v in c.split(","))] for c in sys.argv[2:]]
print(*res)
EOP
}
shot() { # URL PNG HEIGHT
	local prof
	prof=$(mktemp -d)
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" --screenshot="$2" --window-size="1200,$3" "$1" >/dev/null 2>&1 || true
	rm -rf "$prof"
}
dump() { # URL WIDTH: the DOM once the page's scripts ran
	local prof
	prof=$(mktemp -d)
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" --window-size="$2,2000" --virtual-time-budget=10000 \
		--dump-dom "$1" 2>/dev/null || true
	rm -rf "$prof"
}
if ! command -v chromium >/dev/null; then
	printf '# screenshot skipped: chromium is not installed (apt-get install --no-install-recommends chromium)\n'
elif ! command -v python3 >/dev/null; then
	printf '# screenshot skipped: python3 is not installed\n'
else
	shot "file://$html" "$out/screenshot.png" 2000
	if s=$(png_stats "$out/screenshot.png" 250,250,254 2>&1); then
		read -r w hh colours bg toc <<<"$s"
		t_expect "screenshot: a 1200x2000 PNG of index.html" "1200x2000" "${w}x$hh"
		if [ "$colours" -gt 50 ] && awk "BEGIN { exit !($bg < 0.97) }"; then
			t_ok "screenshot: the page is drawn, not blank ($colours colours, background $bg)"
		else
			t_fail "screenshot: the page is drawn, not blank" "$s"
		fi
		[ "$toc" -gt 10000 ] && t_ok "screenshot: the contents box is drawn" ||
			t_fail "screenshot: the contents box is drawn" "$s"
	else
		t_fail "screenshot: chromium made a PNG of index.html" "$s"
	fi
	# The first chapter's page: the diff colours of style.css must be on
	# screen (its 3.7 diff; the answer's diffs are folded).
	first=""
	for f in "$out"/lab-[0-9][0-9].html; do [ -e "$f" ] && { first=$f; break; }; done
	if [ -n "$first" ]; then
		shot "file://$first" "$out/screenshot-chapter.png" 3000
		if s=$(png_stats "$out/screenshot-chapter.png" 230,247,230 255,233,233 31,36,48 2>&1); then
			read -r _ _ _ _ green red dark <<<"$s"
			[ "$green" -gt 1000 ] && [ "$red" -gt 1000 ] &&
				t_ok "screenshot: a chapter's diff is drawn with added and removed lines coloured" ||
				t_fail "screenshot: a chapter's diff is drawn with added and removed lines coloured" "$s"
			[ "$dark" -gt 1000 ] && t_ok "screenshot: a captured demo output is drawn" ||
				t_fail "screenshot: a captured demo output is drawn" "$s"
		else
			t_fail "screenshot: chromium made a PNG of a chapter" "$s"
		fi
	fi
	# The search box, for real: lunr.js in chromium, page.html?q=WORD
	if [ -n "$word" ]; then
		dom=$(dump "file://$out/index.html?q=$word" 1200)
		hits=$(grep -oE '<ol id="search-results"[^>]*>.*</ol>' <<<"$dom" | grep -oE 'href="[^"]*"' | sort -u)
		if [ -n "$hits" ] && ! grep -qv "href=\"lab-$wchap.html" <<<"$hits"; then
			t_ok "search in chromium: '$word' finds chapter $((10#$wchap)) only ($(wc -l <<<"$hits") section(s))"
		else
			t_fail "search in chromium: '$word' finds chapter $((10#$wchap)) only" "${hits:-no results}"
		fi
	fi
	# At 1280 px (a laptop), a chapter: the sidebar is on screen beside the
	# text (not over it), has the search box and marks this chapter, and the
	# previous/next links are drawn and lead to the chapters on either side.
	if [ -f "$out/lab-06.html" ]; then
		sed 's|</body>|<script>(function () { var sb = document.getElementById("sidebar"), r = sb ? sb.getBoundingClientRect() : null, h = document.querySelector("main h1, h1"), hr = h ? h.getBoundingClientRect() : null, cur = sb ? sb.querySelector("li.current > a") : null, si = document.getElementById("search-input"), seen = function (e) { var q = e \&\& e.getBoundingClientRect(); return !!q \&\& q.width > 0 \&\& q.height > 0 \&\& q.left >= 0 \&\& q.right <= 1280; }, out = []; out.push("sidebar=" + (!!r \&\& getComputedStyle(sb).display !== "none" \&\& r.width >= 150 \&\& r.left >= 0 \&\& r.right <= 1280)); out.push("beside=" + (!!r \&\& !!hr \&\& hr.left >= r.right)); out.push("current=" + (cur ? cur.getAttribute("href") : "none")); out.push("search=" + seen(si)); ["prev", "next"].forEach(function (k) { var a = document.querySelector(".pagenav.top a." + k); out.push(k + "=" + (a \&\& seen(a) ? a.getAttribute("href") : "none")); }); document.body.setAttribute("data-check", out.join(" ")); })();</script></body>|' \
			"$out/lab-06.html" >"$out/.wide-lab-06.html"
		got=$(dump "file://$out/.wide-lab-06.html" 1280 | grep -oE 'data-check="[^"]*"')
		rm -f "$out/.wide-lab-06.html"
		t_expect "1280 px wide: chapter 6's sidebar, search box and previous/next links are drawn" \
			'data-check="sidebar=true beside=true current=lab-06.html search=true prev=lab-05.html next=lab-07.html"' "$got"
	fi
	# At 390 px wide (a phone), with the answers unfolded, no page is wider
	# than the screen: tables and code scroll in their own boxes.
	wide=""
	for p in course-map lab-14 appendix-a; do
		[ -f "$out/$p.html" ] || continue
		# (headless chromium's window is at least 500 px wide: the page is
		# made 390 px wide, and its body must not be wider)
		sed 's|</body>|<script>document.documentElement.style.width = "390px"; document.querySelectorAll("details").forEach(function (d) { d.open = true; }); document.body.setAttribute("data-width", document.body.scrollWidth);</script></body>|' \
			"$out/$p.html" >"$out/.narrow-$p.html"
		w=$(dump "file://$out/.narrow-$p.html" 390 | grep -oE 'data-width="[0-9]+"' | grep -oE '[0-9]+')
		rm -f "$out/.narrow-$p.html"
		[ "${w:-9999}" -le 390 ] || wide="$wide $p.html(${w:-?}px)"
	done
	if [ -z "$wide" ]; then
		t_ok "390 px wide: no page is wider than the screen (course map, chapter 14, appendix A)"
	else
		t_fail "390 px wide: a page is wider than the screen:$wide"
	fi
fi
t_summary book
