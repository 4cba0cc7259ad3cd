#!/usr/bin/env bash
# The book: it renders with warnings as errors, the HTML has what a reader
# needs (contents, numbered chapters, highlighted diffs, links to the labs),
# a lab without a chapter is listed and skipped, a broken directive fails, and
# (when chromium is installed) the page really draws: a screenshot that is not
# blank, with the diff colours on it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
. "$here/lib.sh"
export NO_COLOR=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$top/build/book

# --- the real book, strict ----------------------------------------------
start=$(date +%s%N)
if log=$("$top/scripts/book.sh" --strict 2>&1); then
	t_ok "book renders with no warnings (--strict, $(( ($(date +%s%N) - start) / 1000000 )) ms)"
else
	t_fail "book renders with no warnings (--strict)" "$log"
fi
printf '%s\n' "$log" | grep '^note:' | sed 's/^/# /' || true
html=$out/index.html
[ -f "$html" ] || { t_fail "build/book/index.html exists"; t_summary book; exit 1; }
h=$(cat "$html")

t_grep "html: a table of contents" '<nav id="TOC"' "$h"
t_grep "html: the contents list the introduction and the course map" 'href="#course-map"' "$h"
chapters=0
for f in "$top"/book/chapters/[0-9][0-9]-*.md; do
	[ -e "$f" ] || continue
	chapters=$((chapters + 1))
	n=$(basename "$f" | cut -c1-2)
	num=$((10#$n))
	t_grep "html: chapter $num is numbered and in the contents" \
		"<a href=\"#lab-$n\"[^>]*><span class=\"secno\">$num</span>" "$h"
	slug=$(basename "$f" .md)
	if [ -d "$top/labs/$slug" ]; then
		t_grep "html: chapter $num links to its lab folder" "href=\"\\.\\./\\.\\./labs/$slug/\"" "$h"
	else
		t_fail "chapter file $slug.md is named after its lab folder labs/$slug/"
	fi
done
t_grep "html: at least one chapter" '^[1-9]' "$chapters"
links_ok=1
for l in $(grep -oE 'href="\.\./\.\./labs/[^"#]*"' "$html" | sed -E 's/href="(.*)"/\1/' | sort -u); do
	[ -e "$out/$l" ] || { links_ok=0; t_fail "html: the link $l leads to a file of the repository"; }
done
[ "$links_ok" = 1 ] && t_ok "html: every link to labs/ leads to a file of the repository"
t_grep "html: diff blocks are highlighted (added and removed lines)" \
	'<code class="sourceCode diff">.*<span class="va">\+' "$(tr -d '\n' <"$html")"
t_grep "html: removed lines are highlighted too" '<span class="st">-' "$h"
t_grep "html: demo output captured in the guest" '<pre class="text capture">' "$h"
if grep -qE '@LABS@|<!-- *(diff|capture|message|file|lab-section):' "$html"; then
	t_fail "html: every directive was expanded" "$(grep -nE '@LABS@|<!-- *(diff|capture|message|file|lab-section):' "$html" | head -5)"
else
	t_ok "html: every directive was expanded"
fi
epub=$out/userns-labs.epub
if [ -f "$epub" ] && [ "$(head -c 2 "$epub")" = PK ] && head -c 100 "$epub" | grep -aq 'application/epub+zip'; then
	t_ok "epub: build/book/userns-labs.epub is an EPUB"
else
	t_fail "epub: build/book/userns-labs.epub is an EPUB"
fi

# --- a lab with no chapter yet, and a broken chapter ----------------------
mkdir -p "$tmp/labs" "$tmp/book"
cp -r "$top"/labs/* "$tmp/labs/"
mkdir -p "$tmp/labs/99-not-yet"
printf 'TITLE="A lab with no chapter"\nFILES="kernel/fork.c"\n' >"$tmp/labs/99-not-yet/lab.conf"
if log=$(LABS_DIR=$tmp/labs "$top/scripts/book.sh" --strict --html --out "$tmp/o1" 2>&1); then
	t_ok "a lab without a chapter: still no warning"
else
	t_fail "a lab without a chapter: still no warning" "$log"
fi
t_grep "a lab without a chapter: listed in the course map, not written yet" \
	'99-not-yet/README.md">99</a></td>.*not written yet' "$(tr -d '\n' <"$tmp/o1/index.html" 2>/dev/null)"

cp -r "$top"/book/* "$tmp/book/"
cat >"$tmp/book/chapters/01-suid-unmapped.md" <<'EOC'
# A broken chapter

<!-- diff: solutions/01-*.patch hunks=99 -->
<!-- capture: 01 middle -->
<!-- diff: solutions/no-such-*.patch -->
<!-- frobnicate: 01 -->
EOC
if log=$(BOOK_DIR=$tmp/book "$top/scripts/book.sh" --strict --html --out "$tmp/o2" 2>&1); then
	t_fail "a broken chapter fails the strict build" "$log"
else
	t_ok "a broken chapter fails the strict build"
	n=$(printf '%s\n' "$log" | grep -c 'warning: book:.*chapters/01-suid-unmapped.md:' || true)
	t_expect "a broken chapter: each bad directive is named with its line" 4 "$n"
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
	# The first chapter on a page of its own (a #fragment screenshots blank
	# in headless mode): the diff colours of style.css must be on screen.
	first=$(ls "$out"/src/10-chapter-*.md 2>/dev/null | head -1)
	if [ -n "$first" ]; then
		sed 's|@LABS@|../../labs|g' "$first" >"$tmp/chapter.md"
		pandoc --from markdown --standalone --css "$out/style.css" --metadata pagetitle=chapter \
			--highlight-style "$top/book/highlight.theme" -o "$tmp/chapter.html" "$tmp/chapter.md"
		shot "file://$tmp/chapter.html" "$out/screenshot-chapter.png" 3000
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
fi
t_summary book
