// Content whose text is a name: which content gives Chrome and Playwright the same text (plain
// content), and that text as Chrome joins it where they differ only in spacing or case
// (chromeText). Chrome's layout decides some of it (whitespace it collapses, boxes out of the
// flow), so anything it cannot be sure of is left to Chrome. Used by names.js.

const HTML_NS = "http://www.w3.org/1999/xhtml";
const PHRASING = new Set(["b", "i", "em", "strong", "span", "small", "code", "abbr", "sup", "sub",
  "mark", "u", "s", "time", "bdi", "bdo", "cite", "dfn", "kbd", "q", "samp", "var", "font", "ins", "del"]);
// Inside a name from content, these children add their own content to it (Chrome and Playwright alike)
const CONTENT_CONTROLS = new Set(["a", "button"]);
// Attributes that name nothing and change no role: presentation, microdata and RDFa, live-region
// and popup state (audited on the corpus against Chrome, bench/names_audit.py). Names with a colon
// (xml:lang, buzzfeed's rel:gt_act) are no HTML attribute at all.
const PLAIN_ATTRIBUTES = new Set(["class", "style", "dir", "lang", "id", "href", "type", "name", "target", "rel",
  "onclick", "tabindex", "itemprop", "itemscope", "itemtype", "itemid", "property", "typeof", "resource", "content",
  "aria-live", "aria-atomic", "aria-relevant", "aria-busy", "aria-controls", "aria-haspopup", "aria-expanded",
  "translate", "accesskey", "hreflang", "download", "referrerpolicy", "for", "datetime", "aria-describedby"]);

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
      piece = ariaLabel(child) || imageAlt(child) || imageTitle(child);
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

// Content whose text is the name in Chrome as in Playwright (audited on the corpus against Chrome,
// bench/names_audit.py): text, phrasing, block and list children with plain attributes and styles,
// links and buttons inside, images and icons and comments where whitespace or an edge stands
// beside them (see side), hidden content. Not plain: a comment between whitespace and text
// (Chrome drops the space: "<span>1/50</span> <!-- --> Title" is "1/50Title"), generated content
// (::before, ::after), a text-transform that changes the text, content over MAX_CONTENT_NODES.
// With padPieces (paddedName, termName), pieces whose spacing differs are plain too: <wbr>, images
// and icons touching text, figures and headers, simple text-transforms; chromeText then gives
// Chrome's text.
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
    const style = getElementComputedStyle(child);
    const display = style.display;
    if (display === "none" || UNRENDERED.has(tag))   // not rendered: no part of any name
      continue;
    // an article gives no name from its content, in Chrome as in Playwright; nor a figure or a
    // header in Chrome (Playwright gives their text): chromeText leaves them out
    const nameless = tag === "article" || (padPieces && (tag === "figure" || tag === "header"));
    if (nameless && silentAttributes(child) && CONTENT_DISPLAYS.has(display) && !outOfFlow(style))
      continue;
    if (tag === "wbr") {
      if (!padPieces)
        return false;
      continue;   // a space to Chrome, nothing to Playwright
    }
    if (child.getAttribute("aria-hidden") === "true" && display === "inline" && atEdge(child, top))
      continue;   // hidden from accessibility, in Chrome as in Playwright, and joining nothing
    if (outOfFlow(style) && !setApart(child, top))
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
  return control.hasAttribute("aria-labelledby") ? null : ariaLabel(control);
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
  return svg.hasAttribute("aria-label") ? ariaLabel(svg) : svgTitle(svg);
}

// An <img> inside a name: named by its alt text (Chrome pads it) with an edge or whitespace on
// both sides, or silent (no alt, no title) at an edge.
function plainImage(image, top) {
  for (const attr of image.attributes) {
    if ((attr.name.startsWith("aria-") && !(attr.name === "aria-label" && ariaLabel(image))) ||
        (attr.name === "role" && !presentational(image)))
      return false;
  }
  const style = getElementComputedStyle(image);
  if (!CONTENT_DISPLAYS.has(style.display) || style.visibility !== "visible")
    return false;
  if (ariaLabel(image) !== null || imageAlt(image) !== null || imageTitle(image) !== null)
    return padPieces || separated(image, top);
  return !image.hasAttribute("title") && atEdge(image, top);
}

// The name a non-blank aria-label gives (an <img>'s, before its alt, in both), or null.
function ariaLabel(element) {
  const label = element.getAttribute("aria-label");
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
