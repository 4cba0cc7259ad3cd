/* The book's search box (every page's sidebar), with Debian's lunr.js.
 * search-docs.js holds the sections of all pages (made by
 * scripts/bookpages.py when the book is rendered); the index is built here,
 * on the first search, so that a page opens without waiting for it.
 * page.html?q=words opens a page with that search done.
 * Also: a link into a folded reference answer opens the fold. */
(function () {
	"use strict";
	var input = document.getElementById("search-input");
	var list = document.getElementById("search-results");
	var idx = null;
	var docs = typeof BOOK_SEARCH_DOCS === "undefined" ? [] : BOOK_SEARCH_DOCS;

	function index() {
		if (idx || typeof lunr === "undefined") {
			return idx;
		}
		idx = lunr(function () {
			var self = this;
			self.ref("i");
			self.field("title", { boost: 5 });
			self.field("text");
			docs.forEach(function (d, i) {
				self.add({ i: String(i), title: d.title, text: d.text });
			});
		});
		return idx;
	}

	function excerpt(text, words) {
		var low = text.toLowerCase(), at = -1, i, w;
		for (i = 0; i < words.length && at < 0; i++) {
			w = words[i].toLowerCase().replace(/[*~^:+-]/g, "");
			if (w.length > 2) {
				at = low.indexOf(w.slice(0, Math.max(3, w.length - 2)));
			}
		}
		if (at < 0) {
			at = 0;
		}
		var start = Math.max(0, at - 50);
		return (start > 0 ? "…" : "") + text.slice(start, start + 140) + "…";
	}

	function run(query) {
		var found = [], words, res;
		list.textContent = "";
		query = query.trim();
		if (query.length < 2 || !index()) {
			return;
		}
		words = query.split(/\s+/);
		try {
			res = idx.search(query);
		} catch (e) {
			res = [];
		}
		if (res.length === 0) {
			/* a word being typed: its prefix; and no query syntax */
			try {
				res = idx.search(words.map(function (w) {
					return w.replace(/[*~^:+-]/g, "") + "*";
				}).join(" "));
			} catch (e2) {
				res = [];
			}
		}
		res.slice(0, 25).forEach(function (r) {
			var d = docs[Number(r.ref)], li = document.createElement("li");
			var a = document.createElement("a"), where = document.createElement("span");
			var ex = document.createElement("span");
			a.href = d.url;
			a.textContent = d.title;
			where.className = "where";
			where.textContent = d.page === d.title ? "" : d.page;
			ex.className = "excerpt";
			ex.textContent = excerpt(d.text, words);
			li.appendChild(a);
			li.appendChild(where);
			li.appendChild(ex);
			list.appendChild(li);
			found.push(d.url);
		});
		if (found.length === 0) {
			var none = document.createElement("li");
			none.className = "none";
			none.textContent = "Nothing found.";
			list.appendChild(none);
		}
	}

	if (input && list) {
		var timer = null;
		input.addEventListener("input", function () {
			clearTimeout(timer);
			timer = setTimeout(function () { run(input.value); }, 150);
		});
		input.addEventListener("focus", function () { setTimeout(index, 0); });
		var q = new URLSearchParams(window.location.search).get("q");
		if (q) {
			input.value = q;
			run(q);
		}
	}

	function openTarget() {
		var id = decodeURIComponent(window.location.hash.slice(1));
		var el = id && document.getElementById(id);
		var fold = el && el.closest("details");
		if (fold && !fold.open) {
			fold.open = true;
			el.scrollIntoView();
		}
	}
	window.addEventListener("hashchange", openTarget);
	openTarget();
}());
