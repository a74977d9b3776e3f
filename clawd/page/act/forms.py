"""Form controls for POST /act: text entry as typing does it (type, fill), choosing <select>
options (select, fill), and checking boxes to a wanted state (fill). Errors name the element."""
from __future__ import annotations

from typing import Callable

from clawd import errors
from clawd.page.act import input as pinput, keys
from clawd.server.validation import as_bool

E = errors.ActInvalidRequest

_FOCUS_AND_SELECT = """function() {
  const el = this;
  if (el.tagName === 'INPUT') {
    const t = (el.type || 'text').toLowerCase();
    if (['checkbox', 'radio', 'file', 'button', 'submit', 'reset', 'image', 'hidden'].includes(t))
      return 'not-editable:input type=' + t;
    if (el.readOnly) return 'readonly';
    if (['date', 'time', 'datetime-local', 'month', 'week', 'range', 'color'].includes(t)) return 'value';
    el.focus();
    el.select();
    return 'ok';
  }
  if (el.tagName === 'TEXTAREA') {
    if (el.readOnly) return 'readonly';
    el.focus(); el.select(); return 'ok';
  }
  if (el.isContentEditable) {
    el.focus();
    const range = document.createRange(); range.selectNodeContents(el);
    const sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
    return 'ok';
  }
  return 'not-editable:' + el.tagName.toLowerCase();
}"""

_SET_VALUE = """function(value) {
  this.focus();
  this.value = value;
  if (this.value !== value) return false;
  this.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return true;
}"""


def enter_text(element: pinput.Element, text: str, deadline: float, *, slowly: bool = False) -> None:
    """Replace the element's text as typing does: focus, select all, then input events."""
    pinput.prepare(element, deadline)
    how = element.call(_FOCUS_AND_SELECT, deadline=deadline)
    if how == "readonly":
        raise errors.ActElementDisabled(f"{element.describe()} is read-only")
    if isinstance(how, str) and how.startswith("not-editable"):
        raise E(f"ref: {element.describe()} does not take text ({how.split(':', 1)[1]})")
    if how == "value":   # date/time/range/color pickers take no typed text in Chromium
        if not element.call(_SET_VALUE, text, deadline=deadline):
            raise E(f"text: {text!r} is not a valid value for {element.describe()}")
        return
    tab = element.tab
    if not text:
        pinput.press_chord(tab, keys.parse_chord("Delete"), deadline)
    elif slowly:
        pinput.type_slowly(tab, text, deadline)
    else:
        pinput.insert_text(tab, text, deadline)


_SELECT = """function(wanted) {
  if (this.tagName !== 'SELECT') return {error: 'not-select', tag: this.tagName.toLowerCase()};
  const options = Array.from(this.options);
  const chosen = [];
  for (const w of wanted) {
    const found = options.find(o => o.value === w) || options.find(o => o.label.trim() === w.trim())
      || options.find(o => o.textContent.trim() === w.trim());
    if (!found) return {error: 'missing', value: w, options: options.map(o => o.label.trim() || o.value)};
    if (found.disabled) return {error: 'disabled', value: w};
    chosen.push(found);
  }
  if (chosen.length > 1 && !this.multiple) return {error: 'single'};
  this.focus();
  for (const o of options) o.selected = chosen.includes(o);
  this.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {selected: chosen.map(o => o.value)};
}"""


def select_options(element: pinput.Element, values: list[str], deadline: float) -> list[str]:
    pinput.prepare(element, deadline)
    answer = element.call(_SELECT, values, deadline=deadline) or {}
    problem = answer.get("error")
    if problem == "not-select":
        raise E(f"ref: {element.describe()} is not a <select> ({answer.get('tag')}); click its options instead")
    if problem == "missing":
        raise E(f"values: no option {answer['value']!r} in {element.describe()}; options: "
                + ", ".join(repr(o) for o in answer.get("options", [])[:30]))
    if problem == "disabled":
        raise errors.ActElementDisabled(f"option {answer['value']!r} of {element.describe()} is disabled")
    if problem == "single":
        raise E(f"values: {element.describe()} takes one value, not {len(values)}")
    return answer.get("selected", [])


_FIELD_KIND = """function() {
  const el = this;
  if (el.tagName === 'SELECT') return {kind: 'select'};
  if (el.tagName === 'INPUT' && ['checkbox', 'radio'].includes(el.type))
    return {kind: el.type, checked: el.checked};
  const role = el.getAttribute('role');
  if (['checkbox', 'radio', 'switch'].includes(role))
    return {kind: role, checked: el.getAttribute('aria-checked') === 'true'};
  return {kind: 'text'};
}"""


def fill(fields: list[dict], element_of: Callable[[str], pinput.Element], deadline: float) -> None:
    """Each {ref, value} in order, its element found when its turn comes: a checkbox, radio or
    switch is clicked to the boolean wanted, a <select> gets its option(s), anything else takes
    the value as text."""
    for i, field in enumerate(fields):
        element, value = element_of(field["ref"]), field["value"]
        found = element.call(_FIELD_KIND, deadline=deadline) or {}
        kind = found.get("kind", "text")
        if kind in ("checkbox", "radio", "switch"):
            set_checked(element, kind, as_bool(value, f"fields[{i}].value", error=E),
                        found.get("checked", False), deadline)
        elif kind == "select":
            values = value if isinstance(value, list) else [str(value)]
            select_options(element, [str(v) for v in values], deadline)
        else:
            if isinstance(value, (list, bool)):
                raise E(f"fields[{i}].value: {element.describe()} takes text, not {value!r}")
            enter_text(element, str(value), deadline)


def set_checked(element: pinput.Element, kind: str, wanted: bool, checked: bool, deadline: float) -> None:
    if wanted == checked:
        return
    if kind == "radio" and not wanted:
        raise E(f"value: a radio button cannot be unchecked ({element.describe()}); check another one")
    x, y = pinput.clickable_point(element, deadline)
    pinput.click_at(element.tab, x, y, deadline)
    now = element.call(_FIELD_KIND, deadline=deadline) or {}
    if now.get("checked") != wanted:
        raise errors.ActInvalidRequest(f"clicking {element.describe()} did not make it "
                                       f"{'checked' if wanted else 'unchecked'}")
