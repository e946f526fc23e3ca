"""The book's look: Jupyter Book's _config.yml and _toc.yml, and the course's own CSS (course.css), for
`course_lib.course.book`, which writes them into the book's source folder."""
from __future__ import annotations

TITLE = "BERTScore, hands-on"
CSS = """\
/* The course's own styles for the book (course_lib/course/book.py); tests/test_book.py reads each page
   at 1280 px and at 390 px (a phone): no sideways page scroll, no display formula cut off. */
/* display maths: a formula wider than the column scrolls inside its box (MathJax also breaks long lines) */
div.math, .MathJax_Display { overflow-x: auto; overflow-y: hidden; max-width: 100%; }
/* long words (URLs in the references) and inline code in prose wrap instead of widening the page */
article p, article li, article td { overflow-wrap: anywhere; }
code.literal { white-space: normal; overflow-wrap: anywhere; }
code.literal span.pre { white-space: pre-wrap; overflow-wrap: anywhere; }
/* code cells wrap their long lines (no sideways scroll in the 688 px column); outputs keep their layout */
div.cell_input pre { white-space: pre-wrap; overflow-wrap: anywhere; }
/* a figure is a link to its full-size image */
a.course-figure img { cursor: zoom-in; }
/* the course map's time column breaks only between words, and is wide enough for "~15 min": with
   `td { overflow-wrap: anywhere }` above, the table squeezed it to a few letters and broke "tim/e" */
div.course-map th:last-child, div.course-map td:last-child { overflow-wrap: normal; min-width: 5.5em; }
"""


def config(mathjax_path: str) -> str:
    return f"""\
title: "{TITLE}"
author: "The BERTScore course"
copyright: "2026"
only_build_toc_files: true
exclude_patterns: ["_build", "_extra", "**.ipynb_checkpoints"]
execute:
  execute_notebooks: "off"
html:
  use_repository_button: false
  use_issues_button: false
  use_edit_page_button: false
  use_multitoc_numbering: false
  home_page_in_navbar: true
  extra_footer: "Read offline: built from the notebooks' stored outputs. Run the chapters with <code>make lab</code>."
launch_buttons:
  notebook_interface: "jupyterlab"
  binderhub_url: ""
  jupyterhub_url: ""
  thebe: false
  colab_url: ""
parse:
  myst_enable_extensions: ["dollarmath", "amsmath", "colon_fence"]
sphinx:
  config:
    language: "en"
    mathjax_path: "{mathjax_path}"
    mathjax3_config: null
    mathjax2_config:
      "HTML-CSS": {{"availableFonts": [], "preferredFont": null, "webFont": "STIX-Web", "imageFont": null,
                   "linebreaks": {{"automatic": true}}}}
      messageStyle: "none"
      tex2jax: {{"processClass": "math|output_area|tex2jax_process|mathjax_process",
                "ignoreClass": "tex2jax_ignore|mathjax_ignore|document"}}
    html_extra_path: ["_extra"]
    nb_ipywidgets_js: {{}}
    html_show_sphinx: false
    html_show_copyright: false
    # pydata-sphinx-theme 0.17 reads the colour mode from html_context; unset, every page logs
    # "Got invalid theme mode: ." (an error) before falling back to auto
    html_context: {{"default_mode": "auto"}}
    html_theme_options:
      # pydata-sphinx-theme 0.17 adds its own top bar (navbar_persistent defaults to a search field): a
      # second search box, and hidden copies of the .primary-toggle / .secondary-toggle buttons that the
      # themes' scripts bind to instead of the visible ones (pydata-sphinx-theme#2451): no menu on a phone.
      # Empty, the bar has nothing in it, and the article header's buttons are the only toggles.
      navbar_persistent: []
      use_download_button: true
      use_fullscreen_button: false
      navigation_with_keys: false
      show_toc_level: 2
    suppress_warnings: ["mystnb.unknown_mime_type"]
"""


def toc(pages: list[str]) -> str:
    lines = ["format: jb-book", "root: index", "chapters:"]
    return "\n".join(lines + [f"- file: {p}" for p in pages]) + "\n"
