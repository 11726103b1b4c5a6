"""report.html: the Markdown report as one self-contained page.

The subset of Markdown the report writes (headings, tables, lists,
quotes, paragraphs, `code`, **bold**) becomes HTML; each grid's
heatmap.png and errors.png follow its dataset's section, inline as
base64, so the page can be mailed or archived alone.
"""

from __future__ import annotations

import base64
import html
import os
import re

STYLE = ("body{font-family:sans-serif;max-width:80em;margin:auto;padding:1em}"
         "table{border-collapse:collapse;margin:0.5em 0}"
         "td,th{border:1px solid #bbb;padding:2px 6px;font-size:90%}"
         "img{max-width:48%;margin:4px}blockquote{color:#444}")


def _inline(text: str) -> str:
  out = html.escape(text, quote=False)
  out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
  return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)


def _cells(line: str) -> list[str]:
  return [c.strip() for c in line.strip().strip("|").split("|")]


def _image(path: str) -> str:
  with open(path, "rb") as f:
    data = base64.b64encode(f.read()).decode("ascii")
  return (f'<img alt="{html.escape(os.path.basename(path))}" '
          f'src="data:image/png;base64,{data}">')


def to_html(markdown: str, figures: dict[str, list[str]]) -> str:
  """`figures`: {section heading: [png paths]} appended to that section."""
  body, i = [], 0
  lines = markdown.splitlines()
  section = None

  def close_section():
    for path in figures.get(section or "", []):
      if os.path.exists(path):
        body.append(_image(path))

  while i < len(lines):
    line = lines[i]
    m = re.match(r"^(#+) (.*)$", line)
    if m:
      close_section()
      section = m.group(2)
      n = len(m.group(1))
      body.append(f"<h{n}>{_inline(m.group(2))}</h{n}>")
    elif line.startswith("|"):
      rows = []
      while i < len(lines) and lines[i].startswith("|"):
        rows.append(lines[i])
        i += 1
      head, rest = _cells(rows[0]), rows[2:]
      body.append("<table><tr>" + "".join(f"<th>{_inline(c)}</th>"
                                          for c in head) + "</tr>")
      body += ["<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in _cells(r))
               + "</tr>" for r in rest]
      body.append("</table>")
      continue
    elif line.startswith("- "):
      items = []
      while i < len(lines) and lines[i].startswith("- "):
        items.append(f"<li>{_inline(lines[i][2:])}</li>")
        i += 1
      body.append("<ul>" + "".join(items) + "</ul>")
      continue
    elif line.startswith("> "):
      body.append(f"<blockquote>{_inline(line[2:])}</blockquote>")
    elif line.strip():
      body.append(f"<p>{_inline(line)}</p>")
    i += 1
  close_section()
  return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
          f"<title>Reproduction report</title><style>{STYLE}</style></head>"
          "<body>\n" + "\n".join(body) + "\n</body></html>\n")
