// clawd's in-page walker: the roles, states and names of the page's elements (WAI-ARIA 1.2,
// HTML-AAM, accname 1.2) and the tree of nodes and text a snapshot prints. Written for clawd
// from those specifications and the format's rules (docs/snapshot.md); render.js prints the tree.
// Evaluated first in clawd's isolated world, then render.js, snapshot.js, names.js, content.js and
// quickname.js, which use these functions.

const SVG_NS = "http://www.w3.org/2000/svg";

// ---- style, cached while a walk runs -------------------------------------------------------

let cacheDepth = 0;
let cacheStyle = null;       // element -> computed style
let cachePseudo = null;      // element -> {"::before": content, "::after": content}
let cacheHidden = null;      // element -> hidden from accessibility
let cacheLabels = null;      // tree root -> Map(control -> labels), snapshot.js's elementLabels

function beginAriaCaches() {
  if (!cacheDepth++) {
    cacheStyle = new Map();
    cachePseudo = new Map();
    cacheHidden = new Map();
    cacheLabels = new Map();
  }
}

function endAriaCaches() {
  if (!--cacheDepth)
    cacheStyle = cachePseudo = cacheHidden = cacheLabels = null;
}

function getElementComputedStyle(element, pseudo) {
  if (pseudo)
    return element.ownerDocument.defaultView.getComputedStyle(element, pseudo);
  let style = cacheStyle ? cacheStyle.get(element) : undefined;
  if (style === undefined) {
    style = element.ownerDocument.defaultView.getComputedStyle(element);
    if (cacheStyle)
      cacheStyle.set(element, style);
  }
  return style;
}

// The text a CSS `content` value gives: its strings, attr() values and the alternative text after
// a "/", or undefined when it gives none (normal, none, an image without alternative text).
function contentText(value, element) {
  if (!value || value === "none" || value === "normal")
    return undefined;
  const slash = value.match(/\/\s*((?:"(?:[^"\\]|\\.)*"\s*)+)$/);
  if (slash)
    value = slash[1];
  value = value.replace(/(?:url|image-set|-webkit-image-set|linear-gradient|radial-gradient)\((?:[^()"']|"[^"]*"|'[^']*'|\([^()]*\))*\)/g, "");
  let text = "", found = false;
  const token = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|attr\(\s*([-\w]+)\s*\)/g;
  for (let match = token.exec(value); match; match = token.exec(value)) {
    found = true;
    if (match[3] !== undefined)
      text += element.getAttribute(match[3]) || "";
    else
      text += (match[1] ?? match[2]).replace(/\\([0-9a-fA-F]{1,6}\s?|.)/g, (all, escaped) =>
        /^[0-9a-fA-F]/.test(escaped) ? String.fromCodePoint(parseInt(escaped, 16)) : escaped);
  }
  return found ? text : undefined;
}

// ::before/::after's text (pseudo given), or the element's own `content` that replaces its
// children; undefined when there is none.
function getCSSContent(element, pseudo) {
  if (!pseudo) {
    const value = getElementComputedStyle(element).content;
    return value && value !== "normal" && value !== "none" ? contentText(value, element) : undefined;
  }
  if (!clawdMayHavePseudoContent())
    return undefined;
  let entry = cachePseudo ? cachePseudo.get(element) : undefined;
  if (!entry) {
    entry = {};
    if (cachePseudo)
      cachePseudo.set(element, entry);
  }
  if (!(pseudo in entry)) {
    const style = getElementComputedStyle(element, pseudo);
    entry[pseudo] = style && style.display !== "none" ? contentText(style.content, element) : undefined;
  }
  return entry[pseudo];
}

// ---- strings ---------------------------------------------------------------------------------

function normalizeWhiteSpace(text) {
  return text.replace(/[\u200b\u00ad]/g, "").trim().replace(/\s+/g, " ");
}

function trimFlatString(text) {
  return text.trim();
}

// accname's flat string: whitespace runs are one space (no-break spaces kept), edges trimmed.
function asFlatString(text) {
  return text.split("\u00a0").map((chunk) => chunk.replace(/\r\n/g, "\n").replace(/[\u200b\u00ad]/g, "")
    .replace(/\s\s*/g, " ")).join("\u00a0").trim();
}

// ---- roles (WAI-ARIA 1.2, HTML-AAM) ----------------------------------------------------------

const VALID_ROLES = new Set(["alert", "alertdialog", "application", "article", "banner", "blockquote",
  "button", "caption", "cell", "checkbox", "code", "columnheader", "combobox", "complementary",
  "contentinfo", "definition", "deletion", "dialog", "directory", "document", "emphasis", "feed", "figure",
  "form", "generic", "grid", "gridcell", "group", "heading", "img", "insertion", "link", "list", "listbox",
  "listitem", "log", "main", "mark", "marquee", "math", "menu", "menubar", "menuitem", "menuitemcheckbox",
  "menuitemradio", "meter", "navigation", "none", "note", "option", "paragraph", "presentation",
  "progressbar", "radio", "radiogroup", "region", "row", "rowgroup", "rowheader", "scrollbar", "search",
  "searchbox", "separator", "slider", "spinbutton", "status", "strong", "subscript", "superscript",
  "switch", "tab", "table", "tablist", "tabpanel", "term", "textbox", "time", "timer", "toolbar",
  "tooltip", "tree", "treegrid", "treeitem"]);

// aria-* attributes any element may carry: one of them keeps a presentational element's role.
const GLOBAL_ARIA = ["aria-atomic", "aria-busy", "aria-controls", "aria-current", "aria-describedby",
  "aria-details", "aria-dropeffect", "aria-flowto", "aria-grabbed", "aria-hidden", "aria-keyshortcuts",
  "aria-label", "aria-labelledby", "aria-live", "aria-owns", "aria-relevant", "aria-roledescription"];

const TAG_ROLES = {
  article: "article", blockquote: "blockquote", button: "button", caption: "caption",
  code: "code", datalist: "listbox", del: "deletion", details: "group", dfn: "term", dialog: "dialog",
  em: "emphasis", fieldset: "group", figure: "figure", h1: "heading", h2: "heading", h3: "heading",
  h4: "heading", h5: "heading", h6: "heading", hr: "separator", html: "document",
  iframe: "iframe", ins: "insertion", mark: "mark", li: "listitem", main: "main", math: "math", menu: "list",
  meter: "meter", nav: "navigation", ol: "list", optgroup: "group", option: "option", output: "status",
  p: "paragraph", progress: "progressbar", s: "deletion", search: "search", strong: "strong",
  sub: "subscript", sup: "superscript", svg: "img", table: "table", tbody: "rowgroup", textarea: "textbox",
  tfoot: "rowgroup", thead: "rowgroup", time: "time", tr: "row", ul: "list", dd: "definition",
  dt: "term", b: "generic", bdi: "generic", bdo: "generic", body: "generic", data: "generic",
  div: "generic", i: "generic", pre: "generic", q: "generic", samp: "generic", small: "generic",
  span: "generic", u: "generic", a: "generic", area: "generic",
};

const SECTIONING = new Set(["article", "aside", "main", "nav", "section"]);
const INPUT_ROLES = { button: "button", image: "button", reset: "button", submit: "button",
  checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton", search: "searchbox", file: "button",
  email: "textbox", tel: "textbox", text: "textbox", url: "textbox", password: "textbox", "": "textbox" };

function parentElementOrShadowHost(element) {
  if (element.parentElement)
    return element.parentElement;
  const parent = element.parentNode;
  return parent && parent.nodeType === 11 && parent.host ? parent.host : null;
}

function hasExplicitAccessibleName(element) {
  return element.hasAttribute("aria-label") || element.hasAttribute("aria-labelledby");
}

function isNativelyFocusable(element) {
  const tag = element.localName;
  if (["button", "select", "textarea", "summary", "iframe"].includes(tag))
    return !element.disabled;
  if (tag === "input")
    return element.type !== "hidden" && !element.disabled;
  if ((tag === "a" || tag === "area") && element.hasAttribute("href"))
    return true;
  return false;
}

function hasTabIndex(element) {
  return element.hasAttribute("tabindex") && !Number.isNaN(Number(element.getAttribute("tabindex")));
}

function isFocusable(element) {
  return isNativelyFocusable(element) || hasTabIndex(element) || element.isContentEditable;
}

function hasGlobalAriaAttribute(element) {
  return GLOBAL_ARIA.some((name) => element.hasAttribute(name));
}

function implicitHeaderCell(th) {
  const scope = (th.getAttribute("scope") || "").toLowerCase();
  if (scope === "row" || scope === "rowgroup")
    return "rowheader";
  if (scope === "col" || scope === "colgroup")
    return "columnheader";
  // a header cell with data cells in its row heads the row, else its column
  const row = th.parentElement;
  if (row && row.localName === "tr" && [...row.children].some((cell) => cell.localName === "td"))
    return "rowheader";
  return "columnheader";
}

function inGrid(cell) {
  const table = cell.closest("table");
  const role = table ? (table.getAttribute("role") || "").trim().split(/\s+/)[0] : "";
  return role === "grid" || role === "treegrid";
}

function implicitRole(element) {
  const tag = element.localName;
  if (element.namespaceURI === SVG_NS && tag !== "svg")
    return null;
  switch (tag) {
    case "a":
    case "area":
      return element.hasAttribute("href") ? "link" : "generic";
    case "aside":
    case "header":
    case "footer": {
      const landmark = tag === "aside" ? "complementary" : tag === "header" ? "banner" : "contentinfo";
      if (tag === "aside")
        return landmark;
      for (let at = parentElementOrShadowHost(element); at; at = parentElementOrShadowHost(at)) {
        if (SECTIONING.has(at.localName) || ["article", "complementary", "main", "navigation", "region"]
          .includes(explicitRole(at)))
          return "generic";
      }
      return landmark;
    }
    case "section":
      return hasExplicitAccessibleName(element) || element.hasAttribute("title") ? "region" : "generic";
    case "form":
      return hasExplicitAccessibleName(element) || element.hasAttribute("title") ? "form" : "generic";
    case "img":
      if (element.getAttribute("alt") === "" && !element.hasAttribute("title") && !hasGlobalAriaAttribute(element) &&
          !hasTabIndex(element))
        return "presentation";
      return "img";
    case "input": {
      const type = (element.getAttribute("type") || "").toLowerCase();
      if (type === "hidden")
        return null;
      if (element.hasAttribute("list") && ["", "text", "search", "email", "tel", "url"].includes(type))
        return "combobox";
      return INPUT_ROLES[type] || "textbox";
    }
    case "select":
      return element.multiple || element.size > 1 ? "listbox" : "combobox";
    case "th":
      return inGrid(element) ? "columnheader" : implicitHeaderCell(element);
    case "td":
      return inGrid(element) ? "gridcell" : "cell";
  }
  const role = TAG_ROLES[tag];
  return role === undefined ? null : role;
}

function explicitRole(element) {
  const value = element.getAttribute("role");
  if (!value)
    return null;
  for (const token of value.trim().split(/\s+/)) {
    if (VALID_ROLES.has(token))
      return token;
  }
  return null;
}

// Children whose role is presentational when their required owner is (a list's items, a table's
// rows and cells, a definition list's terms).
const PRESENTATION_OWNERS = { li: ["ul", "ol", "menu"], dt: ["dl"], dd: ["dl"], tr: ["table", "tbody", "thead",
  "tfoot"], td: ["tr"], th: ["tr"], tbody: ["table"], thead: ["table"], tfoot: ["table"], caption: ["table"] };

function inheritsPresentation(element) {
  const owners = PRESENTATION_OWNERS[element.localName];
  if (!owners || explicitRole(element))
    return false;
  for (let at = element.parentElement; at; at = at.parentElement) {
    if (!owners.includes(at.localName) && !(at.localName in PRESENTATION_OWNERS))
      return false;
    if (owners.includes(at.localName)) {
      const role = explicitRole(at);
      if (role === "none" || role === "presentation")
        return !isFocusable(element) && !hasGlobalAriaAttribute(element);
      if (at.localName === "table" || at.localName === "ul" || at.localName === "ol" || at.localName === "dl" ||
          at.localName === "menu")
        return false;
      return inheritsPresentation(at);
    }
  }
  return false;
}

let cacheRole = null;
// The element's role, or null for none (presentation and none included).
function getAriaRole(element) {
  if (cacheStyle) {
    cacheRole = cacheRole || new WeakMap();
    if (cacheRole.has(element))
      return cacheRole.get(element);
  }
  let role = explicitRole(element);
  if (role === "none" || role === "presentation") {
    if (isFocusable(element) || hasGlobalAriaAttribute(element))
      role = implicitRole(element);
  } else if (!role) {
    role = inheritsPresentation(element) ? "presentation" : implicitRole(element);
  }
  if (role === "presentation" || role === "none")
    role = null;
  if (cacheStyle)
    cacheRole.set(element, role);
  return role;
}

// ---- hidden ----------------------------------------------------------------------------------

const IGNORED_TAGS = new Set(["script", "style", "noscript", "template", "head", "meta", "link", "title",
  "base"]);

function isElementIgnoredForAria(element) {
  return IGNORED_TAGS.has(element.localName);
}

// Whether an element is left out of the accessibility tree: not rendered (display: none, inside a
// closed <details>, an unslotted child of a shadow host), aria-hidden, or invisible.
function isElementHiddenForAria(element) {
  if (isElementIgnoredForAria(element))
    return true;
  const style = getElementComputedStyle(element);
  if (!style || style.visibility !== "visible")
    return true;
  return hiddenInChain(element);
}

function hiddenInChain(element) {
  if (cacheHidden && cacheHidden.has(element))
    return cacheHidden.get(element);
  let hidden;
  const style = getElementComputedStyle(element);
  if (!style || style.display === "none" || element.getAttribute("aria-hidden") === "true" ||
      isElementIgnoredForAria(element)) {
    hidden = true;
  } else {
    const parent = element.parentElement;
    const container = element.parentNode;
    if (parent && parent.shadowRoot && !element.assignedSlot)
      hidden = true;   // not slotted: not in the flat tree (a closed root hides assignedSlot: not known)
    else if (parent && parent.localName === "details" && !parent.open && !isDetailsSummary(element))
      hidden = true;
    else if (parent)
      hidden = hiddenInChain(parent);
    else
      hidden = container && container.host ? hiddenInChain(container.host) : false;
  }
  if (cacheHidden)
    cacheHidden.set(element, hidden);
  return hidden;
}

function isDetailsSummary(element) {
  return element.localName === "summary" && element.parentElement.querySelector(":scope > summary") === element;
}

// Text that is not in the flat tree (a shadow host's unslotted child).
function isTextNodeNotRendered(node) {
  const parent = node.parentElement;
  return !!parent && !!(parent.shadowRoot || clawdClosedRoot(parent)) && !node.assignedSlot;
}

// ---- states ----------------------------------------------------------------------------------

const CHECKED_ROLES = new Set(["checkbox", "menuitemcheckbox", "option", "radio", "switch", "menuitemradio",
  "treeitem"]);
const PRESSED_ROLES = new Set(["button"]);
const SELECTED_ROLES = new Set(["gridcell", "option", "row", "tab", "rowheader", "columnheader", "treeitem"]);
const EXPANDED_ROLES = new Set(["application", "button", "checkbox", "combobox", "gridcell", "link", "listbox",
  "menuitem", "row", "rowheader", "tab", "treeitem", "columnheader", "menuitemcheckbox", "menuitemradio",
  "switch"]);
const LEVEL_ROLES = new Set(["heading", "listitem", "row", "treeitem"]);
const DISABLED_ROLES = new Set(["application", "button", "composite", "gridcell", "group", "input", "link",
  "menuitem", "scrollbar", "separator", "tab", "checkbox", "columnheader", "combobox", "grid", "listbox",
  "menu", "menubar", "menuitemcheckbox", "menuitemradio", "option", "radio", "radiogroup", "row", "rowheader",
  "searchbox", "slider", "spinbutton", "switch", "tablist", "textbox", "toolbar", "tree", "treegrid",
  "treeitem"]);
const NATIVE_DISABLED = new Set(["button", "input", "select", "textarea", "option", "optgroup", "fieldset"]);

function ariaBoolean(element, name) {
  const value = element.getAttribute(name);
  return value === null ? undefined : value.trim().toLowerCase() === "true";
}

// true, false or "mixed".
function getChecked(element, role) {
  if (!CHECKED_ROLES.has(role))
    return undefined;
  if (element.localName === "input" && (element.type === "checkbox" || element.type === "radio"))
    return element.indeterminate && element.type === "checkbox" ? "mixed" : element.checked;
  const value = (element.getAttribute("aria-checked") || "").trim().toLowerCase();
  if (value === "true")
    return true;
  if (value === "mixed" && role !== "radio" && role !== "menuitemradio" && role !== "switch")
    return "mixed";
  return false;
}

function getPressed(element, role) {
  if (!PRESSED_ROLES.has(role))
    return undefined;
  const value = (element.getAttribute("aria-pressed") || "").trim().toLowerCase();
  return value === "true" ? true : value === "mixed" ? "mixed" : false;
}

function getSelected(element, role) {
  if (!SELECTED_ROLES.has(role))
    return false;
  if (element.localName === "option" && !element.hasAttribute("aria-selected"))
    return element.selected;
  return ariaBoolean(element, "aria-selected") === true;
}

function getExpanded(element, role) {
  if (!EXPANDED_ROLES.has(role))
    return undefined;
  const value = ariaBoolean(element, "aria-expanded");
  return value;
}

function getLevel(element, role) {
  if (!LEVEL_ROLES.has(role))
    return 0;
  const native = /^h([1-6])$/.exec(element.localName);
  const level = Number(element.getAttribute("aria-level"));
  if (Number.isInteger(level) && level >= 1)
    return level;
  return native && role === "heading" ? Number(native[1]) : 0;
}

function nativelyDisabled(element) {
  if (!NATIVE_DISABLED.has(element.localName))
    return false;
  if (element.hasAttribute("disabled"))
    return true;
  if (element.localName === "option" || element.localName === "optgroup")
    return !!element.closest("optgroup[disabled]") || !!element.closest("select[disabled]");
  // inside a disabled fieldset, but for the content of its first legend
  for (let fieldset = element.parentElement && element.parentElement.closest("fieldset[disabled]"); fieldset;
    fieldset = fieldset.parentElement && fieldset.parentElement.closest("fieldset[disabled]")) {
    const legend = fieldset.querySelector(":scope > legend");
    if (!legend || !legend.contains(element))
      return true;
  }
  return false;
}

function getDisabled(element, role) {
  if (nativelyDisabled(element))
    return true;
  if (!DISABLED_ROLES.has(role))
    return false;
  for (let at = element; at; at = parentElementOrShadowHost(at)) {
    const value = ariaBoolean(at, "aria-disabled");
    if (value !== undefined)
      return value;
  }
  return false;
}

// ---- names (accname 1.2) ---------------------------------------------------------------------

// Roles whose name comes from their content; with `descendant`, also the roles whose content goes
// into an ancestor's name from content.
const CONTENT_NAMED = new Set(["button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link",
  "menuitem", "menuitemcheckbox", "menuitemradio", "option", "radio", "row", "rowheader", "switch", "tab",
  "tooltip", "treeitem"]);
const CONTENT_NAMED_DESCENDANT = new Set(["", "caption", "code", "contentinfo", "definition", "deletion",
  "emphasis", "generic", "insertion", "list", "listitem", "mark", "none", "paragraph", "presentation",
  "region", "section", "sectionhead", "strong", "subscript", "superscript", "table", "term", "time",
  "banner", "blockquote", "complementary", "figure", "group", "main", "navigation", "note", "search",
  "status", "form", "img", "rowgroup"]);

// A <summary> has no ARIA role, yet its content names it (a disclosure's button).
const SUMMARY = "#summary";

function allowsNameFromContent(role, descendant) {
  return CONTENT_NAMED.has(role) || role === SUMMARY || (descendant && CONTENT_NAMED_DESCENDANT.has(role));
}

function idRefs(element, attribute) {
  const value = element.getAttribute(attribute);
  if (!value)
    return [];
  const root = element.getRootNode();
  const out = [];
  for (const id of value.split(/\s+/).filter(Boolean)) {
    const target = root.getElementById ? root.getElementById(id) : null;
    if (target && !out.includes(target))
      out.push(target);
  }
  return out;
}

function getElementAccessibleName(element, includeHidden) {
  return computeAccessibleNameComposite(element, includeHidden).text;
}

// {text, elements}: the name and the elements whose content made it.
function computeAccessibleNameComposite(element, includeHidden) {
  const state = { includeHidden, visited: new Set(), elements: new Set() };
  const text = asFlatString(nameOf(element, state, { root: true }));
  return { text, elements: state.elements };
}

function hiddenHere(element, state) {
  if (state.includeHidden || state.labelledBy)
    return false;
  return isElementHiddenForAria(element);
}

// accname's text alternative of `element` (steps 2A-2I).
function nameOf(element, state, how) {
  if (state.visited.has(element))
    return "";
  const root = !!how.root;
  if (!how.labelledByTarget && hiddenHere(element, state))
    return "";
  state.visited.add(element);
  const role = element.localName === "summary" && !explicitRole(element) ? SUMMARY : getAriaRole(element) || "";
  // 2B: aria-labelledby, not followed twice
  if (!state.labelledBy && element.hasAttribute("aria-labelledby")) {
    const refs = idRefs(element, "aria-labelledby");
    if (refs.length) {
      const text = refs.map((target) => nameOf(target, { ...state, visited: new Set(), labelledBy: true },
        { labelledByTarget: true })).join(" ");
      if (text.trim())
        return text;
    }
  }
  // 2C (2E first: a control inside a name gives its value)
  if (!root && isEmbeddedControl(role))   // inside another's name, a control gives its value
    return controlValue(element, role);
  const label = element.getAttribute("aria-label");
  if (label && label.trim())
    return label;
  // 2D: the host language's
  if (!["presentation", "none"].includes(explicitRole(element) || "") || root) {
    const native = nativeName(element, role, state, root);
    if (native !== null)
      return native;
  }
  // 2F: content
  const fromContent = allowsNameFromContent(role, !root) || state.labelledBy || how.inContent || how.labelFor;
  if (fromContent && !(element.localName === "input" || element.localName === "textarea" ||
      element.localName === "select" && !how.labelFor)) {
    const text = contentName(element, state);
    if (text.trim())
      return text;
  }
  // 2I: the tooltip
  const title = element.getAttribute("title");
  if (title && title.trim())
    return title;
  if ((element.localName === "input" || element.localName === "textarea") && element.hasAttribute("placeholder") &&
      role !== "button" && !elementLabels(element).length)
    return element.getAttribute("placeholder") || "";
  return "";
}

const EMBEDDED = new Set(["textbox", "searchbox", "combobox", "listbox", "slider", "spinbutton", "progressbar",
  "scrollbar"]);
function isEmbeddedControl(role) {
  return EMBEDDED.has(role);
}

function controlValue(element, role) {
  if (role === "textbox" || role === "searchbox")
    return element.localName === "input" || element.localName === "textarea" ? element.value : element.textContent;
  if (role === "combobox" || role === "listbox") {
    if (element.localName === "select")
      return [...element.selectedOptions].map((option) => option.label || option.textContent).join(" ");
    if (element.localName === "input")
      return element.value;
    const selected = element.querySelector('[role="option"][aria-selected="true"]');
    return selected ? selected.textContent : "";
  }
  const text = element.getAttribute("aria-valuetext");
  if (text)
    return text;
  const now = element.getAttribute("aria-valuenow");
  if (now)
    return now;
  return element.localName === "input" ? element.value : "";
}

const BUTTON_DEFAULTS = { submit: "Submit", reset: "Reset" };

function nativeName(element, role, state, root) {
  const tag = element.localName;
  if (tag === "input") {
    const type = (element.getAttribute("type") || "").toLowerCase();
    if (type === "button" || type === "submit" || type === "reset") {
      const value = element.getAttribute("value");
      if (value !== null && (value.trim() || type === "button"))
        return value;
      const labels = labelText(element, state);
      if (labels)
        return labels;
      return BUTTON_DEFAULTS[type] || "";
    }
    if (type === "image") {
      const labels = labelText(element, state);
      if (labels)
        return labels;
      for (const name of ["alt", "value", "title"]) {
        const value = element.getAttribute(name);
        if (value && value.trim())
          return value;
      }
      return "Submit";
    }
  }
  if (tag === "input" || tag === "textarea" || tag === "select") {
    const labels = labelText(element, state);
    if (labels)
      return labels;
  }
  if (tag === "button" && role !== "none") {
    const labels = labelText(element, state);
    if (labels)
      return labels;
    // a button whose labels are being read already (its own label holds it) takes no other name
    const all = elementLabels(element);
    if (all.length && all.every((label) => state.visited.has(label)))
      return "";
  }
  if (tag === "fieldset" && role === "group" || tag === "table" || tag === "figure") {
    const want = tag === "fieldset" ? "legend" : tag === "table" ? "caption" : "figcaption";
    for (let child = element.firstElementChild; child; child = child.nextElementSibling) {
      if (child.localName === want) {
        const text = nameOf(child, { ...state }, { labelFor: true, inContent: true });
        if (text.trim())
          return text;
        break;
      }
    }
    if (tag === "table") {
      const summary = element.getAttribute("summary");
      if (summary && summary.trim())
        return summary;
    }
  }
  if (tag === "img" || tag === "area" || (tag === "input" && element.type === "image")) {
    const alt = element.getAttribute("alt");
    if (alt && alt.trim())
      return alt;
  }
  if (tag === "svg" && element.namespaceURI === SVG_NS) {
    for (let child = element.firstElementChild; child; child = child.nextElementSibling) {
      if (child.localName === "title")
        return child.textContent.trim() ? child.textContent : null;
    }
  }
  if (tag === "optgroup") {
    const label = element.getAttribute("label");
    if (label && label.trim())
      return label;
  }
  return null;
}

function labelText(control, state) {
  const labels = elementLabels(control);
  return labels.filter((label) => !state.visited.has(label)).map((label) => nameOf(label, { ...state, visited: new Set([control]) },
    { labelFor: true, inContent: true, labelOf: control })).filter((text) => text.trim()).join(" ");
}

// accname 2F: the text of the element's content, children in the flat tree's order, ::before and
// ::after around them; a block child is set apart by spaces.
function contentName(element, state) {
  let text = getCSSContent(element, "::before") || "";
  const own = getCSSContent(element);
  if (own !== undefined) {
    text += own;
  } else {
    for (const child of flatChildren(element)) {
      if (child.nodeType === Node.TEXT_NODE) {
        if (!isTextNodeNotRendered(child))
          text += child.data;
        continue;
      }
      if (child.nodeType !== Node.ELEMENT_NODE)
        continue;
      const style = getElementComputedStyle(child);
      const display = style ? style.display : "inline";
      let token = "";
      if (!isElementIgnoredForAria(child) && (state.includeHidden || state.labelledBy || !isElementHiddenForAria(child))) {
        const childRole = getAriaRole(child) || "";
        if (allowsNameFromContent(childRole, true) || isEmbeddedControl(childRole) || child.hasAttribute("aria-label") ||
            child.hasAttribute("aria-labelledby") || child.localName === "img" || child.localName === "svg" ||
            CONTENT_NAMED.has(childRole))
          token = nameOf(child, state, { inContent: true });
        else
          token = "";
        if (token.trim())
          state.elements.add(child);
      }
      text += display !== "inline" || child.localName === "br" ? " " + token + " " : token;
    }
  }
  text += getCSSContent(element, "::after") || "";
  if (text.trim())
    state.elements.add(element);
  return text;
}

// The children of an element in the flat tree: its shadow root's (an open one, or a closed one
// clawd was handed), a slot's assigned nodes (else its own), and aria-owns left to the caller.
function flatChildren(element) {
  const shadow = element.shadowRoot || clawdClosedRoot(element);
  if (shadow)
    return [...shadow.childNodes];
  if (element.localName === "slot") {
    const assigned = element.assignedNodes({ flatten: false });
    if (assigned.length)
      return assigned;
  }
  return [...element.childNodes];
}

// ---- the tree --------------------------------------------------------------------------------

// The focused element, through shadow roots.
function deepActiveElement() {
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement)
    active = active.shadowRoot.activeElement;
  return active;
}

// Whether the element has a box of its own that shows (a ref is minted for it then).
function hasBox(element, style) {
  if (style.visibility !== "visible")
    return false;
  if (style.display === "contents") {
    for (let child = element.firstElementChild; child; child = child.nextElementSibling) {
      const childStyle = getElementComputedStyle(child);
      if (childStyle && childStyle.display !== "none" && hasBox(child, childStyle))
        return true;
    }
    return false;
  }
  const rect = element.getBoundingClientRect();
  return rect.width > 0 && rect.height > 0;
}

// The element's role in the tree: its ARIA role, "generic" for an element that has none, null
// for one made presentational (role=none, a list item of a presentational list).
function treeRole(element) {
  const role = getAriaRole(element);
  if (role)
    return role;
  const explicit = explicitRole(element);
  if (explicit === "none" || explicit === "presentation" || inheritsPresentation(element) ||
      (element.localName === "img" && element.getAttribute("alt") === ""))
    return null;
  return "generic";
}

// Roles whose content is not walked: an iframe's document is walked apart, an image's and a
// text field's content is theirs (their name, their value).
const LEAF_ROLES = new Set(["iframe", "img", "textbox", "searchbox"]);

const CONTROL_VALUES = new Set(["textbox", "searchbox", "spinbutton", "slider", "combobox"]);

// Elements aria-owns moves under another element: they are walked there, not where they stand.
function ownedElements(root) {
  const owned = new Map();
  const doc = root.ownerDocument || root;
  for (const owner of doc.querySelectorAll("[aria-owns]")) {
    for (const target of idRefs(owner, "aria-owns")) {
      if (!owned.has(target) && !target.contains(owner))
        owned.set(target, owner);
    }
  }
  return owned;
}

// The tree of the page under `root`: nodes {role, name, children (nodes and strings), element,
// props, block, cursor} and the text between them. `mode: "ai"` marks the focused element, the
// controls inside aria-hidden content and the WebMCP tools, and mints refs.
function generateAriaTree(rootElement, options) {
  const ai = options.mode === "ai";
  const walk = { ai, options, owned: ownedElements(rootElement), active: ai ? deepActiveElement() : null,
    seen: new Set(), errorPage: location.protocol === "chrome-error:" };
  const root = { role: "fragment", name: "", children: [], element: rootElement, props: {} };
  visitNode(walk, root, rootElement, false);
  return { root };
}

function visitChildren(walk, node, element, hidden) {
  const before = getCSSContent(element, "::before");
  if (before)
    node.children.push(before);
  const own = getCSSContent(element);
  if (own !== undefined) {
    node.children.push(own);
  } else {
    const closedDetails = element.localName === "details" && !element.open;
    for (const child of flatChildren(element)) {
      if (closedDetails && !(child.nodeType === Node.ELEMENT_NODE && isDetailsSummary(child)))
        continue;
      visitNode(walk, node, child, hidden);
    }
    for (const target of idRefs(element, "aria-owns")) {
      if (walk.owned.get(target) === element)
        visitNode(walk, node, target, hidden, true);
    }
  }
  const after = getCSSContent(element, "::after");
  if (after)
    node.children.push(after);
}

function visitNode(walk, parent, child, hidden, owning = false) {
  if (child.nodeType === Node.TEXT_NODE) {
    if (!hidden && !isTextNodeNotRendered(child) && parent.textVisible !== false) {
      parent.children.push(child.data);
      parent.ownText = true;
    }
    return;
  }
  if (child.nodeType !== Node.ELEMENT_NODE || walk.seen.has(child))
    return;
  if (!owning && walk.owned.has(child))
    return;
  if (isElementIgnoredForAria(child))
    return;
  if (child.localName === "br" && !walk.ai) {   // a line break is a space between words in the text
    parent.children.push(BREAK);
    return;
  }
  const style = getElementComputedStyle(child);
  if (!style || style.display === "none")
    return;
  walk.seen.add(child);
  if (child.getAttribute("aria-hidden") === "true" && !hidden) {
    if (walk.ai)
      visitHiddenControls(walk, parent, child);
    return;
  }
  if (hidden)
    return;
  const role = treeRole(child);
  const visible = style.visibility === "visible";
  if (!visible || role === null) {
    // its children show (a visible child of an invisible element); text of an invisible one not
    const holder = visible ? parent : { ...parent, textVisible: false, children: parent.children };
    const block = style.display !== "inline" && visible;
    if (block)
      parent.children.push(BREAK);
    visitChildren(walk, holder, child, hidden);
    if (block)
      parent.children.push(BREAK);
    return;
  }
  parent.children.push(makeNode(walk, child, role, style, parent));
}

// A break between blocks: a space in text, where the text of two blocks meets.
const BREAK = { role: "#break" };

function makeNode(walk, element, role, style, parent, hiddenControl = false) {
  const node = { role, name: "", children: [], element, props: {}, block: style.display !== "inline",
    inline: style.display === "inline" };
  const known = hiddenControl ? EMPTY_NAME : clawdKnownName(element, role) || quickName(element, role);
  node.name = normalizeWhiteSpace(known ? known.text : getElementAccessibleName(element, false));
  const parentStyle = parent.element && parent.element.nodeType === Node.ELEMENT_NODE ?
    getElementComputedStyle(parent.element) : null;
  node.cursor = style.cursor === "pointer" && !(parentStyle && parentStyle.cursor === "pointer");
  const checked = getChecked(element, role);
  if (checked !== undefined)
    node.props.checked = checked;
  if (getDisabled(element, role))
    node.props.disabled = true;
  const expanded = getExpanded(element, role);
  if (expanded !== undefined)
    node.props.expanded = expanded;
  const level = getLevel(element, role);
  if (level)
    node.props.level = level;
  const pressed = getPressed(element, role);
  if (pressed !== undefined)
    node.props.pressed = pressed;
  if (getSelected(element, role))
    node.props.selected = true;
  if (walk.ai && element === walk.active && (window === window.top || document.hasFocus()))
    node.props.active = true;
  if (role === "link" && element.hasAttribute("href"))
    node.url = element.getAttribute("href");
  if (walk.ai && element.localName === "form" && element.hasAttribute("toolname"))
    node.tool = element.getAttribute("toolname");
  clawdNoteName(node, element, node.name);
  if (role === "iframe") {   // printed without a name, its document under it
    node.name = node.fullName = "";
    node.certain = true;
    node.chromeName = undefined;
  }
  if (walk.ai && takesClicks(element, style) && !walk.errorPage && hasBox(element, style))
    node.ref = clawdMintRef(element, node, walk.options);
  const tag = element.localName;
  if (tag === "input" || tag === "textarea") {
    if (CONTROL_VALUES.has(role)) {
      const placeholder = element.getAttribute("placeholder");
      if (placeholder && placeholder !== node.name && role === "textbox")
        node.placeholder = placeholder;
      if (element.value)
        node.children.push(element.value);
    }
  } else if (!LEAF_ROLES.has(role)) {
    visitChildren(walk, node, element, false);
  }
  return node;
}

// Whether a person can click the element: itself, or, for a control that takes no pointer
// (Bootstrap's .btn-check: clipped away, pointer-events:none), a label of it that shows.
function takesClicks(element, style) {
  if (style.pointerEvents !== "none")
    return true;
  return [...(element.labels || [])].some((label) => {
    const labelStyle = getElementComputedStyle(label);
    return !!labelStyle && labelStyle.pointerEvents !== "none" && hasBox(label, labelStyle);
  });
}

// Inside aria-hidden content, the controls a user can still reach (focusable, shown): each its
// own node marked [aria-hidden], with its content; the rest is left out.
function visitHiddenControls(walk, parent, element) {
  const style = getElementComputedStyle(element);
  if (!style || style.display === "none")
    return;
  const role = treeRole(element);
  if (role && role !== "generic" && isFocusable(element) && style.visibility === "visible") {
    const node = makeNode(walk, element, role, style, parent, true);
    node.props.ariaHidden = true;
    parent.children.push(node);
    return;
  }
  for (const child of flatChildren(element)) {
    if (child.nodeType === Node.ELEMENT_NODE && !isElementIgnoredForAria(child) && !walk.seen.has(child)) {
      walk.seen.add(child);
      visitHiddenControls(walk, parent, child);
    }
  }
}

function ariaNodeElement(node) {
  return node.element;
}

// [cursor=pointer]: the element's own pointer cursor, or a clickable without a role.
function hasPointerCursor(node) {
  return !!node.cursor || clawdPromoted(node);
}
