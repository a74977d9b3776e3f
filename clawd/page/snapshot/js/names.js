// Which printed names are Chrome's own: the walker computes every name as Playwright does; here
// is whether Chrome's accessible name is certainly the same, or what it is where it differs in a
// known way (spacing, case, a figure's caption), so that Python asks Chrome
// (Accessibility.getPartialAXTree) only for the rest: one question makes Chrome build the page's
// whole accessibility tree. Every rule is audited against Chrome over the corpus pages with
// bench/names_audit.py and has a case in tests/site/snapshot/vouched.html or names.html.
// What content's text is (plain content, icons, whitespace) lives in content.js.

// Roles Chrome names from their content where Playwright does not (the refs map wants Chrome's).
const CHROME_CONTENT_NAMED = new Set(["term"]);
const FORM_CONTROLS = new Set(["input", "textarea", "select"]);
const NEVER_SIMPLE = new Set(["img", "area", "svg", "object", "embed", "fieldset", "figure", "table",
  "output", "meter", "progress", "iframe", "frame", "canvas", "video", "audio", "math", "summary", "details"]);
const INPUT_BUTTONS = new Set(["submit", "button", "reset"]);
const TEXT_INPUTS = new Set(["", "text", "email", "tel", "url", "search", "password", "number",
  "checkbox", "radio"]);

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
  const verdict = clawdKnownName(element, node.role) ? true : nameIsCertain(element, node.role, node.name);
  node.certain = verdict === true;
  node.fullName = node.name;   // Playwright's ai mode may blank a printed name; the refs map keeps it
  const term = !node.certain && CHROME_CONTENT_NAMED.has(node.role) && termName(element);
  if (term !== false) {   // Chrome names a term from its text, Playwright does not: the refs map has Chrome's
    node.fullName = term;
    node.certain = true;
  }
  if (!node.certain && titledGeneric(element, node.role) && hasPointerCursor(node)) {
    node.certain = true;   // Chrome names no generic; a clickable one keeps its title (Playwright's ai mode)
  }
  if (!node.certain && (titledGeneric(element, node.role) || captionedFigure(element))) {
    node.chromeName = "";
    node.certain = true;
  }
  // named from content nothing else overrides: Chrome's name may differ from Playwright's in
  // spacing or case only, and paddedName gives it
  const padded = node.certain || verdict !== CONTENT ? null : paddedName(element);
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

// The name Chrome gives a term (<dt>) of inline text only (links, labels, phrasing), or false.
function termName(element) {
  if (element.hasAttribute("aria-label") || element.hasAttribute("aria-labelledby") ||
      element.hasAttribute("title") || !inlineText(element))
    return false;
  const text = padded(element);
  return text === null ? false : text;
}

// A generic element (a <div>, a <span>) with a title: Chrome names no generic element, and a
// title is all that would name this one (audited: every one of the corpus, 103). Not a focusable
// one, which Chrome may name.
function titledGeneric(element, role) {
  return role === "generic" && element.namespaceURI === HTML_NS &&
    element.hasAttribute("title") && !element.hasAttribute("aria-label") &&
    !element.hasAttribute("aria-labelledby") && !element.hasAttribute("tabindex") && !element.isContentEditable;
}

// nameIsCertain's answer when it is not certain, but the name comes from content alone.
const CONTENT = "content";

// true, false or CONTENT.
function nameIsCertain(element, role, name) {
  if (element.hasAttribute("aria-labelledby") && !labelledByNothing(element))
    return !!name && name === labelledByText(element);
  if (element.localName === "img")   // an aria-label names an image before its alt text, that before its title
    return name !== "" && (ariaLabel(element) ?? imageAlt(element) ?? imageTitle(element)) === name;
  // a title names an element only when nothing else does (Chrome and Playwright alike): a name
  // equal to the title is certain when the element has text of its own (plain content, checked
  // below, then gives the name), or none at all (titleNames). A generic element's title is no
  // name to Chrome (titledGeneric).
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
    return plainContent(element) || (name === "" && silentContent(element)) || CONTENT;
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
        label.hasAttribute("aria-labelledby") || !inlineText(label) || !plainContent(label))
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
