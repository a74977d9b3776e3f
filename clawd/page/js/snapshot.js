// clawd's glue around the vendored Playwright aria code (playwright_aria.js, evaluated first in
// the same isolated world). Builds the tree in the page, lists the nodes whose names must come
// from Chrome's accessibility tree, then renders once Python has put Chrome's names in.
// State lives in this world's global `__clawd`, one per document: refs of the latest snapshot.

const clawd = globalThis.__clawd = {
  bindings: new WeakMap(),  // element -> {role, jsName, ref}: same element, same ref
  refs: new Map(),          // ref -> element, for the latest snapshot of this document only
  last: 0,                  // highest ref number minted (the tab's counter, passed in)
  snapshot: null,
  pending: [],
};

const PHRASING = new Set(["b", "i", "em", "strong", "span", "small", "code", "abbr", "sup", "sub",
  "mark", "u", "s", "time", "bdi", "bdo", "cite", "dfn", "kbd", "q", "samp", "var", "font", "wbr"]);
const NTH_UNNAMED = new Set(["button", "checkbox", "combobox", "link", "listbox", "radio", "searchbox",
  "slider", "spinbutton", "switch", "textbox", "iframe"]);
const FORM_CONTROLS = new Set(["input", "textarea", "select"]);
const NEVER_SIMPLE = new Set(["img", "area", "svg", "object", "embed", "fieldset", "figure", "table",
  "output", "meter", "progress", "iframe", "frame", "canvas", "video", "audio", "math", "summary", "details"]);
const TEXT_INPUTS = new Set(["", "text", "email", "tel", "url", "search", "password", "number",
  "checkbox", "radio"]);

function clawdMintRef(element, node, options) {
  let binding = clawd.bindings.get(element);
  if (!binding || binding.role !== node.role || binding.jsName !== node.name) {
    binding = { role: node.role, jsName: node.name, ref: (options.refPrefix || "") + "e" + (++clawd.last) };
    clawd.bindings.set(element, binding);
  }
  return binding.ref;
}

// Whether the name computed here is certainly the one Chrome computes; if not, Python asks
// Chrome (Accessibility.getPartialAXTree) for it. Conservative: anything unusual asks Chrome.
function clawdNoteName(node, element, name) {
  node.certain = nameIsCertain(element, node.role, node.name);
}

function nameIsCertain(element, role, name) {
  if (element.hasAttribute("aria-labelledby") || element.hasAttribute("title"))
    return false;
  const label = element.getAttribute("aria-label");
  if (label && label.trim())
    return !FORM_CONTROLS.has(element.localName) || element.localName !== "select";
  const tag = element.localName;
  if (NEVER_SIMPLE.has(tag) || element.shadowRoot)
    return false;
  if (FORM_CONTROLS.has(tag))
    return controlNameIsCertain(element);
  if (tag === "button" || allowsNameFromContent(role, false))
    return plainContent(element);
  return name === "";
}

function controlNameIsCertain(element) {
  if (element.localName === "input" && !TEXT_INPUTS.has(element.type))
    return false;
  if (element.hasAttribute("placeholder"))
    return false;
  const labels = element.labels ? [...element.labels] : [];
  if (labels.length === 0)
    return true;
  if (labels.length > 1)
    return false;
  return plainLabel(labels[0], element);
}

function plainLabel(label, control) {
  if (label.attributes.length > 2 || label.hasAttribute("aria-label") || label.hasAttribute("aria-labelledby"))
    return false;
  for (let child = label.firstChild; child; child = child.nextSibling) {
    if (child === control || child.nodeType !== Node.ELEMENT_NODE)
      continue;
    return false;
  }
  return hasPlainStyle(label) && !!label.textContent.trim();
}

function hasPlainStyle(element) {
  const style = getElementComputedStyle(element);
  if (!style || style.textTransform !== "none" || style.visibility !== "visible")
    return false;
  return !getCSSContent(element, "::before") && !getCSSContent(element, "::after");
}

function plainContent(element) {
  if (element.shadowRoot || element.localName === "slot" || element.hasAttribute("aria-owns"))
    return false;
  if (!hasPlainStyle(element))
    return false;
  for (let child = element.firstChild; child; child = child.nextSibling) {
    if (child.nodeType !== Node.ELEMENT_NODE)
      continue;
    if (!PHRASING.has(child.localName) || !plainAttributes(child))
      return false;
    if (getElementComputedStyle(child).display !== "inline" || !plainContent(child))
      return false;
  }
  return true;
}

function plainAttributes(element) {
  for (const attr of element.attributes) {
    if (attr.name !== "class" && attr.name !== "style" && attr.name !== "dir" && attr.name !== "lang")
      return false;
  }
  return true;
}

function clawdRoot(selector) {
  if (!selector)
    return document.body || document.documentElement;
  return document.querySelector(selector);
}

// Step 1: build and distill the tree; list the printed names Chrome must supply.
clawd.build = function (options) {
  clawd.last = Math.max(clawd.last, options.base || 0);
  const root = clawdRoot(options.selector);
  if (!root)
    return { error: "selector" };
  const publicOptions = { mode: options.mode, refPrefix: options.refPrefix || "" };
  const snapshot = generateAriaTree(root, publicOptions);
  distillAriaSnapshot(snapshot, publicOptions);
  clawd.snapshot = { snapshot, publicOptions };
  clawd.pending = [];
  const visit = (node) => {
    if (typeof node === "string")
      return;
    if (node.name && node.certain === false)
      clawd.pending.push(node);
    node.children.forEach(visit);
  };
  visit(snapshot.root);
  const page = [location.href, document.title, document.readyState, document.baseURI];
  if (!clawd.pending.length)
    return { pending: 0, page, rendered: clawd.render([], options.mode === "ai") };
  return { pending: clawd.pending.length, page };
};

clawd.pendingElements = function () {
  return clawd.pending.map(ariaNodeElement);
};

// Step 2: Chrome's names in (same order as pendingElements; null: keep ours), render.
clawd.render = function (names, withNth) {
  const { snapshot, publicOptions } = clawd.snapshot;
  (names || []).forEach((name, i) => {
    if (name !== null && name !== undefined)
      clawd.pending[i].name = normalizeWhiteSpace(name);
  });
  clawd.pending = [];
  const refs = collectRefs(snapshot.root, withNth);
  const { json, iframeDepths } = renderAriaTreeAsJSON(snapshot, publicOptions);
  const text = renderAriaSnapshotAsYaml(json);
  clawd.snapshot = null;
  return { text, refs, iframes: Object.keys(iframeDepths), last: clawd.last };
};

function collectRefs(root, withNth) {
  clawd.refs = new Map();
  const seen = new Map();
  const refs = [];
  const visit = (node) => {
    if (typeof node === "string")
      return;
    if (node.ref) {
      const element = ariaNodeElement(node);
      clawd.refs.set(node.ref, element);
      const key = node.role + "\u0000" + node.name;
      const nth = seen.get(key) || 0;
      seen.set(key, nth + 1);
      if (withNth && nth && (node.name || NTH_UNNAMED.has(node.role)))
        node.nth = nth;
      refs.push([node.ref, node.role, node.name, node.nth || 0, hasPointerCursor(node) ? 1 : 0]);
    }
    node.children.forEach(visit);
  };
  visit(root);
  return refs;
}

clawd.element = function (ref) {
  const element = clawd.refs.get(ref);
  if (!element)
    return "unknown";
  if (!element.isConnected)
    return "gone";
  return element;
};

// The labelled screenshot: outline and label each ref's box in the viewport (one overlay).
clawd.drawLabels = function (refs) {
  clawd.clearLabels();
  const overlay = document.createElement("div");
  overlay.setAttribute("data-clawd-labels", "");
  overlay.style.cssText = "position:fixed;inset:0;pointer-events:none;z-index:2147483647;";
  const vw = window.innerWidth, vh = window.innerHeight;
  let drawn = 0, skipped = 0;
  for (const ref of refs) {
    const element = clawd.refs.get(ref);
    const box = element && element.isConnected ? element.getBoundingClientRect() : null;
    if (!box || box.width <= 0 || box.height <= 0 || box.bottom < 0 || box.right < 0 || box.top > vh || box.left > vw) {
      skipped++;
      continue;
    }
    const outline = document.createElement("div");
    outline.style.cssText = `position:fixed;left:${box.left}px;top:${box.top}px;width:${box.width}px;` +
      `height:${box.height}px;outline:2px solid #FF4500;box-sizing:border-box;`;
    const label = document.createElement("div");
    label.textContent = ref;
    label.style.cssText = `position:fixed;left:${Math.max(0, box.left)}px;top:${Math.max(0, box.top - 14)}px;` +
      "font:bold 11px/13px monospace;background:#FF4500;color:#fff;padding:0 2px;";
    overlay.append(outline, label);
    drawn++;
  }
  (document.body || document.documentElement).appendChild(overlay);
  clawd.overlay = overlay;
  return { drawn, skipped };
};

clawd.clearLabels = function () {
  if (clawd.overlay)
    clawd.overlay.remove();
  clawd.overlay = null;
};
