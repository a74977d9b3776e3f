// clawd's renderer: the walker's tree (walker.js) made into the snapshot's text, Playwright's aria
// snapshot format (docs/snapshot.md): the tree distilled (text merged, role-less wrappers let go,
// text that repeats a name dropped), then one YAML-ish line a node.


function distillAriaSnapshot(snapshot, options) {
  const ai = options.mode === "ai";
  distillNode(snapshot.root, ai, true);
  finishNode(snapshot.root, ai);
}

// Text with something to read (not whitespace only).
function hasText(child) {
  return typeof child === "string" && !!child.trim();
}

// Children first: a node's children are final before it is judged. Text stays as the page has
// it until finishNode: text of a wrapper let go joins its neighbours' with its own spaces.
function distillNode(node, ai, isRoot) {
  const children = [];
  for (const child of node.children) {
    if (typeof child === "string" || child === BREAK) {
      children.push(child);
      continue;
    }
    distillNode(child, ai, false);
    if (child.role === "generic" && letGo(child, ai)) {
      const pad = child.block && !ai;
      if (pad)
        children.push(BREAK);
      children.push(...child.children);
      if (pad)
        children.push(BREAK);
      continue;
    }
    if (ai && child.role === "img" && !child.name)
      continue;
    children.push(child);
  }
  node.children = mergeText(children);
  if (ai && node.role === "generic" && !isRoot)
    liftSingleChild(node);
}

// Whether a generic node is printed as its content: always in the default text; in ai mode when
// it holds text only and flows inline, or nothing at all, or one node it may stand aside for.
function letGo(node, ai) {
  if (!ai)
    return true;
  if (node.tool || node.props.ariaHidden)
    return false;
  const nodes = node.children.some((c) => typeof c !== "string" && c !== BREAK);
  if (!nodes && !node.children.some(hasText))
    return !node.name && !hasPointerCursor(node);
  if (!nodes)   // inline text of its own (not only ::before, ::after) joins its parent's
    return node.inline && !!node.ownText && node.element.localName !== "a";
  return false;
}

// ai mode: a generic node around a single node (no text of its own) gives way to it when that
// node has a box (a ref), or when neither has one and the node holds text only.
function liftSingleChild(node) {
  const nodes = node.children.filter((c) => typeof c !== "string");
  const only = nodes.length === 1 ? nodes[0] : null;
  const standsIn = only && (only.ref ||
    (only.role === "generic" && !node.ref && !only.children.some((c) => typeof c !== "string")));
  if (standsIn && !node.children.some(hasText) && !node.name &&
      !node.tool && !node.props.ariaHidden)
    node.replacement = only;
}

// Adjacent text joined (a break between blocks is a space); a replaced node (liftSingleChild) is
// its replacement.
function mergeText(children) {
  const out = [];
  let text = null;
  for (let child of children) {
    if (child === BREAK) {
      if (text !== null)
        text += " ";
      else
        text = " ";
      continue;
    }
    if (typeof child === "string") {
      text = (text === null ? "" : text) + child;
      continue;
    }
    while (child.replacement)
      child = child.replacement;
    if (text !== null)
      out.push(text);
    text = null;
    out.push(child);
  }
  if (text !== null)
    out.push(text);
  return out;
}

// The text a child gives its parent's content: a node's name, else its children's text; a block
// set apart by spaces.
function textOf(child) {
  if (typeof child === "string")
    return child;
  const text = child.name || child.children.map(textOf).join("");
  return child.inline ? text : " " + text + " ";
}

// ai mode: a wrapper whose text is only its parent's name (a fieldset's legend) says nothing more.
function repeatsName(child, name) {
  return typeof child !== "string" && child.role === "generic" && !child.name && child.children.length === 1 &&
    child.children[0] === name && !hasPointerCursor(child);
}

// Text normalized, empty text gone, text that only repeats the node's name dropped, names that
// repeat their content left out (ai mode).
function finishNode(node, ai) {
  const redundant = ai && node.name && !(node.children.length === 1 && typeof node.children[0] === "string") &&
    node.children.some((c) => typeof c !== "string") &&
    !node.children.some((c) => c.role === "generic" && !c.inline) &&
    normalizeWhiteSpace(node.children.map(textOf).join("")) === node.name;
  const children = [];
  for (const child of node.children) {
    if (typeof child === "string") {
      const text = normalizeWhiteSpace(child);
      if (text)
        children.push(text);
      continue;
    }
    finishNode(child, ai);
    children.push(child);
  }
  node.children = ai && node.name ? children.filter((child) => !repeatsName(child, node.name)) : children;
  const only = node.children.length === 1 ? node.children[0] : null;
  if (typeof only === "string" && only === node.name)
    node.children = [];
  else if (redundant)
    node.name = "";   // its content says it
}

// ---- text ------------------------------------------------------------------------------------

// Whether a YAML plain scalar would read otherwise than the string (observed rules of the format).
function yamlNeedsQuotes(text) {
  if (!text)
    return true;
  if (/^\s|\s$/.test(text) || /[\x00-\x1f\x7f-\x9f]/.test(text))
    return true;
  if (/^[-?{[\],&*!|>%@`'"#~]/.test(text) || /[{}`]/.test(text))
    return true;
  if (/: |:$| #/.test(text))
    return true;
  if (/^(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN)$/.test(text))
    return true;
  return /^(?:y|n|yes|no|true|false|on|off|null)$/i.test(text);
}

// Double-quoted as JSON, with C1 control characters escaped as YAML writes them.
function yamlQuote(text) {
  return JSON.stringify(text).replace(/[\x7f-\x9f]/g, (c) => "\\x" + c.charCodeAt(0).toString(16));
}

function yamlValue(text) {
  return yamlNeedsQuotes(text) ? yamlQuote(text) : text;
}

function yamlKey(text) {
  return yamlNeedsQuotes(text) ? "'" + text.replace(/'/g, "''") + "'" : text;
}

function nodeKey(node, ai) {
  let key = node.role;
  if (node.name)
    key += " " + JSON.stringify(node.name);
  const props = node.props;
  if (props.checked === "mixed")
    key += " [checked=mixed]";
  else if (props.checked === true)
    key += " [checked]";
  if (props.disabled)
    key += " [disabled]";
  if (props.expanded)
    key += " [expanded]";
  if (ai && props.active)
    key += " [active]";
  if (props.level)
    key += ` [level=${props.level}]`;
  if (props.pressed === "mixed")
    key += " [pressed=mixed]";
  else if (props.pressed === true)
    key += " [pressed]";
  if (props.selected)
    key += " [selected]";
  if (ai && props.ariaHidden)
    key += " [aria-hidden]";
  if (ai && node.tool)
    key += ` [tool=${node.tool}]`;
  if (ai && node.ref) {
    key += ` [ref=${node.ref}]`;
    if (node.nth)
      key += ` [nth=${node.nth}]`;
    if (hasPointerCursor(node))
      key += " [cursor=pointer]";
  }
  return key;
}

// The snapshot's text; iframeDepths: the ref of each iframe printed, and its line's depth.
function renderAriaTree(snapshot, options) {
  const ai = options.mode === "ai";
  const lines = [];
  const iframeDepths = {};
  const render = (node, depth) => {
    const indent = "  ".repeat(depth);
    if (typeof node === "string") {
      lines.push(`${indent}- text: ${yamlValue(node)}`);
      return;
    }
    const key = yamlKey(nodeKey(node, ai));
    if (node.role === "iframe" && node.ref)
      iframeDepths[node.ref] = depth;
    const props = [];
    if (node.url !== undefined)
      props.push(`/url: ${yamlValue(node.url)}`);
    if (node.placeholder !== undefined)
      props.push(`/placeholder: ${yamlValue(node.placeholder)}`);
    if (!props.length && !node.children.length) {
      lines.push(`${indent}- ${key}`);
    } else if (!props.length && node.children.length === 1 && typeof node.children[0] === "string") {
      lines.push(`${indent}- ${key}: ${yamlValue(node.children[0])}`);
    } else {
      lines.push(`${indent}- ${key}:`);
      for (const prop of props)
        lines.push(`${indent}  - ${prop}`);
      node.children.forEach((child) => render(child, depth + 1));
    }
  };
  snapshot.root.children.forEach((child) => render(child, 0));
  return { text: lines.join("\n"), iframeDepths };
}
