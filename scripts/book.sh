#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Render the book "User namespaces, patch by patch" from book/.
#
#   book.sh [--strict] [--html] [--epub] [--pdf] [--paper a4|letter] [--out DIR]
#
# Default: HTML (build/book/index.html, the contents, and one page per
# chapter, appendix, the introduction and the course map, and one per section
# of a long one; made from pandoc's single document by scripts/bookpages.py,
# with a search index for Debian's lunr.js) and EPUB (build/book/userns-labs.epub).
# --strict turns every warning (ours and pandoc's) into an error: make test.
# --pdf: with weasyprint (scripts/deps.sh --pdf; make book-pdf installs it), page
# numbers, running heads, bookmarks and a contents list with page numbers
# (book/print.css), on A4 or --paper letter; else chromium or xelatex.
#
# Sources: book/00-intro.md, book/chapters/NN-slug.md (one per lab, numbered
# by its lab), book/appendix-*.md, book/metadata.yaml, book/style.css and the
# demo captures in book/captures/; the EPUB has book/epub.css and a cover drawn
# from book/cover.dot. The chapters hold directives, each alone on
# a line, that are expanded here (see book/CHAPTER-GUIDE.md):
#
#   <!-- diff: solutions/01-*.patch [hunks=bprm_fill_uid,...] -->  the patch's diff
#                              (or the hunks that change those functions)
#   <!-- message: solutions/01-*.patch -->              its commit message
#   <!-- capture: 01 done -->                           the demo's output at lab-01-done
#   <!-- file: labs/01-suid-unmapped/suid-exec.c [fn=NAME|define=NAME|marker=NAME] [lang=c] -->
#   <!-- lab-section: 01 Questions -->                  a section of the lab's README
#   <!-- bases: 01 -->                                  a section "On Debian 13's kernel
#                              (6.12)": where lab 01's 6.12 patches differ from its 6.1
#                              ones (scripts/basediff.py), and why (book/bases-6.12.md)
#
# so that what the book shows is always the code in the repository. Excerpts
# are anchored by name (scripts/bookexcerpt.py); hunk numbers and lines=A-B
# are a warning, but for the lines= listed in book/position-anchors.txt.
set -eu
. "$(dirname "$0")/lib.sh"

BOOK=${BOOK_DIR:-$TOP/book}
OUT=$BUILD/book
strict="" formats=() paper=A4
while [ $# -gt 0 ]; do
	case $1 in
	--strict) strict=1 ;;
	--html) formats+=(html) ;;
	--epub) formats+=(epub) ;;
	--pdf) formats+=(pdf) ;;
	--out) OUT=$2; shift ;;
	--paper)
		case ${2:-} in a4 | A4) paper=A4 ;; letter | Letter) paper=letter ;; *) die "book.sh: --paper a4 or --paper letter, not '${2:-}'" ;; esac
		shift ;;
	*) die "book.sh: unknown argument '$1' (usage: book.sh [--strict] [--html] [--epub] [--pdf] [--paper a4|letter] [--out DIR])" ;;
	esac
	shift
done
[ ${#formats[@]} -gt 0 ] || formats=(html epub)
command -v pandoc >/dev/null || die "pandoc not found: make book installs it (as root), or apt-get install pandoc"

nwarn=0
bwarn() {
	nwarn=$((nwarn + 1))
	warn "book: $*"
}
note() { printf 'note: %s\n' "$*" >&2; }

SRC=$OUT/src
rm -rf "$SRC"
mkdir -p "$SRC" "$OUT"
start=$(date +%s%N)

# The chapters explain 6.1's code: a diff: or message: directive naming a
# patch of the series (kernel-steps/NAME, solutions/NAME) quotes the patch
# 6.1 applies, its own (kernel-steps/6.1/NAME) where it keeps one, else the
# series' (scripts/claims.py reads the directives the same way).
BOOK_CODE_BASE=6.1

# one_file PATTERN: the single repository file a directive names, in $FOUND
# (not printed: a warning made in a subshell would not be counted)
one_file() {
	local m=()
	case $1 in
	kernel-steps/[!/]*.patch | solutions/[!/]*.patch)
		# shellcheck disable=SC2206
		m=($TOP/${1%%/*}/$BOOK_CODE_BASE/${1#*/})
		[ -f "${m[0]}" ] || m=() ;;
	esac
	# shellcheck disable=SC2206
	[ ${#m[@]} -gt 0 ] || m=($TOP/$1)
	FOUND=""
	if [ ${#m[@]} -ne 1 ] || [ ! -f "${m[0]}" ]; then
		[ -e "${m[0]}" ] || m=()
		bwarn "$where: '$1' must name exactly one file (found ${#m[@]}: ${m[*]#"$TOP"/})"
		return 1
	fi
	FOUND=${m[0]}
}

# arg KEY "ARGS": the value of KEY=VALUE in a directive's arguments
arg() {
	local a
	for a in $2; do
		case $a in "$1"=*) printf '%s\n' "${a#*=}"; return 0 ;; esac
	done
	return 0
}

# excerpt ARGS...: scripts/bookexcerpt.py (the hunks of a patch, the lines
# of a file, a commit message: anchored by name), in $EXCERPT (not printed:
# see one_file); its errors become warnings of the directive at $where about
# FILE ($2)
excerpt() {
	local rc=0 l
	EXCERPT=$("$TOP/scripts/bin/python3" "$TOP/scripts/bookexcerpt.py" "$@" 2>"$SRC/excerpt.log") || rc=$?
	while IFS= read -r l; do
		case $l in
		"position: "*) bwarn "$where: ${l#position: }: anchor by name (see book/CHAPTER-GUIDE.md)" ;;
		"error: "*) bwarn "$where: ${2#"$TOP"/}: ${l#error: }" ;;
		?*) bwarn "$where: bookexcerpt.py: $l" ;;
		esac
	done <"$SRC/excerpt.log"
	[ "$rc" = 0 ]
}

# The section that <!-- bases: NN --> makes in chapter NN: how lab NN's
# patches for the second base differ from those for 6.1, and why.
BASES_TITLE="On Debian 13's kernel (6.12)"
BASES_NOTES=$BOOK/bases-6.12.md

# basediff NN: scripts/basediff.py's fragment for lab NN with its note, in
# $BASEDIFF (not printed: see one_file); its warnings and errors become
# warnings of the directive at $where
basediff() {
	local rc=0 l
	BASEDIFF=$("$TOP/scripts/bin/python3" "$TOP/scripts/basediff.py" lab "$1" --top "$TOP" \
		--notes "$BASES_NOTES" 2>"$SRC/basediff.log") || rc=$?
	while IFS= read -r l; do
		l=${l//"$TOP"\//}
		case $l in
		"warning: "* | "error: "*) bwarn "$where: ${l#*: }" ;;
		?*) bwarn "$where: basediff.py: $l" ;;
		esac
	done <"$SRC/basediff.log"
	[ "$rc" = 0 ]
}

# position_ok REST: a lines= directive waiting for markers in its file, listed
# in book/position-anchors.txt (no new ones: anchor by name)
position_ok() {
	[ -f "$BOOK/position-anchors.txt" ] &&
		grep -qxF "${where%%:*} $1" <(sed "s|^|${BOOK#"$TOP"/}/|" "$BOOK/position-anchors.txt")
}

# Which captures are stale or missing (book-captures.sh --status; slow: it
# hashes every capture's inputs). BOOK_CAPTURE_NOTES=0 skips it (tests/book.sh,
# for its books of test chapters).
cap_status=""
# The captures are the main base's (book-captures.sh), whichever base renders.
[ "${BOOK_CAPTURE_NOTES:-1}" = 0 ] || cap_status=$(KERNEL=$MAIN_BASE "$TOP/scripts/book-captures.sh" --status 2>/dev/null || true)

fence() { # LANG CLASS: open a fenced block
	printf '\n```{.%s%s}\n' "$1" "${2:+ .$2}"
}

# slug TEXT -> an identifier
slug() {
	printf '%s' "$1" | tr '[:upper:]' '[:lower:]' | sed -E 's/`//g; s/[^a-z0-9]+/-/g; s/^-+//; s/-+$//'
}

# expand SRC KIND NUM: write SRC with its directives expanded and its headings
# numbered. KIND: intro (no numbers), chapter (NUM = the lab: 1, 1.1, ...),
# appendix (NUM = a letter: A, A.1, ...), plain.
expand() {
	local src=$1 kind=$2 num=$3 line lineno=0 infence="" d rest f h2=0 text id n step lab dir
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		where="${src#"$TOP"/}:$lineno"
		case $line in
		'```'* | '~~~'*)
			if [ -z "$infence" ]; then infence=${line:0:3}; elif [ "${line:0:3}" = "$infence" ]; then infence=""; fi
			printf '%s\n' "$line"
			continue
			;;
		esac
		if [ -n "$infence" ]; then printf '%s\n' "$line"; continue; fi
		# headings
		if [[ $line =~ ^(#{1,2})\ +(.*[^ ])\ *$ ]]; then
			text=${BASH_REMATCH[2]}
			case ${BASH_REMATCH[1]}:$kind in
			'#:chapter')
				id=lab-$(printf '%02d' "$num")
				printf '# [%s]{.secno} %s {#%s}\n' "$num" "$text" "$id"
				lab_box "$num"
				continue ;;
			'##:chapter')
				h2=$((h2 + 1))
				printf '## [%s.%s]{.secno} %s {#%s}\n' "$num" "$h2" "$text" "lab-$(printf '%02d' "$num")-$(slug "$text")"
				continue ;;
			'#:appendix')
				printf '# [Appendix %s]{.secno} %s {#appendix-%s}\n' "$num" "$text" "$(echo "$num" | tr '[:upper:]' '[:lower:]')"
				continue ;;
			'##:appendix')
				h2=$((h2 + 1))
				printf '## [%s.%s]{.secno} %s {#appendix-%s-%s}\n' "$num" "$h2" "$text" \
					"$(echo "$num" | tr '[:upper:]' '[:lower:]')" "$(slug "$text")"
				continue ;;
			'#:intro')
				printf '# %s {#introduction}\n' "$text"
				continue ;;
			'##:intro')
				printf '## %s {#intro-%s}\n' "$text" "$(slug "$text")"
				continue ;;
			esac
		fi
		if [[ $line =~ ^\<!--\ *([a-z-]+):\ *(.*[^ ])\ *--\>$ ]]; then
			d=${BASH_REMATCH[1]} rest=${BASH_REMATCH[2]}
			# a quote of the reference answer: the HTML folds its section
			case $kind:$d:$rest in chapter:diff:solutions/* | chapter:message:solutions/* | chapter:file:solutions/*)
				printf '\n<!-- reference-answer -->\n' ;;
			esac
			case $d in
			diff)
				one_file "${rest%% *}" || continue
				f=$FOUND
				fence diff
				# shellcheck disable=SC2046
				# hunk headers without line numbers, and no index lines (as
				# git range-diff shows them): a patch of the series is
				# quoted for both bases, where they differ
				excerpt diff "$f" $(arg hunks "$rest") &&
					printf '%s\n' "$EXCERPT" | sed -E -e 's/^@@ -[0-9]+(,[0-9]+)? \+[0-9]+(,[0-9]+)? @@/@@ @@/' -e '/^index [0-9a-f]+\.\.[0-9a-f]+( [0-7]+)?$/d'
				printf '```\n\n[From `%s`.]{.source}\n' "${f#"$TOP"/}"
				;;
			message)
				one_file "${rest%% *}" || continue
				f=$FOUND
				excerpt message "$f" || continue
				fence text commit
				printf '%s\n```\n' "$EXCERPT"
				;;
			capture)
				read -r n step <<<"$rest"
				n=$(printf '%02d' "$((10#${n:-0}))" 2>/dev/null) || n=00
				case $step in start | done) ;; *) bwarn "$where: capture wants 'NN start' or 'NN done', not '$rest'"; continue ;; esac
				f=$BOOK/captures/$n-$step.txt
				if [ ! -f "$f" ]; then
					bwarn "$where: no capture ${f#"$TOP"/}: run 'make book-captures'"
					printf '\n*(The output of this demo has not been captured yet: `make book-captures`.)*\n'
					continue
				fi
				grep -q "^$n $step stale" <<<"$cap_status" &&
					note "${f#"$TOP"/} is older than lab $n's code: 'make book-captures' makes it again"
				printf '\n[What the guest printed, kernel %s at tag `lab-%s-%s`:]{.capture-label}\n' "$MAIN_BASE" "$n" "$step"
				fence text capture
				cat "$f"
				printf '```\n'
				;;
			file)
				one_file "${rest%% *}" || continue
				f=$FOUND
				local lines lang anchor="" k
				lang=$(arg lang "$rest")
				for k in fn define marker lines; do
					[ -z "$(arg "$k" "$rest")" ] || anchor="$anchor $k=$(arg "$k" "$rest")"
				done
				case $anchor in
				"") lines="" ;;
				' '*' '*) bwarn "$where: one anchor at most (fn=, define= or marker=), not '${anchor# }'"; continue ;;
				' lines='*)
					position_ok "$rest" || bwarn "$where: lines=: anchor by name, fn=, define= or marker= (see book/CHAPTER-GUIDE.md)"
					excerpt lines "$f" "${anchor# }" || continue
					lines=$EXCERPT ;;
				*) excerpt lines "$f" "${anchor# }" || continue
					lines=$EXCERPT ;;
				esac
				if [ -z "$lang" ]; then
					case $f in
					*.c | *.h) lang=c ;;
					*.patch | *.diff) lang="diff" ;;
					*.sh | */check | */init) lang=bash ;;
					*.md) lang=markdown ;;
					*) lang=text ;;
					esac
				fi
				fence "$lang"
				if [ -n "$lines" ]; then sed -n "${lines%-*},${lines#*-}p" "$f"; else cat "$f"; fi
				printf '```\n\n[From `%s`%s.]{.source}\n' "${f#"$TOP"/}" "${lines:+, lines $lines}"
				;;
			bases)
				# a section of its own, numbered as the chapter's others
				if [ "$kind" != chapter ]; then
					bwarn "$where: 'bases:' belongs in a lab's chapter"
					continue
				fi
				if ! [[ $rest =~ ^[0-9]{1,2}$ ]] || [ "$((10#$rest))" != "$num" ]; then
					bwarn "$where: 'bases: $rest': a chapter names its own lab ('bases: $(printf '%02d' "$num")')"
					continue
				fi
				basediff "$rest" || continue
				h2=$((h2 + 1))
				printf '## [%s.%s]{.secno} %s {#%s}\n\n%s\n' "$num" "$h2" "$BASES_TITLE" \
					"lab-$(printf '%02d' "$num")-$(slug "$BASES_TITLE")" "$BASEDIFF"
				;;
			lab-section)
				lab=${rest%% *} text=${rest#* }
				if ! dir=$(lab_dir "$lab"); then
					bwarn "$where: there is no lab $lab"
					continue
				fi
				if ! grep -qx "## $text" "$dir/README.md"; then
					bwarn "$where: ${dir#"$TOP"/}/README.md has no section '## $text'"
					continue
				fi
				awk -v h="## $text" '$0 == h { on = 1; next } on && /^## / { exit } on' "$dir/README.md"
				printf '\n[From [`%s/README.md`](@LABS@/%s/README.md).]{.source}\n' \
					"${dir#"$TOP"/}" "$(basename "$dir")"
				;;
			*)
				bwarn "$where: unknown directive '$d' (see book/CHAPTER-GUIDE.md)"
				;;
			esac
			continue
		fi
		case $line in
		'<!-- '[a-z]*:*)
			bwarn "$where: a directive must be alone on its line and end with ' -->': $line" ;;
		esac
		printf '%s\n' "$line"
	done <"$src"
	[ -z "$infence" ] || bwarn "${src#"$TOP"/}: a code fence is never closed"
}

# lab_box N: the links and facts under a chapter's title
lab_box() {
	local n dir name
	n=$(printf '%02d' "$1")
	dir=$(lab_dir "$n") || return 0
	name=$(basename "$dir")
	printf '\n::: {.labbox}\n'
	printf '**Lab %s** in [`labs/%s/`](@LABS@/%s/): ' "$n" "$name" "$name"
	printf '[assignment](@LABS@/%s/README.md) · [check](@LABS@/%s/check)' "$name" "$name"
	[ -f "$dir/demo.sh" ] && printf ' · [demo](@LABS@/%s/demo.sh)' "$name"
	local what="Kernel files" series
	[ -n "$(lab_conf "$n" USERSPACE)" ] && what="Your files"
	series=$(lab_conf "$n" SERIES '?')
	printf '  \n%s: %s · points: %s  \nUpstream: *%s* ' "$what" \
		"$(lab_conf "$n" FILES | sed -E 's/([^ ]+)/`\1`/g; s/ /, /g')" "$(lab_conf "$n" POINTS '?')" \
		"$(lab_conf "$n" UPSTREAM '?')"
	case $series in '('*) printf '%s  \n' "$series" ;; *) printf '(%s)  \n' "$series" ;; esac
	if [ -n "$(lab_conf "$n" USERSPACE)" ]; then
		printf 'Kernel tag: `lab-%s-start` (the finished kernel; the work is in user space)\n:::\n\n' "$n"
	else
		printf 'Kernel tags: `lab-%s-start` (your starting point), `lab-%s-done` (the answer)\n:::\n\n' "$n" "$n"
	fi
}

# --- the course map, from labs/ and book/chapters/ -----------------------
declare -A chapter=()
for f in "$BOOK"/chapters/[0-9][0-9]-*.md; do
	[ -e "$f" ] || continue
	n=$(basename "$f" | cut -c1-2)
	[ -z "${chapter[$n]:-}" ] || bwarn "two chapters for lab $n: ${chapter[$n]#"$TOP"/} and ${f#"$TOP"/}"
	chapter[$n]=$f
	lab_dir "$n" >/dev/null || bwarn "${f#"$TOP"/}: there is no lab folder labs/$n-*"
done
{
	echo '# The course map {#course-map}'
	echo
	echo 'One chapter per lab, numbered like the lab. A lab whose chapter is not written yet is'
	echo 'listed here and has no chapter in this edition.'
	echo
	# one column for the lab: its chapter (or none yet) and its folder
	# (.course-map: style.css gives its columns their widths)
	echo '::: {.course-map}'
	echo '| lab | what the lab puts back | kernel files |'
	echo '|---|---|---|'
	while read -r dir; do
		n=$(lab_num "$dir")
		if [ -n "${chapter[$n]:-}" ]; then
			ch="[Chapter $((10#$n))](#lab-$n)"
		else
			ch="$((10#$n)), *not written yet*"
		fi
		printf '| %s · [`%s/`](@LABS@/%s/README.md) | %s | %s |\n' "$ch" "$(basename "$dir")" "$(basename "$dir")" \
			"$(lab_conf "$n" TITLE '?')" "$(lab_conf "$n" FILES | sed -E 's/([^ ]+)/`\1`/g; s/ /, /g')"
	done < <(lab_dirs)
	echo ':::'
	echo
} >"$SRC/01-course-map.md"

# --- expand every source ---------------------------------------------------
where=book
expand "$BOOK/00-intro.md" intro 0 >"$SRC/00-intro.md"
chapters=()
for n in $(printf '%s\n' "${!chapter[@]}" | sort); do
	f=${chapter[$n]}
	out=$SRC/10-chapter-$n.md
	expand "$f" chapter "$((10#$n))" >"$out"
	next=""
	for m in $(printf '%s\n' "${!chapter[@]}" | sort); do
		[ "$((10#$m))" -gt "$((10#$n))" ] && { next=$m; break; }
	done
	{
		printf '\n::: {.chapnav}\n[↑ The course map](#course-map)'
		dir=$(lab_dir "$n") && printf ' · [Lab %s folder](@LABS@/%s/)' "$n" "$(basename "$dir")"
		[ -n "$next" ] && printf ' · [Next: chapter %s →](#lab-%s)' "$((10#$next))" "$next"
		printf '\n:::\n'
	} >>"$out"
	chapters+=("$out")
done
letters=(A B C D E F G H)
i=0
for f in "$BOOK"/appendix-*.md; do
	[ -e "$f" ] || continue
	expand "$f" appendix "${letters[$i]}" >"$SRC/20-appendix-$i.md"
	i=$((i + 1))
done

sources=("$SRC/00-intro.md" "$SRC/01-course-map.md")
[ ${#chapters[@]} -eq 0 ] || sources+=("${chapters[@]}")
for f in "$SRC"/20-appendix-*.md; do [ -e "$f" ] && sources+=("$f"); done

# Lab links: relative to build/book/ in HTML; in EPUB and PDF they point to
# BOOK_REPO_URL when it is set, else they become plain text naming the path.
links() { # FORMAT FILE...: the files, a blank line after each (a heading needs one before it)
	local fmt=$1 f
	shift
	for f in "$@"; do
		cat "$f"
		echo
	done | links_in "$fmt"
}
links_in() {
	local fmt=$1
	if [ "$fmt" = html ]; then
		sed "s|@LABS@|$(realpath --relative-to="$OUT" "$LABS_DIR")|g"
	elif [ -n "${BOOK_REPO_URL:-}" ]; then
		sed "s|@LABS@|${BOOK_REPO_URL%/}/labs|g"
	else
		sed -E 's|\[([^]]*)\]\(@LABS@/([^)]*)\)|\1|g'
	fi
}

# Figures: book/figures/NAME.dot, drawn by graphviz into OUT/figures/NAME.svg;
# a chapter shows one with ![caption](figures/NAME.svg){alt="..."}.
rm -rf "$OUT/figures"
mkdir -p "$OUT/figures"
for f in "$BOOK"/figures/*.dot; do
	[ -e "$f" ] || continue
	command -v dot >/dev/null || die "dot not found: install the Debian package graphviz (scripts/deps.sh --test)"
	svg=$OUT/figures/$(basename "$f" .dot).svg
	if ! dot -Tsvg "$f" -o "$svg" 2>"$SRC/dot.log"; then
		sed 's/^/    /' "$SRC/dot.log" >&2
		die "dot could not draw ${f#"$TOP"/}"
	fi
	while IFS= read -r l; do bwarn "${f#"$TOP"/}: $l"; done <"$SRC/dot.log"
done
for f in "${sources[@]}"; do
	while IFS= read -r l; do
		[ -f "$OUT/$l" ] || bwarn "${f#"$SRC"/}: no figure $l (book/figures/$(basename "$l" .svg).dot)"
	done < <(grep -oE '\]\(figures/[^)]*\)' "$f" | sed -E 's/^\]\((.*)\)$/\1/')
done

pandoc_common=(--from markdown --metadata-file "$BOOK/metadata.yaml" --toc --toc-depth 2
	--highlight-style "$BOOK/highlight.theme" --resource-path "$BOOK:$OUT")
[ -n "$strict" ] && pandoc_common+=(--fail-if-warnings)
perr=$OUT/pandoc.log
: >"$perr"

run_pandoc() { # OUTPUT FORMAT ARGS...
	local o=$1 fmt=$2
	shift 2
	links "$fmt" "${sources[@]}" >"$SRC/book-$fmt.md"
	if ! pandoc "${pandoc_common[@]}" "$@" -o "$o" "$SRC/book-$fmt.md" 2>>"$perr"; then
		sed 's/^/    /' "$perr" >&2
		die "pandoc could not render $o (log: ${perr#"$TOP"/})"
	fi
}

for fmt in "${formats[@]}"; do
	case $fmt in
	html)
		# one document from pandoc, cut into pages by bookpages.py
		lunr=/usr/share/javascript/lunr/lunr.min.js
		[ -f "$lunr" ] || die "no $lunr: install the Debian package libjs-lunr (scripts/deps.sh --test)"
		# each kernel function the book names links to its code on each
		# base (scripts/bookcode.py); without a kernel tree, no links
		codelinks=()
		rm -rf "$OUT/code"
		rc=0
		"$TOP/scripts/bin/python3" "$TOP/scripts/bookcode.py" pages "$OUT/code" >"$SRC/code.log" 2>&1 || rc=$?
		case $rc in
		0)
			codelinks=(--lua-filter "$BOOK/codelinks.lua")
			info "book: $(tail -n 1 "$SRC/code.log")"
			;;
		3) warn "book: no code pages: $(tail -n 1 "$SRC/code.log")" ;;
		*) bwarn "bookcode.py failed (exit $rc): $(tail -n 3 "$SRC/code.log" | tr '\n' ' ')" ;;
		esac
		BOOK_CODE_NAMES=$OUT/code/names.txt run_pandoc "$SRC/book.html" html --to html5 --standalone \
			--template "$BOOK/template.html" --section-divs \
			--metadata pagetitle="User namespaces, patch by patch" "${codelinks[@]}"
		rm -f "$OUT"/*.html
		if ! pages=$("$TOP/scripts/bin/python3" "$TOP/scripts/bookpages.py" split "$SRC/book.html" "$OUT" 2>"$SRC/pages.log"); then
			sed 's/^/    /' "$SRC/pages.log" >&2
			die "bookpages.py could not make the pages"
		fi
		while IFS= read -r l; do
			case $l in warning:*) bwarn "${l#warning: }" ;; ?*) warn "$l" ;; esac
		done <"$SRC/pages.log"
		cp "$BOOK/style.css" "$BOOK/search.js" "$lunr" "$OUT/"
		# each code page names the sections that link to it
		if [ ${#codelinks[@]} -gt 0 ] &&
			! l=$("$TOP/scripts/bin/python3" "$TOP/scripts/bookcode.py" backlinks "$OUT" 2>&1); then
			bwarn "bookcode.py backlinks failed: $l"
		fi
		info "book: ${OUT#"$TOP"/}/index.html ($pages)"
		;;
	epub)
		# its own stylesheet (for e-readers) and a cover drawn from book/cover.dot
		command -v dot >/dev/null || die "dot not found: install the Debian package graphviz (scripts/deps.sh --test)"
		if ! dot -Tpng "$BOOK/cover.dot" -o "$SRC/cover.png" 2>"$SRC/dot.log"; then
			sed 's/^/    /' "$SRC/dot.log" >&2
			die "dot could not draw ${BOOK#"$TOP"/}/cover.dot"
		fi
		while IFS= read -r l; do bwarn "${BOOK#"$TOP"/}/cover.dot: $l"; done <"$SRC/dot.log"
		run_pandoc "$OUT/userns-labs.epub" epub --to epub3 --css "$BOOK/epub.css" \
			--epub-cover-image "$SRC/cover.png"
		info "book: ${OUT#"$TOP"/}/userns-labs.epub"
		;;
	pdf)
		pdf=$OUT/userns-labs.pdf
		# print.html is printed from its file, its stylesheets and figures
		# beside it (not inlined: pandoc 2.17 has no --embed-resources,
		# pandoc 3 deprecates --self-contained); book/print-template.html
		# puts the licence on its first page
		cp "$BOOK/style.css" "$BOOK/print.css" "$SRC/"
		ln -sfn "$OUT/figures" "$SRC/figures"
		if command -v weasyprint >/dev/null; then
			run_pandoc "$SRC/print.html" pdf --to html5 --standalone --section-divs \
				--template "$BOOK/print-template.html" \
				--css style.css --css print.css --metadata pagetitle="User namespaces, patch by patch"
			printf '@page { size: %s; }\n' "$paper" >"$SRC/paper.css"
			# (its warnings are about CSS it ignores, pandoc's too: kept in a log)
			if ! weasyprint -s "$SRC/paper.css" "$SRC/print.html" "$pdf" 2>"$SRC/weasyprint.log"; then
				tail -20 "$SRC/weasyprint.log" | sed 's/^/    /' >&2
				die "weasyprint could not print $pdf"
			fi
		elif command -v chromium >/dev/null; then
			# (a fallback: chromium takes the paper size and makes bookmarks;
			# the running heads and the contents' page numbers need weasyprint)
			printf '@page { size: %s; }\n' "$paper" >"$SRC/paper.css"
			run_pandoc "$SRC/print.html" pdf --to html5 --standalone --css style.css \
				--css print.css --css paper.css --section-divs --template "$BOOK/print-template.html" \
				--metadata pagetitle="User namespaces, patch by patch"
			timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
				--disable-background-networking --disable-component-update --disable-sync \
				--generate-pdf-document-outline \
				--user-data-dir="$(mktemp -d)" --no-pdf-header-footer --print-to-pdf="$pdf" \
				"file://$SRC/print.html" >/dev/null 2>&1 || die "chromium could not print $pdf"
		elif command -v xelatex >/dev/null; then
			run_pandoc "$pdf" pdf --pdf-engine xelatex -V geometry:margin=2cm
		else
			die "no PDF engine: install one of the Debian packages weasyprint, chromium or texlive-xetex (apt-get install --no-install-recommends weasyprint), then run 'make book-pdf' again"
		fi
		info "book: ${OUT#"$TOP"/}/userns-labs.pdf"
		;;
	esac
done

if [ -s "$perr" ]; then
	while IFS= read -r l; do bwarn "pandoc: $l"; done <"$perr"
fi
ms=$((($(date +%s%N) - start) / 1000000))
secs=$((ms / 1000)).$(printf '%03d' $((ms % 1000)))
info "book: ${#chapters[@]} chapter(s), $(lab_dirs | wc -l) lab(s) in the course map, rendered in ${secs} s"
if [ "$nwarn" -gt 0 ]; then
	if [ -n "$strict" ]; then
		die "book: $nwarn warning(s), treated as errors (--strict)"
	fi
	warn "book: $nwarn warning(s)"
fi
exit 0
