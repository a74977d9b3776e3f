// The snapshot's steps in the page, around clawd's walker (walker.js and render.js, evaluated first
// in the same isolated world, then this file, names.js, content.js and quickname.js). Builds the
// tree in the page, lists the nodes whose names must come from Chrome's accessibility tree
// (names.js decides which), then renders once Python has put Chrome's names in.
// State lives in this world's global `__clawd`, one per document: refs of the latest snapshot.

const clawd = globalThis.__clawd = {
  bindings: new WeakMap(),  // element -> {role, jsName, ref}: same element, same ref
  refs: new Map(),          // ref -> element, for the latest snapshot of this document only
  lookup: new Map(),        // ref -> element of the last walk that looked for a role ref's element
  last: 0,                  // highest ref number minted (the tab's counter, passed in)
  snapshot: null,
  pending: [],
  known: [],                // nodes whose Chrome name the walker computed (chromeName), put in at render
  closedRoots: new WeakMap(),  // host -> its closed shadow root, handed in by Python (DOM.resolveNode)
  probed: new WeakSet(),       // elements Python already looked at for a closed shadow root
  candidates: [],
  packed: "",                  // a long answer, until Python has fetched its slices
  auditQuickNames: false,      // quickname.js checks each quick name against walker.js's (tests)
  quickAudit: { count: 0, general: 0, differ: [] },
};

const NTH_UNNAMED = new Set(["button", "checkbox", "combobox", "link", "listbox", "radio", "searchbox",
  "slider", "spinbutton", "switch", "textbox", "iframe"]);

// Elements that may host a closed shadow root: an isolated world cannot see one (shadowRoot is
// null), so Python asks DOM.describeNode about these and hands the roots back, once per element
// and document. A candidate is a defined custom element (a web component; asked even when all its
// children are slotted, which nothing in the page tells apart; undefined ones, like MathJax's
// 1,100 mjx-* tags, are not asked: 150 ms), or a custom or shadow-capable built-in element that
// is empty yet has a box, or that has a child outside the flat tree (no computed style: unslotted
// content of a shadow host). Not found: an undefined custom element or a built-in one (a <div>)
// whose children are all slotted.
const SHADOW_HOSTS = new Set(["article", "aside", "blockquote", "body", "div", "footer", "h1", "h2", "h3",
  "h4", "h5", "h6", "header", "main", "nav", "p", "section", "span"]);

// element.labels, from an index built once per tree root while the walker's caches are on.
// Measured: Chrome answers element.labels by scanning the element's whole tree for labels, so
// the first read on each of big.html's 2,000 buttons cost 0.2 ms (415 ms in all).
function elementLabels(element) {
  if (!cacheLabels)
    return element.labels ? [...element.labels] : [];
  const root = element.getRootNode();
  let index = cacheLabels.get(root);
  if (!index) {
    index = new Map();
    for (const label of root.querySelectorAll("label")) {
      const control = label.control;
      if (!control)
        continue;
      if (!index.has(control))
        index.set(control, []);
      index.get(control).push(label);
    }
    cacheLabels.set(root, index);
  }
  return index.get(element) || [];
}

function clawdClosedRoot(element) {
  return clawd.closedRoots.get(element) || null;
}

function mayHostClosedRoot(element) {
  const name = element.localName;
  const custom = name.includes("-");
  if (custom && element.matches(":defined"))
    return true;
  if (!custom && !SHADOW_HOSTS.has(name))
    return false;
  if (element.firstElementChild) {
    for (let child = element.firstElementChild; child; child = child.nextElementSibling) {
      if (getElementComputedStyle(child).display === "")
        return true;
    }
    return false;
  }
  if (element.firstChild)
    return false;
  const box = element.getBoundingClientRect();
  return box.width > 0 && box.height > 0;
}

// One walk over the page, through open and known closed shadow roots: the tree roots (for the
// style sheet check below) and, when probing, the elements that may host a closed shadow root.
function scanPage(probe) {
  const candidates = [];
  const roots = [document];
  const scan = (top) => {
    const walker = document.createTreeWalker(top, NodeFilter.SHOW_ELEMENT);
    for (let element = walker.nextNode(); element; element = walker.nextNode()) {
      const shadow = element.shadowRoot || clawd.closedRoots.get(element);
      if (shadow) {
        roots.push(shadow);
        scan(shadow);
      } else if (probe && !clawd.probed.has(element) && mayHostClosedRoot(element)) {
        candidates.push(element);
      }
    }
  };
  scan(document.documentElement);
  return { candidates, roots };
}

// Whether ::before/::after may give an element content. Asking costs a pseudo-element style per
// element (measured on big.html: 80 ms of 330 cold), so it is asked only when some style sheet of
// the page mentions :before or :after. A sheet that cannot be read (cross-origin) counts as
// mentioning them. Chrome's own sheet gives <q> quotes (content: open-quote), which the walker
// does not print anyway, like Playwright.
let pseudoRules = true;
const PSEUDO_SELECTOR = /:(before|after)/i;

function clawdMayHavePseudoContent() {
  return pseudoRules;
}

function sheetsMentionPseudo(roots) {
  const inRules = (rules) => {
    for (const rule of rules) {
      if (rule.selectorText && PSEUDO_SELECTOR.test(rule.selectorText))
        return true;
      if (rule.styleSheet && inSheet(rule.styleSheet))   // @import
        return true;
      if (rule.cssRules && inRules(rule.cssRules))       // @media, @supports, @layer, nesting...
        return true;
    }
    return false;
  };
  const inSheet = (sheet) => {
    try {
      return inRules(sheet.cssRules);
    } catch (e) {
      return true;
    }
  };
  return roots.some((root) => [...root.styleSheets, ...(root.adoptedStyleSheets || [])].some(inSheet));
}

// A node without a role of its own that is clickable all the same (onclick, a tabindex that puts
// it in the tab order, an editing host) prints `[cursor=pointer]` like a cursor:pointer one.
function clawdPromoted(node) {
  if (node.role !== "generic")
    return false;
  const element = ariaNodeElement(node);
  if (!element || !element.getAttribute)
    return false;
  if (element.hasAttribute("onclick"))
    return true;
  const tabindex = element.getAttribute("tabindex");
  if (tabindex !== null && tabindex.trim() !== "" && Number(tabindex) >= 0)
    return true;
  return element.isContentEditable && !(element.parentElement && element.parentElement.isContentEditable);
}

function clawdMintRef(element, node, options) {
  let binding = clawd.bindings.get(element);
  if (!binding || binding.role !== node.role || binding.jsName !== node.name) {
    binding = { role: node.role, jsName: node.name, ref: (options.refPrefix || "") + "e" + (++clawd.last) };
    clawd.bindings.set(element, binding);
  }
  return binding.ref;
}

function clawdRoot(selector) {
  if (!selector)
    return document.body || document.documentElement;
  return document.querySelector(selector);
}

// Where the time of the last build and render went (ms), for bench/snapshot.py --profile.
clawd.timings = {};
function clawdClock() {
  let last = performance.now();
  return (label) => {
    const now = performance.now();
    clawd.timings[label] = now - last;
    last = now;
  };
}

// Step 1: build and distill the tree; list the printed names Chrome must supply.
clawd.build = function (options) {
  clawd.last = Math.max(clawd.last, options.base || 0);
  clawd.packed = "";
  clawd.candidates = [];
  if (options.root && document.readyState === "loading")
    return { error: "loading" };
  let root;
  try {
    root = clawdRoot(options.selector);
  } catch (e) {
    return { error: "badselector" };
  }
  if (!root)
    return { error: "selector" };
  beginAriaCaches();   // the scan's style lookups are the walker's: computed once
  try {
    return clawdBuild(root, options);
  } finally {
    endAriaCaches();
    pseudoRules = true;
  }
};

// Chrome's own error page (a frame whose load failed: blocked, refused, offline) hosts no shadow
// root, and no page script reaches into it: nothing to look for there (its icon, an empty box
// with a size, was a candidate in every blocked ad frame: a getProperties and a describe each).
function chromeErrorPage() {
  return location.protocol === "chrome-error:";
}

// The closed-root candidates are listed with the walk, not before it: Python describes them after,
// and only when one hosts a closed root (rare) is the page walked again with it. Stopping the
// walk for them cost a round trip and a second scan on every page with an empty box that has a
// size (an ad slot, an icon: 1-110 of them on 8 of the 19 corpus pages, and on Chrome's own error
// page in a blocked iframe).
function clawdBuild(root, options) {
  const clock = clawdClock();
  const { candidates, roots } = scanPage(options.probe && !chromeErrorPage());
  candidates.forEach((element) => clawd.probed.add(element));
  clawd.candidates = candidates;
  clock("scan");
  pseudoRules = sheetsMentionPseudo(roots);
  clock("sheets");
  const publicOptions = { mode: options.mode, refPrefix: options.refPrefix || "" };
  const snapshot = generateAriaTree(root, publicOptions);
  clock("generate");
  distillAriaSnapshot(snapshot, publicOptions);
  clock("distill");
  clawd.snapshot = { snapshot, publicOptions, lookup: !!options.lookup };
  clawd.pending = [];
  clawd.known = [];
  const visit = (node) => {
    if (typeof node === "string")
      return;
    if (node.certain === false && (node.name || node.ref))
      clawd.pending.push(node);
    if (node.chromeName !== undefined)
      clawd.known.push(node);
    node.children.forEach(visit);
  };
  visit(snapshot.root);
  clock("pending");
  if (clawd.pending.length)
    return { pending: clawd.pending.length, candidates: candidates.length };
  const rendered = clawd.render([], options.mode === "ai");
  return candidates.length ? { candidates: candidates.length, rendered } : rendered;
}

// What Python asks Chrome about, fetched in the same write as the build: the elements that may
// host a closed shadow root, then those of the names Chrome must give (the build's counts).
clawd.askedElements = function () {
  return clawd.candidates.concat(clawd.pending.map(ariaNodeElement));
};

// Step 2: Chrome's names in (in askedElements' order; null: keep ours), render. The answer is one
// string, a JSON line (refs, iframes, page) then the text: Chrome hands a string back far faster
// than the same data as objects (measured: 7,000 refs as arrays 30-50 ms, as JSON 12-17 ms).
clawd.render = function (names, withNth) {
  const { snapshot, publicOptions, lookup } = clawd.snapshot;
  // Chrome's names go in after distilling, as Playwright's text would have printed them (a name
  // that differs from the text only in case prints no text child)
  const rename = (node, name) => {
    node.fullName = normalizeWhiteSpace(name);
    if (node.name)
      node.name = node.fullName;
  };
  (names || []).forEach((name, i) => {
    if (name !== null && name !== undefined)
      rename(clawd.pending[i], name);
  });
  clawd.known.forEach((node) => rename(node, node.chromeName));
  clawd.pending = [];
  clawd.known = [];
  const clock = clawdClock();
  const refs = collectRefs(snapshot.root, withNth, lookup);
  clock("refs");
  const { text, iframeDepths } = renderAriaTree(snapshot, publicOptions);
  clock("text");
  clawd.snapshot = null;
  const page = [location.href, document.title, document.readyState, document.baseURI];
  const iframes = Object.keys(iframeDepths);
  const elements = lookup ? clawd.lookup : clawd.refs;
  const emptyFrames = [], blankFrames = [];
  for (const ref of iframes) {
    const empty = emptyFrame(elements.get(ref));
    if (empty)
      (empty === "blank" ? blankFrames : emptyFrames).push(ref);
  }
  return clawdPacked(JSON.stringify({ refs, iframes, emptyFrames, blankFrames, last: clawd.last, page }) + "\n" + text);
};

// A long answer stays here and its length goes back: Python fetches it in slices asked for
// together (clawd.slice), which Chrome hands over in about half the time of one string (its
// renderer, browser process and Python then work on different slices at once; measured on
// 1 MB of text: 48 -> 27 ms, 118 -> 52 ms with non-ASCII text).
const SLICE = 100000;
function clawdPacked(packed) {
  if (packed.length <= SLICE)
    return packed;
  clawd.packed = packed;
  return packed.length;
}

clawd.slice = function (index) {
  const packed = clawd.packed;
  const start = sliceEdge(packed, index * SLICE), end = sliceEdge(packed, (index + 1) * SLICE);
  if (end >= packed.length)
    clawd.packed = "";
  return packed.slice(start, end);
};

// A slice ends after a character, never between the two halves of a surrogate pair (an emoji).
function sliceEdge(packed, at) {
  if (at >= packed.length)
    return packed.length;
  const code = packed.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at + 1 : at;
}

// An iframe whose document this world can read and that shows nothing: a loaded about:blank
// (an ad slot not filled, the common case on news pages). Walking it prints nothing, and costs a
// world, the script and a build in it (~18 ms a frame), so Python leaves it out. Nothing shows
// when the body has no element, no text, no ::before/::after content and no closed shadow root.
// The last is known here only when the frame's own walk would not look for one on the body
// (mayHostClosedRoot): true. When it would (an empty body with a size: quirks mode, as every
// about:blank is, stretches it over the frame): "blank", and Python asks Chrome. Else false.
function emptyFrame(iframe) {
  let doc = null;
  try {
    doc = iframe && iframe.contentDocument;
  } catch (e) {
    return false;
  }
  if (!doc || doc.readyState !== "complete")
    return false;
  const html = doc.documentElement, body = doc.body;
  if (!html || !body || body.parentNode !== html || body.localName !== "body")
    return false;
  for (const child of html.children) {
    if (child !== body && child.localName !== "head")
      return false;
  }
  if (body.firstElementChild || body.textContent.trim() || body.shadowRoot)
    return false;
  const generated = ["::before", "::after"].some((pseudo) => {
    const style = getElementComputedStyle(body, pseudo);
    return !style || (style.content !== "none" && style.content !== "normal");
  });
  if (generated)
    return false;
  return mayHostClosedRoot(body) ? "blank" : true;
}

// A lookup walk (a role ref whose element was re-rendered) keeps its map apart: the refs of the
// latest snapshot must go on resolving as they did.
function collectRefs(root, withNth, lookup) {
  const map = new Map();
  if (lookup)
    clawd.lookup = map;
  else
    clawd.refs = map;
  const seen = new Map();
  const refs = [];
  const visit = (node) => {
    if (typeof node === "string")
      return;
    if (node.ref) {
      const element = ariaNodeElement(node);
      map.set(node.ref, element);
      const name = node.fullName === undefined ? node.name : node.fullName;
      const key = node.role + "\u0000" + name;
      const nth = seen.get(key) || 0;
      seen.set(key, nth + 1);
      if (withNth && nth && (name || NTH_UNNAMED.has(node.role)))
        node.nth = nth;
      refs.push([node.ref, node.role, name, node.nth || 0, hasPointerCursor(node) ? 1 : 0]);
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

// The elements of refs of the latest snapshot that are still in the document (null for others).
clawd.elements = function (refs) {
  return refs.map((ref) => {
    const element = clawd.refs.get(ref);
    return element && element.isConnected ? element : null;
  });
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
