"""The presenter page, as the kernel behind `make present` draws it (course_lib.demo.launch serves it with Voilà)."""
from __future__ import annotations


def presenter(preset: str = "lawyer / attorney"):
    """The presenter page: a title, then the pair demo and the class view in two tabs (the class
    set is ranked when its tab is first opened; its texts are embedded in the background once the
    page is shown)."""
    import threading

    import ipywidgets as w
    from IPython.display import display

    from course_lib.demo.class_view import ClassView
    from course_lib.demo.widgets import Demo

    demo, classes = Demo(preset=preset, scroll=False, keep=True), ClassView(rank_now=False, editors_open=False)
    tabs = w.Tab([demo.widget, classes.widget], titles=("One pair", "A class set"),
                 layout=w.Layout(width="100%"))
    tabs.add_class("bertscore-demo-present")
    tabs.observe(lambda change: classes.show() if change["new"] == 1 else None, "selected_index")
    title = w.HTML("<h2 class='bsd-title'>BERTScore, live</h2>")
    title.add_class("bertscore-demo-title")  # on the tabs' row (style.py): each tab then fits 1024×576
    page = w.VBox([title, tabs], layout=w.Layout(width="100%"))
    page.add_class("bertscore-demo-page")
    display(page)
    threading.Thread(target=embed_ahead, args=(classes,), daemon=True).start()
    return demo, classes


def embed_ahead(classes) -> None:
    """Embed a ClassView's reference and answers now (the presenter runs this in a thread while
    its page loads), so that opening the view only ranks. A problem is shown on opening."""
    from course_lib.demo.scoring import encoded_many, torch_threads
    from course_lib.demo.widgets import ONE_AT_A_TIME

    answers = [a.strip() for a in classes.answers.value.splitlines() if a.strip()]
    with ONE_AT_A_TIME, torch_threads(1):
        try:
            encoded_many([classes.reference.value.strip(), *answers])
        except Exception:
            pass
