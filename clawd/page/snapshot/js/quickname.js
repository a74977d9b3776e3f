// The name from content (accname 1.2 step 2F, walker.js's contentName, as Playwright computes it),
// computed the short way for a link, button, heading or cell whose content
// takes none of the algorithm's detours: no labels, roles, owned elements, shadow roots, form
// controls or images inside, only text and text-level or block HTML elements with plain
// attributes. The walk is the same (children in order, ::before and ::after, blocks and line
// breaks padded with spaces, hidden children empty, content of roles that take none from it left
// out) without the general algorithm's per-node work, which it did for every descendant of every
// such element, a cell's links again for the cell and for each link. Measured: the general way's
// names were 20-25 % of the walker in CPU profiles of wikipedia and lifehacker (the style and
// pseudo-element reads among it, which the walk needs anyway); warm, the walker on big.html is
// 21 % faster this way. Anything else is left to walker.js's general algorithm: quickName gives null.
// bench/quickname_audit.py and tests/integration/test_snapshot_quickname.py compare the two.

const QUICK_TOPS = new Set(["a", "button", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th"]);
const QUICK_CONTENT = new Set([...PHRASING, "a", "button", "br", "label", "div", "p", "h1", "h2", "h3", "h4",
  "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd"]);

// What computeAccessibleNameComposite(element, false) gives, {text, elements}, or null.
function quickName(element, role) {
  if (!QUICK_TOPS.has(element.localName) || element.namespaceURI !== HTML_NS)
    return null;
  const elements = new Set();
  const text = allowsNameFromContent(role, false) && !element.hasAttribute("aria-label") &&
    !element.hasAttribute("aria-labelledby") && !labelledButton(element) ? quickContent(element, elements) : null;
  if (text === null || !trimFlatString(text)) {   // an empty name goes on to the title
    if (clawd.auditQuickNames)
      clawd.quickAudit.general++;
    return null;
  }
  elements.add(element);
  const name = { text: asFlatString(text), elements };
  if (clawd.auditQuickNames)
    auditQuickName(element, name);
  return name;
}

// innerAccumulatedElementText's text, contributors added to `elements`; null: a detour.
function quickContent(element, elements) {
  if (element.shadowRoot || clawdClosedRoot(element) || element.hasAttribute("aria-owns"))
    return null;
  let text = getCSSContent(element, "::before") || "";
  const content = getCSSContent(element);
  if (content !== undefined) {
    text += content;
  } else {
    for (let child = element.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === Node.TEXT_NODE) {
        if (!isTextNodeNotRendered(child))
          text += child.textContent || "";
      } else if (child.nodeType === Node.ELEMENT_NODE) {
        const token = quickChild(child, elements);
        if (token === null)
          return null;
        text += token;
      }
    }
  }
  return text + (getCSSContent(element, "::after") || "");
}

// A child's token in its parent's name: getTextAlternativeInternal of a descendant, padded.
function quickChild(child, elements) {
  const display = getElementComputedStyle(child)?.display || "inline";
  let token = "";
  if (!isElementIgnoredForAria(child) && !isElementHiddenForAria(child)) {
    if (!QUICK_CONTENT.has(child.localName) || child.namespaceURI !== HTML_NS || !plainAttributes(child) ||
        labelledButton(child))
      return null;
    if (allowsNameFromContent(getAriaRole(child) || "", true)) {
      const inner = quickContent(child, elements);
      if (inner === null || (!inner && child.hasAttribute("title")))
        return null;   // content that gives nothing goes on to the title
      if (trimFlatString(inner))
        elements.add(child);
      token = inner;
    }
  }
  return display !== "inline" || child.nodeName === "BR" ? " " + token + " " : token;
}

// A <label> names a button before its content does.
function labelledButton(element) {
  return element.localName === "button" && elementLabels(element).length > 0;
}

// Audit mode (bench/quickname_audit.py, the quickname test): the general algorithm's answer
// beside the quick one, each difference kept.
function auditQuickName(element, quick) {
  const full = computeAccessibleNameComposite(element, false);
  const ours = [...quick.elements], theirs = [...(full.elements || [])];
  clawd.quickAudit.count++;
  if (full.text !== quick.text || ours.length !== theirs.length || ours.some((e, i) => e !== theirs[i]))
    clawd.quickAudit.differ.push([element.outerHTML.slice(0, 300), quick.text, full.text, ours.length, theirs.length]);
}
