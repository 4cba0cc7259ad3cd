#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The book: it renders with warnings as errors, the HTML has what a reader
# needs (one page per chapter, and one per section of a long one, contents,
# numbered chapters, highlighted diffs, links to the labs), every page has the
# sidebar and previous/next links, every internal link of every page leads to
# a file and an id, the reference answers are folded, the search index holds
# every page (and finds a word of one chapter there only), the course map has
# one column per lab, a lab without a chapter is listed and skipped, the
# licence is on the first page of the HTML, the EPUB and the PDF and in their
# metadata, a figure's text is never drawn under 12 px, a code span of a
# table never breaks inside, a broken directive or name anchor fails (named
# with its file and name), a hunk number or lines= is a warning, commit
# messages keep the blank line after the subject, the EPUB has its figures,
# its cover and its own stylesheet, the PDF keeps code blocks and headings
# whole (print.css), and (when chromium is installed) the pages really draw:
# a screenshot that is not blank, with the diff colours on it, the search box
# finds the word in lunr.js, no page is taller than 6000 px at 1280 px wide,
# none is wider than 390 px at 390 px, and chromium breaks no code span of a
# table and draws no figure's text under 12 px (scripts/bookmeasure.py).
# Before all that, every function the book names exists in each base's
# kernel tree (scripts/claims.py; skipped for a base whose tree is not here).
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

# --- two books of other inputs, built beside the rest ------------------
# Each is a whole book (the suite's longest steps, one process each): they
# start now and are read where their tests are (side_book).
# o1: a lab with no chapter yet (and, when weasyprint is installed, the
# book printed on Letter paper); o2: a broken chapter
mkdir -p "$tmp/labs" "$tmp/book"
cp -r "$top"/labs/* "$tmp/labs/"
mkdir -p "$tmp/labs/99-not-yet"
printf 'TITLE="A lab with no chapter"\nFILES="kernel/fork.c"\n' >"$tmp/labs/99-not-yet/lab.conf"
pdfargs=()
command -v weasyprint >/dev/null && pdfargs=(--pdf --paper letter)
# (each book.sh is the job itself, so that the trap below stops it; as a
# command in the background of a script it would start with Ctrl-C
# ignored: env gives it back)
LABS_DIR=$tmp/labs BOOK_CAPTURE_NOTES=0 env --default-signal=INT,QUIT "$top/scripts/book.sh" --strict --html \
	"${pdfargs[@]}" --out "$tmp/o1" >"$tmp/o1.log" 2>&1 &
side_o1=$!
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
BOOK_DIR=$tmp/book BOOK_CAPTURE_NOTES=0 env --default-signal=INT,QUIT "$top/scripts/book.sh" --strict --html \
	--out "$tmp/o2" >"$tmp/o2.log" 2>&1 &
side_o2=$!
# side_book o1|o2: that build, waited for; its output in $log, its status
side_book() {
	local pid rc=0
	eval "pid=\$side_$1"
	wait "$pid" || rc=$?
	log=$(cat "$tmp/$1.log" 2>/dev/null)
	return "$rc"
}
# (a Ctrl-C, or a failure above, ends them too)
trap 'kill "$side_o1" "$side_o2" 2>/dev/null || true; rm -rf "$tmp"' EXIT

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
# (a chapter's pages: lab-NN.html, and lab-NN-SECTION.html for a long one)
t_grep "series: a step 6.1 keeps on its own is quoted from kernel-steps/6.1/ or solutions/6.1/" \
	'From <code>solutions/6\.1/01-[a-z-]+\.patch</code>' "$(cat "$out"/lab-01.html "$out"/lab-01-*.html 2>/dev/null | tr '\n' ' ')"
t_grep "series: a step both bases share is quoted from the series" \
	'From <code>solutions/02-[a-z-]+\.patch</code>' "$(cat "$out"/lab-02.html "$out"/lab-02-*.html 2>/dev/null | tr '\n' ' ')"
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

# the code the book names (scripts/bookcode.py, book/codelinks.lua): with
# a kernel tree here, each function named in code font links to its page,
# which shows its definition on each base and links back to the chapters
if [ -s "$out/code/names.txt" ]; then
	t_grep "code pages: bprm_fill_uid() has one, with its body on 6.12" \
		'<h2>6\.12: <code>fs/exec\.c</code>, line [0-9]+</h2>' "$(cat "$out/code/bprm_fill_uid.html" 2>/dev/null)"
	t_grep "code pages: bprm_fill_uid()'s names the sections that link to it" \
		'class="named-in">Named in: .*<a href="\.\./lab-01-the-change-hunk-by-hunk\.html">1\.3 ' \
		"$(cat "$out/code/bprm_fill_uid.html" 2>/dev/null)"
	t_grep "code pages: chapter 1 links bprm_fill_uid() to its page" 'href="code/bprm_fill_uid\.html"' \
		"$(cat "$out"/lab-01.html "$out"/lab-01-*.html 2>/dev/null)"
	bad=""
	while read -r n; do
		[ -f "$out/code/$n.html" ] || bad="$bad $n"
	done <"$out/code/names.txt"
	while IFS= read -r l; do
		[ -e "$out/code/$l" ] || bad="$bad $l"
	done < <(grep -ohE 'href="[^"#:]+' "$out"/code/*.html | sed 's/^href="//' | sort -u)
	t_expect "code pages: $(wc -l <"$out/code/names.txt") functions, every page there and every link of them leads to a file" "" "${bad# }"
	# a page's height: under 6,000 px at about 20 px a line of code
	t_expect "code pages: none shows more than 250 lines of code" "" \
		"$(for f in "$out"/code/*.html; do n=$(sed -n '/<pre/,/<\/pre>/p' "$f" | wc -l); [ "$n" -le 250 ] || echo "$f: $n"; done | head -3)"
	t_expect "code pages: no link inside a link, none in a heading" "" \
		"$(cat "$out"/*.html | tr '\n' ' ' | grep -oE '<a [^>]*>[^<]*<a href="code/|<h[1-6][^>]*>[^<]*(<[^h/][^>]*>[^<]*)*<a [^>]*href="code/' | head -3)"
else
	printf '# code pages skipped: no kernel tree (make tree)\n'
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
    res.append(("ok" if good else "fail", name, str(detail).replace("\n", " ")[:2000]))
chap = sorted(os.path.basename(f)[:2] for f in glob.glob(top + "/book/chapters/[0-9][0-9]-*.md"))
napp = len(glob.glob(top + "/book/appendix-*.md"))
tops = ["index.html", "introduction.html", "course-map.html"] + ["lab-%s.html" % n for n in chap] + \
       ["appendix-%s.html" % "abcdefgh"[i] for i in range(napp)]
have = sorted(os.path.basename(f) for f in glob.glob(out + "/*.html"))
text = {p: open(os.path.join(out, p), encoding="utf-8").read() for p in have}
# a long chapter's sections have pages of their own: each names its
# chapter's page (its breadcrumb) and is named after its section's id
def parent(page):
    m = re.search(r'<p class="breadcrumb"><a href="([^"#]*)">', text.get(page, ""))
    return m.group(1) if m else None
subs = [p for p in have if p not in tops]
odd = [p for p in subs if parent(p) not in tops or not p.startswith(("lab-", "intro-", "appendix-"))
       or 'class="level2">' not in text[p]]
check("pages: one per chapter, plus the contents, introduction, course map and appendices (%d), "
      "and one per section of a long one (%d)" % (len(tops), len(subs)),
      set(tops) <= set(have) and not odd, "missing %s, not a section's page %s" % (sorted(set(tops) - set(have)), odd))
def attr(page, rel):
    m = re.search(r'<a class="%s" rel="%s" href="([^"]*)"' % (rel, rel), text.get(page, ""))
    return m.group(1) if m else None
chain, p = [], "index.html"
while p and p not in chain and len(chain) <= len(have):
    chain.append(p)
    p = attr(p, "next")
# the chain: the top pages in the book's order, each section's page after
# its chapter's page and its chapter's other sections
order_ok = [p for p in chain if p in tops] == tops and sorted(chain) == have and \
    all(parent(p) == max((q for q in chain[:i] if q in tops), key=chain.index) for i, p in enumerate(chain) if p in subs)
check("pages: following 'next' from index.html reads every page once, in the book's order (%d)" % len(chain),
      order_ok, chain)
back, p = [], chain[-1]
while p and p not in back and len(back) <= len(have):
    back.append(p)
    p = attr(p, "prev")
check("pages: following 'previous' from the last page reads them back", back == chain[::-1], back)
want = chain if order_ok else tops
both = [p for p in want if text.get(p, "").count('class="pagenav') != 2]
check("pages: every page has the previous/next links above and below its text", not both, both)
side = [p for p in want if not all(x in text.get(p, "") for x in
        ('<nav id="sidebar"', 'id="search-input"', 'src="lunr.min.js"', 'src="search-docs.js"', 'src="search.js"'))]
check("pages: every page has the sidebar with the search box and the contents", not side, side)
cur = [p for p in want[1:] if '<li class="current"><a aria-current="page" href="%s">' % p not in text.get(p, "")]
check("pages: the sidebar marks the page the reader is on", not cur, cur)
shut = [p for p in subs if '<li class="open"><a href="%s">' % parent(p) not in text.get(p, "")]
check("pages: on a section's page, the sidebar shows its chapter's sections", not shut, shut)
opening = [p for p in tops if any(parent(q) == p for q in subs)]
lists = [p for p in opening if sorted(re.findall(r'<li><a href="([^"#]*)">',
         text[p][text[p].find('<nav class="chapter-toc"'):text[p].find("</nav>", text[p].find('<nav class="chapter-toc"'))]))
         != sorted(q for q in subs if parent(q) == p)]
check("pages: a split chapter's page lists its sections' pages (%d chapters)" % len(opening), opening and not lists, lists)
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
def chapter_text(n):
    """the text of a chapter's pages"""
    return "".join(text[p] for p in have if p == "lab-%s.html" % n or parent(p) == "lab-%s.html" % n)
for n in chap:
    t = chapter_text(n)
    folds = [(m.start(), t.find("</details>", m.start())) for m in re.finditer('<details class="answer">', t)]
    quotes = [m.start() for m in re.finditer(r'<span class="source">From\s+<code>solutions/|<pre class="text commit">', t)]
    check("answer fold: chapter %d folds its reference answer in a <details>" % int(n),
          folds and quotes and all(any(a < q < b for a, b in folds) for q in quotes),
          "folds at %s, quotes of solutions/ at %s" % (folds, quotes))
# the commit message: its subject, a blank line, then the body (as git
# shows it; a format-patch file folds the subject into its header)
for n in chap:
    msgs = re.findall(r'<pre class="text commit"><code>(.*?)</code>', chapter_text(n), re.S)
    if not msgs:
        continue
    check("commit message: chapter %d shows it with the blank line after its subject" % int(n),
          all(len(m.split("\n")) > 2 and m.split("\n")[0].strip() and m.split("\n")[1] == ""
                       and m.split("\n")[2].strip() for m in msgs), [m[:120] for m in msgs])
check("commit message: the chapters show one",
      any('<pre class="text commit">' in chapter_text(n) for n in chap))
# figures: every book/figures/NAME.dot drawn as figures/NAME.svg, shown on a
# page in a <figure> with a caption and an alt text of its own, in a box that
# scrolls, its <img> never narrower than its min-width: drawn that wide, the
# smallest text of its SVG (font-size, in viewBox units, times graphviz's
# scale()) is 12 px or more, whatever the screen (min-width wins over
# max-width: 100%, style.css)
def svg_text(path):
    """(viewBox width, smallest font-size in viewBox units)"""
    t = open(path, encoding="utf-8").read()
    vb = float(re.search(r'<svg[^>]*viewBox="[-0-9.]+[ ,]+[-0-9.]+[ ,]+([0-9.]+)', t).group(1))
    sc = re.search(r'transform="scale\(([0-9.]+)', t)
    return vb, min(float(f) for f in re.findall(r'font-size[=:]\s*"?([0-9.]+)', t)) * (float(sc.group(1)) if sc else 1)
figfont = {}
for dot in sorted(glob.glob(top + "/book/figures/*.dot")):
    name = os.path.basename(dot)[:-4]
    svg = os.path.join(out, "figures", name + ".svg")
    ok = os.path.isfile(svg) and "<svg" in open(svg, encoding="utf-8").read(2000)
    shown = [(p, int(m.group(1))) for p, t in text.items() for m in re.finditer(
        r'<figure>\s*<div class="figure-box"><a href="figures/%s\.svg"><img src="figures/%s\.svg" style="min-width: ([0-9]+)px"'
        r'\s+alt="([^"]{40,})"[^>]*></a></div>\s*<figcaption>(.{20,}?)</figcaption>'
        % (name, name), t, re.S) if text_cap(m)]
    check("figure %s: drawn by dot, shown with a caption and an alt text (%s)" % (name, ", ".join(p for p, _ in shown) or "nowhere"),
          ok and len(shown) == 1, "svg %s, pages %s" % (ok, shown))
    if ok and len(shown) == 1:
        vb, fs = svg_text(svg)
        figfont[name] = (vb, fs)
        px = fs * shown[0][1] / vb
        check("figure %s: its smallest text is %.1f px at its narrowest (%s pt in a viewBox %g wide, min-width %d px)"
              % (name, px, fs, vb, shown[0][1]), px >= 12, "")
screen = re.sub(r"@media print \{.*?\n\}", "", css, flags=re.S)
css_fig = re.search(r"\.figure-box \{[^}]*overflow-x: auto", screen) and \
    re.search(r"\.figure-box img \{[^}]*max-width: 100%;", screen) and not re.search(r"width:[^;}]*!important", screen)
check("style: a figure scrolls in its box and its min-width is not overridden on screen", css_fig)
# the search index: every page's sections, and a word of one chapter only
js = open(os.path.join(out, "search-docs.js"), encoding="utf-8").read()
docs = json.loads(js[js.index("=") + 1:].strip().rstrip(";"))
pages = {d["url"].split("#")[0] for d in docs}
check("search: the index holds the sections of every page but the contents (%d documents)" % len(docs),
      pages == set(have) - {"index.html"}, sorted((set(have) - {"index.html"}) ^ pages))
moved = [d["url"] for d in docs if "#" in d["url"] and d["url"].split("#")[1] + ".html" in text]
check("search: a section with a page of its own is found on that page", not moved, moved)
for n in chap:
    k = sum(1 for d in docs if d["url"].startswith("lab-%s" % n) and d["url"] != "lab-%s.html" % n)
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
          hits and all(h.startswith("lab-%s" % chapter) for h in hits), hits)
    print("word\t%s\t%s" % (word, chapter))
# the course map: one column for the lab, with its chapter and its folder
cm = text.get("course-map.html", "")
heads = [re.sub(r"<[^>]+>", "", h).strip() for h in re.findall(r"<th\b[^>]*>(.*?)</th>", cm, re.S)]
rows = re.findall(r"<tr class=\"(?:odd|even)\">\s*<td>(.*?)</td>", cm, re.S)
bad = [r for r in rows if not re.search(r'href="[^"]*/labs/[0-9][0-9]-[^"/]+/README\.md"><code>[0-9][0-9]-[^<]+/</code>', r)]
bad += ["chapter %s" % n for n in chap if not any(re.search(r'href="lab-%s\.html">Chapter %d</a>' % (n, int(n)), r) for r in rows)]
check("course map: one column for the lab, its chapter and its folder (%d rows)" % len(rows),
      heads == ["lab", "what the lab puts back", "kernel files"] and rows and not bad, "%s %s" % (heads, bad[:3]))
# tables: a code span never breaks inside (style.css); a long one may break
# after a "/" or a "_", at a <wbr> between spans that do not break
brk = [m.group(0) for p in want for m in re.finditer(r'<code class="brk">.*?</code>', text.get(p, ""))]
badbrk = [b for b in brk if not re.fullmatch(r'<code class="brk">(<span>[^<]*[/_]</span><wbr>)+<span>[^<]+</span></code>', b)]
nocode = re.search(r"table td code, table th code \{[^}]*white-space: nowrap;[^}]*overflow-wrap: normal;", css) and \
    re.search(r"code\.brk > span \{[^}]*white-space: nowrap;", css)
check("tables: a code span never breaks inside but at a <wbr> after a / or a _ (%d of those)" % len(brk),
      nocode and not badbrk, badbrk[:3])
# the licence (metadata.yaml's rights): on the first page, and in every
# page's metadata
meta = open(top + "/book/metadata.yaml", encoding="utf-8").read()
m = re.search(r'^rights: "(.*)"$', meta, re.M)
rights = m.group(1) if m else ""
check("licence: metadata.yaml's rights give the book's (CC BY-SA 4.0) and the code's (GPL-2.0), as LICENSES/ has them",
      all(w in rights for w in ("CC BY-SA 4.0", "https://creativecommons.org/licenses/by-sa/4.0/", "GPL-2.0"))
      and all(os.path.isfile(top + "/LICENSES/" + f) for f in ("CC-BY-SA-4.0", "GPL-2.0")), rights)
first = re.search(r'<header id="title-block-header">.*?<p class="rights">(.*?)</p>.*?</header>', text.get("index.html", ""), re.S)
check("licence: on the first page, index.html, under the title",
      first and "CC BY-SA 4.0" in first.group(1) and "GPL-2.0" in first.group(1) and
      '<a rel="license" href="https://creativecommons.org/licenses/by-sa/4.0/">' in first.group(1), first and first.group(1))
nometa = [p for p in want if '<meta name="dcterms.rights" content="' not in text.get(p, "") or
          '<link rel="license" href="https://creativecommons.org/licenses/by-sa/4.0/">' not in text.get(p, "")]
check("licence: in every page's metadata (dcterms.rights, rel=license)", not nometa, nometa)
# for the screenshot: the first page of a chapter with a diff and a capture
# outside the folds
for p in want:
    t = re.sub(r"<details\b.*?</details>", "", text.get(p, ""), flags=re.S)
    if p.startswith("lab-") and 'class="va"' in t and 'class="st"' in t and '<pre class="text capture">' in t:
        print("diffpage\t%s\t" % p)
        break
for r in res:
    print("\t".join(r))
EOP
}
word="" wchap="" diffpage=""
while IFS=$'\t' read -r st name detail; do
	case $st in
	ok) t_ok "$name" ;;
	fail) t_fail "$name" "$detail" ;;
	word) word=$name wchap=$detail ;;
	diffpage) diffpage=$name ;;
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
# the licence: dc:rights, and on the title page (its first page of text;
# the cover says it in short)
rights = re.search(r"<dc:rights>(.*?)</dc:rights>", opf, re.S)
title = [z.read(n).decode() for n in names if n.endswith("title_page.xhtml")]
ok = rights and "CC BY-SA 4.0" in rights.group(1) and "GPL-2.0" in rights.group(1) and \
    title and re.search(r'class="rights">[^<]*CC BY-SA 4\.0[^<]*GPL-2\.0', title[0])
print("%s\tepub: the licence in its metadata (dc:rights) and on its title page\t%s" % ("ok" if ok else "fail", rights and rights.group(1)[:200]))
EOP
)
else
	t_fail "epub: build/book/userns-labs.epub is an EPUB"
fi

# --- a lab with no chapter yet, and a broken chapter ----------------------
if side_book o1; then
	t_ok "a lab without a chapter: still no warning"
else
	t_fail "a lab without a chapter: still no warning" "$log"
fi
t_grep "a lab without a chapter: listed in the course map, not written yet, with its folder" \
	'<td>99, <em>not written yet</em> · <a href="[^"]*/99-not-yet/README.md"><code>99-not-yet/</code></a></td>' \
	"$(tr '\n' ' ' <"$tmp/o1/course-map.html" 2>/dev/null)"

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
	# the pages as weasyprint laid them out (bookmeasure.py pdf, with
	# weasyprint's own Python; half a minute, so in the background, its
	# results at the end): a code block that fits on a page is never cut, a
	# longer one leaves 4 lines at least on each page, no heading ends a
	# page, and nothing is wider than the page's text
	read -r -a wpy <<<"$(sed -n '1s/^#! *//p' "$(command -v weasyprint)")"
	if [ ${#wpy[@]} -gt 0 ]; then
		"${wpy[@]}" "$top/scripts/bookmeasure.py" pdf "$tmp/o1/src/print.html" letter >"$tmp/pdf-layout" 2>&1 &
		layout_pid=$!
	fi
	css=$(cat "$top/book/print.css")
	t_grep "pdf: page numbers and running heads (print.css)" '@bottom-center \{ content: counter\(page\)' "$css"
	t_grep "pdf: the contents list gives each entry's page (target-counter)" 'target-counter\(attr\(href url\), page\)' "$css"
	t_grep "pdf: captures light on paper (print.css)" '^pre\.capture \{ background: #f' "$css"
	t_grep "pdf: a code block stays on one page when it fits, else 4 lines at least each side (print.css)" \
		'^pre, div\.sourceCode \{ break-inside: avoid; page-break-inside: avoid; orphans: 4; widows: 4; \}' "$css"
	t_grep "pdf: a heading stays with what follows it (print.css)" \
		'^h1, h2, h3, h4, h5, h6 \{ break-after: avoid; page-break-after: avoid;' "$css"
	# the licence on the first page: under the title, in what weasyprint
	# printed (and in the PDF's text, when poppler's pdftotext is here)
	t_grep "pdf: the licence on its first page, under the title (book/print-template.html)" \
		'<header id="title-block-header">.*<p class="rights">[^<]*CC BY-SA 4\.0[^<]*GPL-2\.0[^<]*</p>.*</header>' \
		"$(tr '\n' ' ' <"$tmp/o1/src/print.html" 2>/dev/null)"
	if command -v pdftotext >/dev/null; then
		t_grep "pdf: page 1 says the licence" 'CC BY-SA 4\.0.*GPL-2\.0' \
			"$(pdftotext -f 1 -l 1 "$tmp/o1/userns-labs.pdf" - 2>/dev/null | tr '\n' ' ')"
	fi
	t_grep "pdf: A4 by default" '^strict="" formats=\(\) paper=A4$' "$(cat "$top/scripts/book.sh")"
fi

# shellcheck disable=SC2016 # ($rights$ is pandoc's, not the shell's)
t_grep "pdf: its template puts the licence under the title (book/print-template.html)" \
	'<p class="author">.*\$if\(rights\)\$ <p class="rights">\$rights\$</p>.*</header>' "$(tr '\n' ' ' <"$top/book/print-template.html")"

if side_book o2; then
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
	# The first page of a chapter with a diff and a capture outside the
	# folds (chapter 1's 3.7 behaviour): the diff colours of style.css must
	# be on screen (the answer's diffs are folded).
	first=""
	[ -z "$diffpage" ] || first=$out/$diffpage
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
		if [ -n "$hits" ] && ! grep -qvE "href=\"lab-$wchap(-[a-z0-9-]+)?\.html" <<<"$hits"; then
			t_ok "search in chromium: '$word' finds chapter $((10#$wchap)) only ($(wc -l <<<"$hits") section(s))"
		else
			t_fail "search in chromium: '$word' finds chapter $((10#$wchap)) only" "${hits:-no results}"
		fi
	fi
	# At 1280 px (a laptop), a chapter: the sidebar is on screen beside the
	# text (not over it), has the search box and marks this chapter, and the
	# previous/next links are drawn and lead to the pages on either side
	# (chapter 5's last page, chapter 6's first section, or chapter 7).
	if [ -f "$out/lab-06.html" ]; then
		p6=$(sed -n 's/^<link rel="prev" href="\([^"]*\)">$/\1/p' "$out/lab-06.html")
		n6=$(sed -n 's/^<link rel="next" href="\([^"]*\)">$/\1/p' "$out/lab-06.html")
		sed 's|</body>|<script>(function () { var sb = document.getElementById("sidebar"), r = sb ? sb.getBoundingClientRect() : null, h = document.querySelector("main h1, h1"), hr = h ? h.getBoundingClientRect() : null, cur = sb ? sb.querySelector("li.current > a") : null, si = document.getElementById("search-input"), seen = function (e) { var q = e \&\& e.getBoundingClientRect(); return !!q \&\& q.width > 0 \&\& q.height > 0 \&\& q.left >= 0 \&\& q.right <= 1280; }, out = []; out.push("sidebar=" + (!!r \&\& getComputedStyle(sb).display !== "none" \&\& r.width >= 150 \&\& r.left >= 0 \&\& r.right <= 1280)); out.push("beside=" + (!!r \&\& !!hr \&\& hr.left >= r.right)); out.push("current=" + (cur ? cur.getAttribute("href") : "none")); out.push("search=" + seen(si)); ["prev", "next"].forEach(function (k) { var a = document.querySelector(".pagenav.top a." + k); out.push(k + "=" + (a \&\& seen(a) ? a.getAttribute("href") : "none")); }); document.body.setAttribute("data-check", out.join(" ")); })();</script></body>|' \
			"$out/lab-06.html" >"$out/.wide-lab-06.html"
		got=$(dump "file://$out/.wide-lab-06.html" 1280 | grep -oE 'data-check="[^"]*"')
		rm -f "$out/.wide-lab-06.html"
		t_expect "1280 px wide: chapter 6's sidebar, search box and previous/next links are drawn" \
			"data-check=\"sidebar=true beside=true current=lab-06.html search=true prev=$p6 next=$n6\"" "$got"
	fi
	# Every page drawn by chromium (scripts/bookmeasure.py: one chromium, the
	# pages in iframes of the width asked for): at 1280 px (a laptop) none is
	# taller than 6000 px (bookpages.py gives a long chapter's sections pages
	# of their own); at 390 px (a phone), with the answers unfolded, none is
	# wider than the screen (tables, code and figures scroll in their own
	# boxes), no figure's text is drawn under 12 px (its SVG's smallest
	# font-size, times the width chromium draws it at, over its viewBox's);
	# and at both, no code span of a table is broken inside (but at a <wbr>).
	if python3 "$top/scripts/bookmeasure.py" measure "$out" --width 1280 --width 390 >"$tmp/measures" 2>&1; then
		while IFS=$'\t' read -r st name detail; do
			case $st in ok) t_ok "$name" ;; note) printf '# %s: %s\n' "$name" "$detail" ;; *) t_fail "$name" "$detail" ;; esac
		done < <(python3 - "$out" "$tmp/measures" <<'EOP' 2>&1 || echo "fail	the Python checks of the measures ran	exit $?"
import json, os, re, sys
out = sys.argv[1]
rs = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8") if l.startswith("{")]
if not rs:
    print("fail\tchromium measured the pages\tno measures")
def say(good, name, detail=""):
    print("%s\t%s\t%s" % ("ok" if good else "fail", name, str(detail)[:2000]))
wide = [r for r in rs if r["width"] == 1280]
tall = sorted(wide, key=lambda r: -r["height"])
say(tall and tall[0]["height"] <= 6000,
    "1280 px wide: no page is taller than 6000 px (%d pages; the tallest %s, %d px; %d px with its answers open)"
    % (len(wide), tall[0]["page"] if tall else "-", tall[0]["height"] if tall else 0, tall[0]["open"] if tall else 0),
    [(r["page"], r["height"]) for r in tall if r["height"] > 6000])
# a folded answer opened makes its page taller: said, not yet a failure
# (the hunk-by-hunk sections of chapters 14, 15 and 18 are one answer each)
opened = [(r["page"], r["open"]) for r in tall if r.get("open", 0) > 6000]
if opened:
    print("note\tpages over 6000 px with their answers open\t%s" % opened)
narrow = [r for r in rs if r["width"] == 390]
over = [(r["page"], r["wide"]) for r in narrow if r["wide"] > 390]
say(narrow and not over, "390 px wide: no page is wider than the screen, answers open (%d pages)" % len(narrow), over)
fonts = []
for r in narrow:
    for f in r["figures"]:
        t = open(os.path.join(out, f["src"]), encoding="utf-8").read()
        vb = float(re.search(r'<svg[^>]*viewBox="[-0-9.]+[ ,]+[-0-9.]+[ ,]+([0-9.]+)', t).group(1))
        sc = re.search(r'transform="scale\(([0-9.]+)', t)
        fs = min(float(x) for x in re.findall(r'font-size[=:]\s*"?([0-9.]+)', t)) * (float(sc.group(1)) if sc else 1)
        fonts.append((round(fs * f["width"] / vb, 1), f["src"], r["page"], f["width"]))
small = [f for f in fonts if f[0] < 12]
say(fonts and not small, "390 px wide: no figure's text is drawn under 12 px (%d figures; the smallest %s px, %s)"
    % (len(fonts), min(fonts)[0] if fonts else "-", min(fonts)[1] if fonts else "-"), small)
broken = [(r["page"], r["width"], b) for r in rs for b in r["breaks"]]
say(not broken, "tables: chromium breaks no code span of a table inside, at 1280 and 390 px", broken[:5])
EOP
)
	else
		t_fail "chromium measured the pages (scripts/bookmeasure.py)" "$(cat "$tmp/measures")"
	fi
fi
# the PDF's layout, from the background (above)
if [ -n "${layout_pid:-}" ]; then
	if wait "$layout_pid"; then
		while IFS=$'\t' read -r st name detail; do
			case $st in ok) t_ok "$name" ;; note) printf '# %s: %s\n' "$name" "$detail" ;; *) t_fail "$name" "$detail" ;; esac
		done < <(python3 - "$tmp/pdf-layout" <<'EOP' 2>&1 || echo "fail	pdf: the layout checks ran	exit $?"
import json, sys
r = json.loads(open(sys.argv[1], encoding="utf-8").read())
def say(good, name, detail=""):
    print("%s\t%s\t%s" % ("ok" if good else "fail", name, detail))
cut = [x for x in r["split"] if x["fits"] or min(x["lines"]) < 4]
say(not cut, "pdf: no code block that fits on a page is cut, a longer one keeps 4 lines a page (%d blocks, %d longer than a page)"
    % (r["blocks"], len(r["split"])), cut[:5])
say(not r["headings"], "pdf: no heading ends a page", r["headings"][:5])
say(not r["wide"], "pdf: no table, image or code line is wider than the page", r["wide"][:5])
EOP
)
	else
		t_fail "pdf: weasyprint laid the pages out (bookmeasure.py pdf)" "$(tail -5 "$tmp/pdf-layout")"
	fi
fi
t_summary book
