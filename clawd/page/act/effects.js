// What an action changed in the rendered page, seen from clawd's isolated world (or
// the main world of a tab never snapshotted): a MutationObserver started just before the action,
// read, cumulatively, with the page state after its settle. One watch at a time: starting one
// stops the last, so nothing one action saw reaches the next one's answer. The values of the
// act's targets in this world (refs of the latest snapshot) are read here too, before and after:
// no command of their own. `isolated`: made in clawd's world, where a snapshot's refs are; in the
// page's own world a `__clawd` is the page's, never read.
(function (isolated) {
  const snapshot = () => (isolated ? globalThis.__clawd : null);
  const MAX_LINES = 5;
  const MAX_NODES = 2000;  // a page rewriting itself endlessly costs no more than this to follow
  const LIFETIME = 60000;  // ms a watch nobody read again keeps observing (the next act stops it)
  const STATE = ["aria-expanded", "aria-checked", "aria-selected", "aria-pressed", "aria-hidden",
    "aria-disabled", "aria-current", "checked", "disabled", "hidden", "open", "selected"];
  const SKIP = new Set(["SCRIPT", "STYLE", "LINK", "META", "TEMPLATE", "NOSCRIPT", "HEAD", "TITLE", "BR"]);
  const ROLES = { A: "link", BUTTON: "button", SELECT: "combobox", TEXTAREA: "textbox", LI: "listitem",
    UL: "list", OL: "list", NAV: "navigation", MAIN: "main", FORM: "form", TABLE: "table", TR: "row",
    TD: "cell", TH: "columnheader", IMG: "img", DIALOG: "dialog", P: "paragraph", OPTION: "option",
    H1: "heading", H2: "heading", H3: "heading", H4: "heading", H5: "heading", H6: "heading" };
  const INPUTS = { checkbox: "checkbox", radio: "radio", button: "button", submit: "button",
    reset: "button", range: "slider", search: "searchbox", number: "spinbutton" };
  let current = null;
  let made = 0;  // watches started with a token of this world's making

  // The target's value or checked state, the same before and after the act (effects.py sends it
  // alone for a target in another frame). A password's value is never read back: its length
  // says whether it changed.
  function valueOf(e) {
    const tag = e.tagName;
    if (tag === "INPUT" && (e.type === "checkbox" || e.type === "radio")) return { checked: e.checked };
    if (tag === "INPUT" && e.type === "password") return { value: "*".repeat(e.value.length) };
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return { value: e.value };
    // isContentEditable asks for the element's style: a recalculation on the act's way back,
    // after a change, unless an attribute says it may be editable
    if (e.closest("[contenteditable]") && e.isContentEditable) return { value: e.innerText };
    const aria = ["aria-checked", "aria-pressed", "aria-expanded", "aria-selected"]
      .filter((a) => e.hasAttribute(a)).map((a) => [a.slice(5), e.getAttribute(a)]);
    return aria.length ? Object.fromEntries(aria) : null;
  }

  function ours(node) {
    return node.nodeType === 1 && [...node.attributes].some((a) => a.name.startsWith("data-clawd"));
  }

  function role(element) {
    const clawd = snapshot();
    const binding = clawd && clawd.bindings && clawd.bindings.get(element);
    if (binding) return binding.role;
    const explicit = (element.getAttribute("role") || "").trim().split(/\s+/)[0];
    if (explicit) return explicit;
    if (element.tagName === "INPUT") return INPUTS[element.type] || "textbox";
    return ROLES[element.tagName] || "generic";
  }

  function name(element) {
    const label = element.getAttribute("aria-label") || element.getAttribute("alt") ||
      element.getAttribute("placeholder") || element.getAttribute("title");
    // textContent, not innerText: no layout forced on the act's way back (the page just changed)
    const text = (label || element.textContent || "").replace(/\s+/g, " ").trim();
    return text.length > 80 ? text.slice(0, 79) + "\u2026" : text;
  }

  function describe(element) {
    const clawd = snapshot();
    const binding = clawd && clawd.bindings && clawd.bindings.get(element);
    const ref = binding && clawd.refs && clawd.refs.get(binding.ref) === element ? binding.ref : "";
    return [role(element), name(element), ref];
  }

  function within(node, set) {
    for (let up = node.parentNode; up; up = up.parentNode || up.host) {
      if (set.has(up)) return true;
    }
    return false;
  }

  function rendered(element) {
    return element.isConnected && (!element.checkVisibility || element.checkVisibility());
  }

  function deepActive() {
    let active = document.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement)
      active = active.shadowRoot.activeElement;
    return active;
  }

  function note(watch, records) {
    if (Date.now() > watch.until) return stop(watch.token);  // nobody will read it now
    for (const record of records) {
      if (watch.seen++ > MAX_NODES) return;
      const target = record.target;
      if (record.type === "characterData") {
        if (target.parentElement) retext(watch, target.parentElement, record.oldValue, target.data);
      } else if (record.type === "attributes") {
        const was = watch.state.get(target) || {};
        if (!(record.attributeName in was)) was[record.attributeName] = record.oldValue;
        if (!ours(target)) watch.state.set(target, was);
      } else {
        noteChildren(watch, record);
      }
    }
  }

  function noteChildren(watch, record) {
    for (const node of record.addedNodes) {
      if (node.nodeType === 1 && !SKIP.has(node.tagName) && !ours(node)) watch.added.add(node);
      else if (node.nodeType === 3 && node.data.trim() && record.target.nodeType === 1)
        retext(watch, record.target, "", node.data);
    }
    for (const node of record.removedNodes) {
      if (watch.added.delete(node)) continue;  // came and went within the action
      if (node.nodeType === 1 && !SKIP.has(node.tagName) && !ours(node)) {
        if ((node.textContent || "").trim() || ROLES[node.tagName] || node.tagName === "INPUT")
          watch.removed.push(describe(node));
      } else if (node.nodeType === 3 && node.data.trim() && record.target.nodeType === 1) {
        retext(watch, record.target, node.data, "");
      }
    }
  }

  // The text an element lost and gained: the same text put back (textContent set to what it was)
  // is no change.
  function retext(watch, element, lost, gained) {
    const seen = watch.text.get(element) || ["", ""];
    watch.text.set(element, [seen[0] + (lost || ""), seen[1] + (gained || "")]);
  }

  // Start watching for the act `token` (one made here when none is given); `ref`, its first
  // target. The token, which reads the watch.
  function start(token, ref) {
    stop();
    token = token || "w" + ++made;
    const watch = { token, seen: 0, added: new Set(), removed: [], text: new Map(), state: new Map(),
      focus: deepActive(), targets: [] };
    watch.observer = new MutationObserver((records) => note(watch, records));
    const options = { subtree: true, childList: true, characterData: true,
      characterDataOldValue: true, attributes: true, attributeOldValue: true, attributeFilter: STATE };
    watch.observer.observe(document, options);
    for (const frame of document.getElementsByTagName("iframe")) {  // Blink keeps this list
      try {  // a same-origin frame's document; another origin's is out of reach (and of the act's)
        if (frame.contentDocument) watch.observer.observe(frame.contentDocument, options);
      } catch (e) { /* cross-origin */ }
    }
    // a click on <a download> starts a download no request of the page shows: the act waits for it
    watch.clicks = [];
    watch.onClick = (e) => {
      const anchor = e.composedPath().find((n) => n.localName === "a" && n.hasAttribute("download"));
      if (anchor) watch.clicks.push(e);
    };
    addEventListener("click", watch.onClick, true);
    watch.until = Date.now() + LIFETIME;
    current = watch;
    if (ref) target(token, ref);
    return token;
  }

  // An element the act works on, by its ref: its value now, to compare with its value at the read.
  function target(token, ref) {
    const clawd = snapshot();
    const element = current && current.token === token && clawd && clawd.refs.get(ref);
    if (!element || !element.isConnected) return false;
    current.targets.push([ref, element, valueOf(element)]);
    return true;
  }

  // [ref, before, after] of each target whose value or state changed.
  function values(watch) {
    const changed = [];
    for (const [ref, element, before] of watch.targets) {
      const after = before && valueOf(element);
      if (before && after && JSON.stringify(before) !== JSON.stringify(after))
        changed.push([ref, before, after]);
    }
    return changed;
  }

  function stop(token) {
    if (current && (token === undefined || current.token === token)) {
      current.observer.disconnect();
      removeEventListener("click", current.onClick, true);
      current = null;
    }
  }

  // What the watch saw so far: counts, the first lines, the focus if it moved.
  function read(token) {
    const watch = current;
    if (!watch || watch.token !== token) return null;
    note(watch, watch.observer.takeRecords());
    const added = [...watch.added].filter((e) => rendered(e) && !within(e, watch.added)).map(describe);
    const removed = watch.removed.slice();
    cancelSame(added, removed);  // a re-render that put back what it took away changed nothing
    const skip = (e) => !e.isConnected || watch.added.has(e) || within(e, watch.added);
    const retexted = [...watch.text].filter(([, [lost, gained]]) => lost !== gained).map(([e]) => e);
    const text = retexted.filter((e) => !skip(e) && rendered(e)).map(describe);
    const restated = [...watch.state].filter(([e, was]) =>
      Object.entries(was).some(([name, old]) => e.getAttribute(name) !== old)).map(([e]) => e);
    const state = restated.filter((e) => !skip(e) && !watch.text.has(e)).map(describe);
    const lines = [];
    for (const [kind, items] of [["added", added], ["removed", removed], ["text", text], ["state", state]])
      for (const item of items) if (lines.length < MAX_LINES) lines.push([kind, ...item]);
    const active = deepActive();
    const moved = active !== watch.focus && active && active !== document.body;
    return { token, added: added.length, removed: removed.length, text: text.length, state: state.length,
      lines, focus: moved ? describe(active) : null, values: values(watch),
      download: watch.clicks.some((e) => !e.defaultPrevented) };
  }

  function cancelSame(added, removed) {
    for (let i = added.length - 1; i >= 0; i--) {
      const key = added[i][0] + "\n" + added[i][1];
      const twin = removed.findIndex((r) => r[0] + "\n" + r[1] === key);
      if (twin >= 0) {
        added.splice(i, 1);
        removed.splice(twin, 1);
      }
    }
  }

  return { start, target, stop, read };
})
