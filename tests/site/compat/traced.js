// A script whose text a trace with sources: true carries (tests/integration/test_compat_fields.py).
function clawdTracedSourceMarker(n) {
  return "clawd-traced-source-marker:" + (n * 7);
}
window.tracedResult = clawdTracedSourceMarker(6);
