-- SPDX-License-Identifier: GPL-2.0
-- pandoc filter (scripts/book.sh, the HTML pages): a code span that begins
-- with a kernel function the book names, `NAME(` or `NAME()->field`, links
-- to that function's page, code/NAME.html (scripts/bookcode.py: its body
-- on each base). The names with a page are in the file $BOOK_CODE_NAMES,
-- one a line. Headings and links are left as they are: a link is never
-- put inside another.
local names = {}
local list = os.getenv("BOOK_CODE_NAMES")
if list and list ~= "" then
  for line in io.lines(list) do
    if line ~= "" then names[line] = true end
  end
end

local function code(el)
  local name = el.text:match("^%*?([%a_][%w_]*)%(")
  -- a man page, `setsockopt(2)`, is not the kernel function
  if el.text:match("^%*?[%a_][%w_]*%(%d%a*%)") then return nil end
  if name and names[name] then
    return pandoc.Link({ el }, "code/" .. name .. ".html", "", { class = "fn" }), false
  end
end

return {
  {
    traverse = "topdown",
    Header = function(el) return el, false end,
    Link = function(el) return el, false end,
    Code = code,
  },
}
