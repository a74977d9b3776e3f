"""Form controls for POST /act: text entry as typing does it (type, fill), choosing <select>
options (select, fill), and checking boxes to a wanted state (check, uncheck, fill). Errors name
the element."""

from __future__ import annotations

import time
from collections.abc import Callable

from clawd import errors, keys
from clawd.coerce import as_bool
from clawd.page.act import input as pinput
from clawd.page.act.guard import Guarded

E = errors.ActInvalidRequest
CHECKABLE = ("checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio")
ONE_OF_GROUP = ("radio", "menuitemradio")  # checked by choosing another, never unchecked
STATE_SETTLE = 1.0  # seconds a page may take to show the state a click asked for

_FOCUS_AND_SELECT = """function() {
  const el = this;
  if (el.tagName === 'INPUT') {
    const t = (el.type || 'text').toLowerCase();
    if (['checkbox', 'radio', 'file', 'button', 'submit', 'reset', 'image', 'hidden'].includes(t))
      return 'not-editable:input type=' + t;
    if (el.readOnly) return 'readonly';
    if (['date', 'time', 'datetime-local', 'month', 'week', 'range', 'color'].includes(t))
      return 'value';
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


def enter_text(element: pinput.Element, text: str, *, slowly: bool = False) -> None:
    """Replace the element's text as typing does: focus, select all, then input events."""
    pinput.prepare(element)
    how = element.call(_FOCUS_AND_SELECT)
    if how == "readonly":
        raise errors.ActElementDisabled(f"{element.describe()} is read-only")
    if isinstance(how, str) and how.startswith("not-editable"):
        raise E(f"ref: {element.describe()} does not take text ({how.split(':', 1)[1]})")
    if how == "value":  # date/time/range/color pickers take no typed text in Chromium
        if not element.call(_SET_VALUE, text):
            raise E(f"text: {text!r} is not a valid value for {element.describe()}")
        return
    keyboard = element.top
    if not text:
        pinput.press_chord(keyboard, keys.parse_chord("Delete"))
    elif slowly:
        pinput.type_slowly(keyboard, text)
    else:
        pinput.insert_text(keyboard, text)


_SELECT = """function(wanted) {
  if (this.tagName !== 'SELECT') return {error: 'not-select', tag: this.tagName.toLowerCase()};
  const options = Array.from(this.options);
  const chosen = [];
  for (const w of wanted) {
    const found = options.find(o => o.value === w) || options.find(o => o.label.trim() === w.trim())
      || options.find(o => o.textContent.trim() === w.trim());
    if (!found)
      return {error: 'missing', value: w, options: options.map(o => o.label.trim() || o.value)};
    if (found.disabled) return {error: 'disabled', value: w};
    chosen.push(found);
  }
  if (chosen.length > 1 && !this.multiple) return {error: 'single'};
  // as a person's choice in the native list: no focus first (a page may open its own list on
  // focus), the options set, then input and change, bubbling
  for (const o of options) o.selected = chosen.includes(o);
  this.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {selected: chosen.map(o => o.value)};
}"""


def select_options(element: pinput.Element, values: list[str]) -> list[str]:
    """Choose the options whose value, label or text is in `values` (Playwright's selectOption:
    the element visible and enabled, waited for; set without a focus)."""
    pinput.prepare(element)
    answer = element.call(_SELECT, values) or {}
    problem = answer.get("error")
    if problem == "not-select":
        raise E(
            f"ref: {element.describe()} is not a <select> ({answer.get('tag')}); "
            "click its options instead"
        )
    if problem == "missing":
        raise E(
            f"values: no option {answer['value']!r} in {element.describe()}; options: "
            + ", ".join(repr(o) for o in answer.get("options", [])[:30])
        )
    if problem == "disabled":
        raise errors.ActElementDisabled(
            f"option {answer['value']!r} of {element.describe()} is disabled"
        )
    if problem == "single":
        raise E(f"values: {element.describe()} takes one value, not {len(values)}")
    return answer.get("selected", [])


# A <label> stands for its control (a click on it toggles the control); ARIA widgets report
# their state in aria-checked ("mixed" is not checked: a click on it goes to checked).
_FIELD_KIND = """function(checkable) {
  const el = this;
  if (el.tagName === 'SELECT') return {kind: 'select'};
  const input = el.tagName === 'LABEL' && el.control ? el.control : el;
  if (input.tagName === 'INPUT' && ['checkbox', 'radio'].includes(input.type))
    return {kind: input.type, checked: input.checked};
  const role = (el.getAttribute('role') || '').trim().split(' ')[0];
  if (checkable.includes(role))
    return {kind: role, checked: el.getAttribute('aria-checked') === 'true'};
  return {kind: 'text'};
}"""


def _field_kind(element: pinput.Element) -> dict:
    return element.call(_FIELD_KIND, list(CHECKABLE)) or {}


def check(ctx, a: dict, page: Guarded) -> dict:
    """The check and uncheck kinds: a checkbox, radio or switch (native, ARIA, or the label of
    one) is clicked only when it is not in the wanted state, and must then be in it."""
    element = ctx.element(a["ref"], page)
    found = _field_kind(element)
    if found.get("kind") not in CHECKABLE:
        raise E(
            f"ref: {element.describe()} is not a checkbox, radio or switch; {a['kind']} "
            "needs one (click other elements with kind click)"
        )
    wanted = a["kind"] == "check"
    changed = set_checked(element, found["kind"], wanted, found.get("checked", False))
    return {"checked": wanted, "changed": changed}


def fill(fields: list[dict], element_of: Callable[[str], pinput.Element]) -> None:
    """Each {ref, value} in order, its element found when its turn comes: a checkbox, radio or
    switch is clicked to the boolean wanted, a <select> gets its option(s), anything else takes
    the value as text."""
    for i, field in enumerate(fields):
        element, value = element_of(field["ref"]), field["value"]
        found = _field_kind(element)
        kind = found.get("kind", "text")
        if kind in CHECKABLE:
            set_checked(
                element,
                kind,
                as_bool(value, f"fields[{i}].value", error=E),
                found.get("checked", False),
            )
        elif kind == "select":
            values = value if isinstance(value, list) else [str(value)]
            select_options(element, [str(v) for v in values])
        else:
            if isinstance(value, (list, bool)):
                raise E(f"fields[{i}].value: {element.describe()} takes text, not {value!r}")
            enter_text(element, str(value))


def set_checked(element: pinput.Element, kind: str, wanted: bool, checked: bool) -> bool:
    """Click the element when it is not in the wanted state; True when it clicked."""
    if wanted == checked:
        return False
    if kind in ONE_OF_GROUP and not wanted:
        raise E(
            f"{element.describe()} is a radio button: it cannot be unchecked; check another "
            "one of its group"
        )
    x, y = pinput.clickable_point(element)
    pinput.click_at(element.top, x, y)
    if not _reached(element, wanted):
        raise E(
            f"clicking {element.describe()} did not make it {'checked' if wanted else 'unchecked'}"
        )
    return True


def _reached(element: pinput.Element, wanted: bool) -> bool:
    """Whether the element shows the wanted state within STATE_SETTLE (a page may set it a
    moment after the click, from a handler of its own)."""
    until = min(element.deadline, time.monotonic() + STATE_SETTLE)
    while _field_kind(element).get("checked") != wanted:
        if time.monotonic() + 0.05 >= until:
            return False
        time.sleep(0.05)
    return True
