// The demo's behaviour in the browser: the ES module of course_lib.demo.page.PageBehaviour (an
// anywidget). It lives inside one demo (the element with class `bertscore-demo` around it) and
// listens only to that demo's events; nothing here polls.
//
//  * Ctrl+Enter (or Cmd+Enter) in a text box scores it: the box loses focus (which sends its text
//    to the kernel, as Tab does) and gets it back.
//  * A changed control marks the demo pending (the CSS greys its numbers after 0.2 s and says it
//    is waiting) until the kernel says it handled the change (`drawn` grows): the kernel may be
//    busy with the other tab, and old numbers must never stand under a newly chosen preset. A
//    chosen preset also lets go of the keyboard focus, so PageDown and the arrows scroll the page.
//  * With `keep` (the presenter page): the preset, idf switch and idf corpus the kernel reports
//    (`settings`) are stored in the tab's sessionStorage; after a reload they are sent back
//    (`restored`) and, until the kernel has drawn them, the old numbers stay hidden.
//  * With `scroll`: the demo is brought into view once, when it first appears (Run All otherwise
//    leaves the view at the last cell).

const KEY = "bertscore-demo-settings";

function stored() {
  try {
    return JSON.parse(sessionStorage.getItem(KEY) || "{}");
  } catch (err) {
    return {};
  }
}

function render({ model, el }) {
  el.classList.add("bsd-behaviour");
  const demo = () => el.closest(".bertscore-demo");
  const mine = (target) => {
    const d = demo();
    return d !== null && target instanceof Element && d.contains(target) ? d : null;
  };

  function onKey(event) {
    const box = event.target instanceof Element ? event.target.closest(".bertscore-demo-text") : null;
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || !box || !mine(box)) return;
    event.preventDefault();
    event.stopPropagation();
    const target = event.target;
    target.blur();
    setTimeout(() => target.focus(), 0);
  }

  function onChange(event) {
    const d = mine(event.target);
    if (!d) return;
    d.classList.add("bsd-pending");
    if (event.target.closest(".bertscore-demo-preset")) {
      d.classList.add("bsd-relabel");
      event.target.blur();
    }
  }

  function onDrawn() {
    const d = demo();
    if (d) d.classList.remove("bsd-pending", "bsd-relabel");
    el.classList.remove("bsd-restoring");
  }

  function onSettings() {
    if (!model.get("keep")) return;
    const now = model.get("settings"), kept = stored();
    if (now.preset) kept.preset = now.preset; // a text typed by hand keeps the last preset
    kept.idf = now.idf;
    kept.corpus = now.corpus;
    sessionStorage.setItem(KEY, JSON.stringify(kept));
  }

  document.addEventListener("keydown", onKey, true);
  document.addEventListener("change", onChange, true);
  model.on("change:drawn", onDrawn);
  model.on("change:settings", onSettings);

  if (model.get("keep")) {
    const kept = stored();
    if (Object.keys(kept).length > 0) {
      el.classList.add("bsd-restoring"); // the CSS hides the numbers until the kernel draws these
      model.set("restored", kept);
      model.save_changes();
    }
  }
  if (model.get("scroll")) {
    // once, when the demo is on the page (the view is inserted after render returns)
    requestAnimationFrame(() => setTimeout(() => demo()?.scrollIntoView({ block: "start" }), 300));
  }

  return () => {
    document.removeEventListener("keydown", onKey, true);
    document.removeEventListener("change", onChange, true);
    model.off("change:drawn", onDrawn);
    model.off("change:settings", onSettings);
  };
}

export default { render };
