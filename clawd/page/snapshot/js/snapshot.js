// clawd's glue around the vendored Playwright aria code (playwright_aria.js, evaluated first in
// the same isolated world). Builds the tree in the page, lists the nodes whose names must come
// from Chrome's accessibility tree, then renders once Python has put Chrome's names in.
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
};

const PHRASING = new Set(["b", "i", "em", "strong", "span", "small", "code", "abbr", "sup", "sub",
  "mark", "u", "s", "time", "bdi", "bdo", "cite", "dfn", "kbd", "q", "samp", "var", "font", "ins", "del"]);
const NTH_UNNAMED = new Set(["button", "checkbox", "combobox", "link", "listbox", "radio", "searchbox",
  "slider", "spinbutton", "switch", "textbox", "iframe"]);
// Roles Chrome names from their content where Playwright does not (the refs map wants Chrome's).
const CHROME_CONTENT_NAMED = new Set(["term"]);
// Inside a name from content, these children add their own content to it (Chrome and Playwright alike)
const CONTENT_CONTROLS = new Set(["a", "button"]);
// Attributes that name nothing and change no role: presentation, microdata and RDFa, live-region
// and popup state (audited on the corpus against Chrome, bench/names_audit.py). Names with a colon
// (xml:lang, buzzfeed's rel:gt_act) are no HTML attribute at all.
const PLAIN_ATTRIBUTES = new Set(["class", "style", "dir", "lang", "id", "href", "type", "name", "target", "rel",
  "onclick", "tabindex", "itemprop", "itemscope", "itemtype", "itemid", "property", "typeof", "resource", "content",
  "aria-live", "aria-atomic", "aria-relevant", "aria-busy", "aria-controls", "aria-haspopup", "aria-expanded",
  "translate", "accesskey", "hreflang", "download", "referrerpolicy", "for", "datetime", "aria-describedby"]);
const FORM_CONTROLS = new Set(["input", "textarea", "select"]);
const NEVER_SIMPLE = new Set(["img", "area", "svg", "object", "embed", "fieldset", "figure", "table",
  "output", "meter", "progress", "iframe", "frame", "canvas", "video", "audio", "math", "summary", "details"]);
const INPUT_BUTTONS = new Set(["submit", "button", "reset"]);
const TEXT_INPUTS = new Set(["", "text", "email", "tel", "url", "search", "password", "number",
  "checkbox", "radio"]);

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

clawd.candidateElements = function () {
  const found = clawd.candidates;
  clawd.candidates = [];
  return found;
};

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

// Whether the name computed here is certainly the one Chrome computes; if not, Python asks
// Chrome (Accessibility.getPartialAXTree) for it. Conservative: anything unusual asks Chrome.
// Names known without computing them: Chrome does not name a table row (<tr>) from its cells
// (Playwright does; see tests/integration/test_snapshot_peer.py), and a row's content is the most
// expensive name there is to compute.
// Plain structural elements whose role takes no name from content are nameless unless an
// attribute names them, in both Chrome and Playwright: computing their names is skipped too.
const EMPTY_NAME = { text: "", elements: [] };
const UNNAMED_TAGS = new Set(["div", "span", "p", "ul", "ol", "li", "dl", "dd", "tbody", "thead", "tfoot",
  "em", "strong", "b", "i", "u", "s", "small", "code", "pre", "blockquote", "mark", "main", "nav", "header",
  "footer", "aside", "article", "section", "form", "label", "br", "hr"]);
function clawdKnownName(element, role) {
  if (element.hasAttribute("aria-label") || element.hasAttribute("aria-labelledby") || element.hasAttribute("title"))
    return null;
  if (role === "row" && element.localName === "tr")
    return EMPTY_NAME;
  if (UNNAMED_TAGS.has(element.localName) && !allowsNameFromContent(role, false) && role !== "term")
    return EMPTY_NAME;
  return null;
}

function clawdNoteName(node, element, name) {
  contentNamed = false;
  node.certain = !!clawdKnownName(element, node.role) || nameIsCertain(element, node.role, node.name);
  node.fullName = node.name;   // Playwright's ai mode may blank a printed name; the refs map keeps it
  const term = !node.certain && CHROME_CONTENT_NAMED.has(node.role) && termName(element);
  if (term !== false) {   // Chrome names a term from its text, Playwright does not: the refs map has Chrome's
    node.fullName = term;
    node.certain = true;
  }
  if (!node.certain && (titledGeneric(element, node.role) || captionedFigure(element))) {
    node.chromeName = "";
    node.certain = true;
  }
  const padded = node.certain || !contentNamed ? null : paddedName(element);
  if (padded !== null) {   // Chrome's name, where it differs from Playwright's in spaces or case
    node.chromeName = padded;
    node.certain = true;
  }
}

// Content plain but for images and icons named by an attribute that touch text, or a figure:
// Chrome pads such a name with spaces wherever it stands (audited: "<img alt=Firefox>Try" is
// "Firefox Try", an aria-labelled icon at the end of a span then "Shop" is "Cart icon Shop") and
// takes nothing from a figure, Playwright does neither. Their name as Chrome gives it, or null.
let padPieces = false;
let contentNamed = false;   // set by nameIsCertain: the element's name comes from its content
function paddedName(element) {
  const text = padded(element);
  // a title names only what its content leaves nameless
  return text === null || (!text && element.hasAttribute("title")) ? null : text;
}

// chromeText of plain content (pieces that touch text allowed), or null.
function padded(element) {
  padPieces = true;
  try {
    if (!plainContent(element))
      return null;
    return normalizeWhiteSpace(chromeText(element));
  } finally {
    padPieces = false;
  }
}

// The text of plain content as Chrome joins it: Playwright's way (blocks and line breaks padded
// with spaces, hidden content left out) but for pieces named by an attribute, padded too, and
// figures and articles, left out.
function chromeText(element) {
  let text = "";
  for (let child = element.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === Node.TEXT_NODE)
      text += transformed(child.data, getElementComputedStyle(element).textTransform) ?? child.data;
    if (child.nodeType !== Node.ELEMENT_NODE)
      continue;
    const tag = child.localName;
    const style = getElementComputedStyle(child);
    if (style.display === "none" || UNRENDERED.has(tag) || child.getAttribute("aria-hidden") === "true")
      continue;
    let piece;
    const label = CONTENT_CONTROLS.has(tag) ? controlLabel(child) : null;
    if (label !== null)
      piece = label;
    else if (tag === "img")
      piece = imageLabel(child) || imageAlt(child) || imageTitle(child);
    else if (tag === "svg")
      piece = silentSvg(child) ? null : svgName(child);
    else if (tag === "figure" || tag === "article" || tag === "header")
      piece = null;
    else if (tag === "wbr")
      piece = " ";
    else
      piece = style.display === "inline" && tag !== "br" ? chromeText(child) : " " + chromeText(child) + " ";
    if (piece)
      text += tag === "img" || tag === "svg" || label !== null ? " " + piece + " " : piece;
  }
  return text;
}

// The name Chrome gives a term (<dt>) of inline text only (links, labels, phrasing), or false.
function termName(element) {
  if (element.hasAttribute("aria-label") || element.hasAttribute("aria-labelledby") ||
      element.hasAttribute("title") || !inlineText(element))
    return false;
  const text = padded(element);
  return text === null ? false : text;
}

// Whether the element's text content is all its content: text in inline elements, nothing hidden,
// no image, icon, line break or comment.
function inlineText(element) {
  for (let child = element.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === Node.COMMENT_NODE)
      return false;
    if (child.nodeType !== Node.ELEMENT_NODE)
      continue;
    const tag = child.localName;
    if (!(CONTENT_CONTROLS.has(tag) || PHRASING.has(tag) || tag === "label") ||
        getElementComputedStyle(child).display !== "inline" || !inlineText(child))
      return false;
  }
  return true;
}

// A generic element (a <div>, a <span>) with a title: Chrome names no generic element, and a
// title is all that would name this one (audited: every one of the corpus, 103). Not a focusable
// one, which Chrome may name.
function titledGeneric(element, role) {
  return role === "generic" && element.namespaceURI === "http://www.w3.org/1999/xhtml" &&
    element.hasAttribute("title") && !element.hasAttribute("aria-label") &&
    !element.hasAttribute("aria-labelledby") && !element.hasAttribute("tabindex") && !element.isContentEditable;
}

function nameIsCertain(element, role, name) {
  if (element.hasAttribute("aria-labelledby") && !labelledByNothing(element))
    return !!name && name === labelledByText(element);
  if (element.localName === "img")   // an aria-label names an image before its alt text, that before its title
    return name !== "" && (imageLabel(element) ?? imageAlt(element) ?? imageTitle(element)) === name;
  // a title names an element only when nothing else does (Chrome and Playwright alike): a name
  // equal to the title is certain when the element has text of its own (plain content, checked
  // below, then gives the name). Not a generic element's title: Chrome leaves some of those out
  // of its tree, nameless (audited).
  const title = element.getAttribute("title");
  if (title !== null && titleNames(element, role, name, title))
    return true;
  if (title !== null && FORM_CONTROLS.has(element.localName) && !element.hasAttribute("aria-label") &&
      element.localName !== "select" && labelNames(element, name))
    return true;   // a label names a control before its title
  if (element.localName === "fieldset")
    return legendNames(element, name);
  if (title !== null && (FORM_CONTROLS.has(element.localName) || !name ||
      (name === normalizeWhiteSpace(title) && !element.textContent.trim())))
    return false;
  if (element.localName === "option" && element.hasAttribute("label"))
    return false;
  const label = element.getAttribute("aria-label");
  if (label && label.trim())
    return !FORM_CONTROLS.has(element.localName) || element.localName !== "select";
  const tag = element.localName;
  if (tag === "table" && unnamedTable(element, name))
    return true;
  if (tag === "svg")   // named by a <title> child, never by its content
    return name === (svgTitle(element) || "") && !element.hasAttribute("title");
  if (tag === "symbol" && element.namespaceURI === "http://www.w3.org/2000/svg")
    return true;   // never rendered: Chrome has no node for it, and the walker's name stays
  if (tag === "math" || tag === "figure")
    return unnamedByAttributes(element, name);

  if (NEVER_SIMPLE.has(tag) || element.shadowRoot || clawdClosedRoot(element))
    return false;
  if (FORM_CONTROLS.has(tag))
    return controlNameIsCertain(element, name);
  if (tag === "button" || allowsNameFromContent(role, false)) {
    if (plainContent(element) || (name === "" && silentContent(element)))
      return true;
    contentNamed = true;   // named from content nothing else overrides: paddedName may give Chrome's
    return false;
  }
  if (CHROME_CONTENT_NAMED.has(role))
    return false;
  return name === "";
}

// The name aria-labelledby gives when every element it names holds plain text only (Chrome and
// Playwright join their texts with spaces, hidden ones too), else null.
function labelledByText(element) {
  const ids = (element.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean);
  const root = element.getRootNode();
  const texts = [];
  for (const id of ids) {
    const label = root.getElementById ? root.getElementById(id) : null;
    if (!label || label === element || FORM_CONTROLS.has(label.localName) || label.hasAttribute("aria-label") ||
        label.hasAttribute("aria-labelledby") || !hasPlainStyle(label) || !inlineText(label) || !plainContent(label))
      return null;
    texts.push(label.textContent);
  }
  return texts.length ? normalizeWhiteSpace(texts.join(" ")) : null;
}

// Whether aria-labelledby names no element there is: Chrome and Playwright then pass it by.
function labelledByNothing(element) {
  const root = element.getRootNode();
  return !root.getElementById || (element.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean)
    .every((id) => !root.getElementById(id));
}

// A control with one label of plain text: the label's text is the name.
function labelNames(control, name) {
  const labels = elementLabels(control);
  return labels.length === 1 && plainLabel(labels[0], control) && name === normalizeWhiteSpace(labels[0].textContent);
}

// A <fieldset> is named by its first <legend> child (or aria-label(ledby), or a title), in Chrome
// as in Playwright: one of inline text names it, none leaves it nameless.
function legendNames(fieldset, name) {
  if (fieldset.hasAttribute("aria-label") || fieldset.hasAttribute("title"))
    return false;
  for (let child = fieldset.firstElementChild; child; child = child.nextElementSibling) {
    if (child.localName === "legend")
      return plainContent(child) && inlineText(child) && name === normalizeWhiteSpace(child.textContent);
  }
  return name === "";
}

// A link or button with no content that names it: its title names it, in Chrome as in Playwright.
function titleNames(element, role, name, title) {
  const tag = element.localName;
  if (!name || name !== normalizeWhiteSpace(title) || element.textContent.trim() || element.hasAttribute("aria-label") ||
      FORM_CONTROLS.has(tag) || NEVER_SIMPLE.has(tag) || !(tag === "button" || allowsNameFromContent(role, false)))
    return false;
  // content named the same in both (an image's alt) comes first; empty, it leaves the title
  return silentContent(element) || plainContent(element);
}

// A table is named by aria-label(ledby), a caption, a title or a summary, in Chrome as in
// Playwright; with none of them it has no name (and Chrome need not be asked: on big.html that
// one question cost 80 ms, Chrome building its whole accessibility tree to answer it).
function unnamedTable(table, name) {
  if (name || table.hasAttribute("aria-label") || table.hasAttribute("title") || table.hasAttribute("summary"))
    return false;
  for (let child = table.firstElementChild; child; child = child.nextElementSibling) {
    if (child.localName === "caption")
      return false;
  }
  return true;
}

// A <math> is named by aria-label(ledby), a title or its alttext, a <figure> by those: with none
// of them neither has a name in Chrome (audited: every <math> of the MathJax page, the figures of
// yahoo-2), and asking Chrome for that one "" builds its whole accessibility tree. aria-label was
// ruled out above. Playwright names a figure by its <figcaption>, Chrome (156) does not (audited:
// all seven of the corpus, and tests/site/snapshot/names.html): see captionedFigure.
function unnamedByAttributes(element, name) {
  return !name && !element.hasAttribute("title") && !element.hasAttribute("alttext");
}

// A <figure> named by nothing but its <figcaption>: nameless in Chrome.
function captionedFigure(element) {
  return element.localName === "figure" && !element.hasAttribute("aria-label") &&
    !element.hasAttribute("aria-labelledby") && !element.hasAttribute("title");
}

// The name an <svg> gives by a <title> child of plain text (Chrome and Playwright alike), or null.
function svgTitle(svg) {
  for (let child = svg.firstElementChild; child; child = child.nextElementSibling) {
    if (child.localName === "title")
      return child.firstElementChild ? null : normalizeWhiteSpace(child.textContent);
  }
  return null;
}

// The name an <img> gives by its alt text (Chrome and Playwright alike), or null.
function imageAlt(image) {
  const alt = image.getAttribute("alt");
  return alt && alt.trim() ? normalizeWhiteSpace(alt) : null;
}

function controlNameIsCertain(element, name) {
  if (element.localName === "input" && INPUT_BUTTONS.has(element.type))   // named by its value
    return !!name && name === normalizeWhiteSpace(element.value) && elementLabels(element).length === 0;
  if (element.localName === "input" && !TEXT_INPUTS.has(element.type))
    return false;
  const labels = elementLabels(element);
  if (element.hasAttribute("placeholder") && labels.length === 0)   // named by it when nothing else names it
    return !!name && name === normalizeWhiteSpace(element.getAttribute("placeholder"));
  if (labels.length === 0)
    return true;
  if (labels.length > 1)
    return false;
  if (name === "" && !element.hasAttribute("title") && silentContent(labels[0]) && silentAttributes(labels[0]))
    return true;   // a label of icons only: no name, and no placeholder for one either (audited)
  return plainLabel(labels[0], element);
}

// A label of inline text (with the control, and images without alt at an edge): its text content
// is the name, in Chrome as in Playwright.
function plainLabel(label, control) {
  if (label.hasAttribute("aria-label") || label.hasAttribute("aria-labelledby") || !plainAttributes(label) ||
      !hasPlainStyle(label))
    return false;
  for (let child = label.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === Node.COMMENT_NODE)
      return false;
    if (child === control || child.nodeType !== Node.ELEMENT_NODE)
      continue;
    if (child.localName === "img") {
      if (imageAlt(child) !== null || imageTitle(child) !== null || !plainImage(child, label))
        return false;
      continue;
    }
    if (!PHRASING.has(child.localName) || !plainAttributes(child) || getElementComputedStyle(child).display !== "inline" ||
        !inlineText(child) || !plainContent(child))
      return false;
  }
  return !!label.textContent.trim();
}

function hasPlainStyle(element, top = element) {
  const style = getElementComputedStyle(element);
  if (!style || !plainTransform(element, style.textTransform, top) || style.visibility !== "visible")
    return false;
  return !getCSSContent(element, "::before") && !getCSSContent(element, "::after");
}

// Chrome names text as text-transform shows it, Playwright as it stands: the same only where the
// transform changes nothing (text already in capitals under uppercase, "SUBSCRIBE NOW").
function plainTransform(element, transform, top) {
  if (transform === "none")
    return true;
  const text = element.textContent;
  const shown = transformed(text, transform);
  if (shown === null)
    return false;
  if (text === shown)
    return true;
  // chromeText transforms the text itself: plain ASCII, one text node starting a word
  return padPieces && /^[A-Za-z0-9\s]*$/.test(text) && wholeWords(element) &&
    (getElementComputedStyle(element).display !== "inline" || side(element, top, "previousSibling") !== "text");
}

// Every text node inside the only child of its element, the first starting a word: capitalize
// then starts each word of each text node, as chromeText does.
function wholeWords(element) {
  for (let child = element.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === Node.TEXT_NODE ? element.childNodes.length !== 1 :
        child.nodeType === Node.ELEMENT_NODE && !wholeWords(child))
      return false;
  }
  return true;
}

// Text as text-transform shows it, for the ASCII text plainTransform lets through.
function transformed(text, transform) {
  if (transform === "uppercase")
    return text.toUpperCase();
  if (transform === "lowercase")
    return text.toLowerCase();
  if (transform === "capitalize")
    return text.replace(/(^|\s)([a-z])/g, (match, before, letter) => before + letter.toUpperCase());
  return transform === "none" ? text : null;
}

// Content whose text is the name in Chrome as in Playwright: text, phrasing children and block
// <div>/<p> ones with plain attributes and styles, links and buttons inside, and an image with an
// alt text as the only content (audited on the corpus against Chrome, bench/names_audit.py). Not
// plain: a comment (Chrome drops the whitespace next to one: "1/50<!-- -->Title" names
// "1/50Title"), <wbr> (Chrome puts a space there), an image next to text (Chrome puts a space
// between "<img alt=Firefox>Try", Playwright does not), anything styled or hidden.
const BLOCK_CONTENT = new Set(["div", "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "dt", "dd"]);
const CONTENT_DISPLAYS = new Set(["inline", "block", "inline-block", "flow-root"]);
// Inline content that is text to a name: a line break is a space in both (Chrome's "\n", Playwright's
// padding), a <label>'s text is its content, a <picture> holds an image.
const INLINE_CONTENT = new Set(["br", "label", "picture"]);
// Elements that never render (a <source> keeps display: inline all the same): no part of a name.
const UNRENDERED = new Set(["source", "track", "script", "style", "template", "meta", "link", "param"]);

// Chrome stops taking a name from content after so many descendants (about 100: a Wikipedia cell
// of 54 linked countries is named up to the 32nd, names.html's of 60 up to the 33rd); a name from
// more content than this is asked of it.
const MAX_CONTENT_NODES = 60;
let contentNodes = 0;

function plainContent(element, top = element) {
  if (element === top)
    contentNodes = 0;
  if (contentElsewhere(element))
    return false;
  if (!hasPlainStyle(element, top))
    return false;
  for (let child = element.firstChild; child; child = child.nextSibling) {
    if (++contentNodes > MAX_CONTENT_NODES)
      return false;
    if (child.nodeType === Node.COMMENT_NODE) {
      if (!atEdge(child, top) && !betweenText(child, top))
        return false;
      continue;
    }
    if (child.nodeType !== Node.ELEMENT_NODE)
      continue;
    const tag = child.localName;
    if (tag === "img") {
      if (!plainImage(child, top))
        return false;
      continue;
    }
    if (tag === "svg") {
      if (!plainSvg(child, top))
        return false;
      continue;
    }
    const display = getElementComputedStyle(child).display;
    if (display === "none" || UNRENDERED.has(tag))   // not rendered: no part of any name
      continue;
    if (tag === "article" && silentAttributes(child) && CONTENT_DISPLAYS.has(display) && !outOfFlow(getElementComputedStyle(child)))
      continue;   // an article gives no name from its content, in Chrome as in Playwright
    if ((tag === "figure" || tag === "header") && padPieces && silentAttributes(child) && CONTENT_DISPLAYS.has(display) &&
        !outOfFlow(getElementComputedStyle(child)))
      continue;   // nor a figure or header in Chrome (Playwright gives their text): paddedName leaves them out
    if (tag === "wbr") {
      if (!padPieces)
        return false;
      continue;   // a space to Chrome, nothing to Playwright
    }
    if (child.getAttribute("aria-hidden") === "true" && display === "inline" && atEdge(child, top))
      continue;   // hidden from accessibility, in Chrome as in Playwright, and joining nothing
    if (outOfFlow(getElementComputedStyle(child)) && !setApart(child, top))
      return false;
    if (CONTENT_CONTROLS.has(tag) && controlLabel(child) !== null) {
      if (!padPieces && !separated(child, top))
        return false;
      continue;   // named by its aria-label (Chrome pads that name), whatever it holds
    }
    if (!(CONTENT_CONTROLS.has(tag) || PHRASING.has(tag) || BLOCK_CONTENT.has(tag) || INLINE_CONTENT.has(tag) ||
        tag === "li") || !plainAttributes(child))
      return false;
    if (!contentDisplay(child, display) || !plainContent(child, top))
      return false;
    if (CONTENT_CONTROLS.has(tag) && display === "inline" && !controlEdgesKept(child, top))
      return false;
  }
  return true;
}

// The aria-label of a link or button inside a name, which names it there too, or null.
function controlLabel(control) {
  const label = control.getAttribute("aria-label");
  return label && label.trim() && !control.hasAttribute("aria-labelledby") ? normalizeWhiteSpace(label) : null;
}

// A link or button inside a name gives Chrome its own name, trimmed: whitespace-only text at its
// edges counts only where the text beside it keeps a space anyway (audited: "<span>Site
// Index</span> <a> <span>The Times</span></a>" is "Site IndexThe Times" to Chrome; "<span>Critic
// </span> <a> 10 Reviews </a>" is "Critic 10 Reviews").
function controlEdgesKept(control, top) {
  const first = edgeText(control, "firstChild", "nextSibling");
  if (!first)
    return true;
  if (!first.data.trim()) {
    const before = side(control, top, "previousSibling");
    if (before !== "edge" && before !== "space")
      return false;
  }
  const last = edgeText(control, "lastChild", "previousSibling");
  return !!last.data.trim() || side(control, top, "nextSibling") === "edge";
}

// The first (or last) text node of an element's rendered content: not in an icon, nor hidden.
function edgeText(element, start, step) {
  for (let child = element[start]; child; child = child[step]) {
    if (child.nodeType === Node.TEXT_NODE)
      return child;
    if (child.nodeType !== Node.ELEMENT_NODE || child.localName === "svg" || UNRENDERED.has(child.localName) ||
        child.getAttribute("aria-hidden") === "true" || getElementComputedStyle(child).display === "none")
      continue;
    const text = edgeText(child, start, step);
    if (text)
      return text;
  }
  return null;
}

// A list item's marker is no part of a name, in Playwright as in Chrome (audited: the 80 cells
// and headers of bulleted lists on the Wikipedia pages); an ordered list's numbers are not tried.
const BULLETS = new Set(["none", "disc", "circle", "square"]);
function contentDisplay(element, display) {
  if (element.localName === "li")
    return display === "block" || (display === "list-item" && element.parentElement.localName === "ul" &&
      BULLETS.has(getElementComputedStyle(element).listStyleType));
  return CONTENT_DISPLAYS.has(display);
}

// What lies between a piece of content (an image, an icon, a comment) and the text beside it, on
// one side, looking out to the edge of the named element `top`: "edge" (only whitespace up to
// that edge or to a block's), "space" (text whose own whitespace touches it), "blank" (whitespace-
// only text, then inline content) or "text" (inline content touching it). Chrome pads a piece
// named by an attribute (alt, aria-label) with spaces and Playwright does not; Chrome drops
// whitespace-only text where layout collapses it (audited: "<span>1/50</span> <!-- --> Title"
// is "1/50Title" to Chrome), and pads no element out of the flow, which Playwright pads as the
// block its display says it is: the two agree where an edge or whitespace of text stands anyway.
function side(node, top, step, controlEdge = false) {
  let blank = false;
  for (let at = node; at !== top; at = at.parentNode) {
    for (let sibling = at[step]; sibling; sibling = sibling[step]) {
      if (sibling.nodeType === Node.TEXT_NODE) {
        if (!sibling.data.trim()) {
          blank = true;
          continue;
        }
        const touching = step === "previousSibling" ? sibling.data[sibling.data.length - 1] : sibling.data[0];
        return /\s/.test(touching) ? "space" : blank ? "blank" : "text";
      }
      if (sibling.nodeType !== Node.ELEMENT_NODE || UNRENDERED.has(sibling.localName))
        continue;
      const style = getElementComputedStyle(sibling);
      if (style.display === "none")
        continue;
      if (style.display !== "inline" && CONTENT_DISPLAYS.has(style.display) && !outOfFlow(style))
        return "edge";
      if (style.display === "inline" && !outOfFlow(style) && silentIcon(sibling))
        continue;   // another icon: nothing to join with
      return blank ? "blank" : "text";
    }
    const parent = at.parentNode;
    const style = parent === top ? null : getElementComputedStyle(parent);
    if (style && style.display !== "inline" && !outOfFlow(style))
      return "edge";
    if (controlEdge && CONTENT_CONTROLS.has(parent.localName))
      return "edge";   // Chrome names the link apart, trimmed (see controlEdgesKept)
  }
  return "edge";
}

// An inline element of silent icons only (a <span> around an <svg>): no text, no name inside.
function silentIcon(element) {
  return !element.textContent.trim() && silentAttributes(element) && silentContent(element);
}

// Absolutely positioned, fixed or floated: a box of its own, whose display computes to block.
function outOfFlow(style) {
  return style.position === "absolute" || style.position === "fixed" || style.cssFloat !== "none";
}

// Whether a piece that adds nothing to a name (a silent icon, a comment, hidden content) joins
// nothing either: an edge on one side, or whitespace of text that Chrome keeps (trailing before
// it; leading after it, unless whitespace-only text before it took that space in layout).
function atEdge(node, top) {
  const before = side(node, top, "previousSibling", true), after = side(node, top, "nextSibling", true);
  return before === "edge" || after === "edge" || before === "space" || (after === "space" && before !== "blank");
}

// A comment with no whitespace on either side ("$<!-- -->45"): nothing to drop.
function betweenText(comment, top) {
  return side(comment, top, "previousSibling") === "text" && side(comment, top, "nextSibling") === "text";
}

// An edge or whitespace of text on both sides: where Playwright pads an out-of-flow box, Chrome
// has a space anyway.
function setApart(node, top) {
  const before = side(node, top, "previousSibling"), after = side(node, top, "nextSibling");
  return (before === "edge" || before === "space") && (after === "edge" || (after === "space" && before !== "blank"));
}

// An edge or whitespace on both sides: a name Chrome pads comes out the same as Playwright's.
function separated(node, top) {
  return side(node, top, "previousSibling") !== "text" && side(node, top, "nextSibling") !== "text";
}

// Content that gives no name at all, in Chrome as in Playwright: no text, no alt, title or aria
// attribute anywhere inside, no generated content, only images without alt and silent svgs: the
// icon-only links and buttons of yahoo-2 and msn (audited on the corpus, bench/names_audit.py).
const SILENT_TAGS = new Set([...PHRASING, ...BLOCK_CONTENT, "img", "picture", "source", "ul", "ol", "li", "br"]);

function silentContent(element) {
  if (contentElsewhere(element))
    return false;
  if (getCSSContent(element, "::before") || getCSSContent(element, "::after"))
    return false;
  for (let child = element.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === Node.TEXT_NODE && child.data.trim())
      return false;
    if (child.nodeType !== Node.ELEMENT_NODE)
      continue;
    if (child.localName === "svg") {
      if (!silentSvg(child))
        return false;
      continue;
    }
    if (!SILENT_TAGS.has(child.localName) || !silentAttributes(child) || !silentContent(child))
      return false;
  }
  return true;
}

function silentAttributes(element) {
  for (const attr of element.attributes) {
    const name = attr.name;
    if (name === "title" || name === "role" || name.startsWith("aria-") || (name === "alt" && attr.value.trim()))
      return false;
  }
  return true;
}

// Content that is not the element's children: a shadow tree, a slot's assigned nodes, aria-owns.
function contentElsewhere(element) {
  return element.shadowRoot || clawdClosedRoot(element) || element.localName === "slot" || element.hasAttribute("aria-owns");
}

// An <svg> that adds nothing to a name: hidden from accessibility, or with no title, label or text.
function silentSvg(svg) {
  if ((svg.getAttribute("aria-hidden") || "").toLowerCase() === "true")
    return true;
  if (svg.hasAttribute("aria-label") || svg.hasAttribute("aria-labelledby") || svg.hasAttribute("role"))
    return false;
  return !svg.querySelector("title, desc, text, foreignObject, a") && !svg.textContent.trim();
}

// An <svg> inside a name: a silent one at an edge, or one named by its aria-label or a <title> of
// plain text (Chrome pads that name) with an edge or whitespace on both sides.
function plainSvg(svg, top) {
  if (silentSvg(svg))
    return atEdge(svg, top);
  const role = svg.getAttribute("role");
  if ((role !== null && role !== "img") || svg.hasAttribute("aria-labelledby") || svg.querySelector("text, foreignObject, a"))
    return false;
  return svgName(svg) !== null && (padPieces || separated(svg, top));
}

// The name of an <svg> in a name: its aria-label, else a <title> child of plain text, or null.
function svgName(svg) {
  const label = svg.getAttribute("aria-label");
  if (label !== null)
    return label.trim() ? normalizeWhiteSpace(label) : null;
  return svgTitle(svg);
}

// An <img> inside a name: named by its alt text (Chrome pads it) with an edge or whitespace on
// both sides, or silent (no alt, no title) at an edge.
function plainImage(image, top) {
  for (const attr of image.attributes) {
    if ((attr.name.startsWith("aria-") && !(attr.name === "aria-label" && imageLabel(image))) ||
        (attr.name === "role" && !presentational(image)))
      return false;
  }
  const style = getElementComputedStyle(image);
  if (!CONTENT_DISPLAYS.has(style.display) || style.visibility !== "visible")
    return false;
  if (imageLabel(image) !== null || imageAlt(image) !== null || imageTitle(image) !== null)
    return padPieces || separated(image, top);
  return !image.hasAttribute("title") && atEdge(image, top);
}

// The name an aria-label gives an <img> (before its alt, in both), or null.
function imageLabel(image) {
  const label = image.getAttribute("aria-label");
  return label && label.trim() ? normalizeWhiteSpace(label) : null;
}

// An image with no alt text that says it is presentation only: nothing in a name, in both.
function presentational(image) {
  const role = (image.getAttribute("role") || "").trim().toLowerCase();
  return (role === "presentation" || role === "none") && !imageAlt(image) && !image.hasAttribute("title");
}

// The name a title gives an <img> without an alt attribute (Chrome and Playwright alike), or null.
function imageTitle(image) {
  const title = image.getAttribute("title");
  return !image.hasAttribute("alt") && title && title.trim() ? normalizeWhiteSpace(title) : null;
}

// Attributes that change no name. A title would name an empty child, so it is plain only on a
// child with text.
function plainAttributes(element) {
  for (const attr of element.attributes) {
    const name = attr.name;
    if (PLAIN_ATTRIBUTES.has(name) || name.startsWith("data-") || name.includes(":"))
      continue;
    if (name === "title" && element.textContent.trim())
      continue;
    return false;
  }
  return true;
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

function clawdBuild(root, options) {
  const clock = clawdClock();
  const { candidates, roots } = scanPage(options.probe);
  clock("scan");
  if (candidates.length) {
    candidates.forEach((element) => clawd.probed.add(element));
    clawd.candidates = candidates;
    return { candidates: candidates.length };
  }
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
  if (!clawd.pending.length)
    return clawd.render([], options.mode === "ai");
  return { pending: clawd.pending.length };
}

clawd.pendingElements = function () {
  return clawd.pending.map(ariaNodeElement);
};

// What Python asks about next, asked for in the same write as the build: the candidates for a
// closed shadow root when the build stopped for them, else the elements of the pending names.
clawd.askedElements = function () {
  return clawd.candidates.length ? clawd.candidateElements() : clawd.pendingElements();
};

// Step 2: Chrome's names in (same order as pendingElements; null: keep ours), render. The answer
// is one string, a JSON line (refs, iframes, page) then the text: Chrome hands a string back far
// faster than the same data as objects (measured: 7,000 refs as arrays 30-50 ms, as JSON 12-17 ms).
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
  const { json, iframeDepths } = renderAriaTreeAsJSON(snapshot, publicOptions);
  clock("json");
  const text = renderAriaSnapshotAsYaml(json);
  clock("yaml");
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
